#pragma once
// A visitor's "your turn" notifications: POST opts their ticket into one channel (a Web
// Push subscription or an email address), DELETE opts it out of every channel. The contact
// goes to the contact book (core/notify/contact_book.hpp), never to the log. An email opt-in
// also makes the visitor's resume link when they hold none (a resume_link_changed event),
// for the mail to carry: it may be read on another device.
//
// Durable first: the book decides (contact_book::decide_add, decide_remove) without
// changing, the visitor's record is written to the store's contacts
// (event_store::write_contacts), and only then is the change applied and answered, so an
// opt-in acknowledged survives a crash; if it cannot be written, 503 and the book never
// changed.
//
// Notices can't be aimed at strangers: a ticket gives one address per room (another is
// refused, contact_taken, even after an opt-out), the book holds an address to its rules
// (contact_book.hpp: once per kind and room, or each ticket confirmed), and each client network's opt-ins are counted as
// its joins are (pow::join_pressure, [notifications] opt_ins_per_network within the
// pressure window; past it 429 too_many_opt_ins). An opt-in under way holds its place in
// that count from the check on (before anything is awaited), so opt-ins sent at once can't
// all pass it; one refused or failed gives its place back. A page that sends its
// subscription again changes nothing and is not counted.

#include <map>
#include <variant>

#include <simdjson.h>

#include "core/base/field_problem.hpp"
#include "core/notify/contact.hpp"
#include "http/handlers/context.hpp"
#include "http/handlers/resume.hpp"
#include "http/handlers/visitor.hpp"

namespace foyer::http::handlers {

// {"push": {"endpoint", "keys": {"p256dh", "auth"}}} (PushSubscription.toJSON(); other
// members are ignored) or {"email": "..."}, one of them; checked (notify::check_push,
// check_email). Else the field at fault, "" for the body as a whole.
std::variant<notify::contact, field_problem> parse_contact(simdjson::ondemand::parser& parser,
                                                           simdjson::padded_string_view text,
                                                           const std::vector<std::string>& private_push_hosts);

class notifications {
 public:
  notifications(context& ctx, const visitor& tickets, resume_links& links)
      : ctx_(ctx), tickets_(tickets), links_(links), opt_ins_(ctx.settings.opt_in_pressure) {}

  task<response> opt_in(const request& req, const peer& who, const room& r);
  task<response> opt_out(const request& req, const room& r);
  // GET /r/{room}/notify/confirm/{token}: a page asking the address's holder to confirm
  // ([notifications] confirm); POST there confirms (contact_book::confirm), written first.
  response confirm_page(const request& req, const room& r, std::string_view token) const;
  task<response> confirm(const request& req, const room& r, std::string token);

  using network_bytes = std::array<std::uint8_t, network_key::size>;
  // Opt-ins under way by client network, not yet counted in opt_ins_: one entry per network
  // with a request in flight, so bounded by the requests the server holds at once.
  using under_way_map = std::map<network_bytes, std::uint32_t>;

 private:
  // Writes the decided records; false if they could not be.
  task<bool> durable(std::vector<record_change> changes);
  response not_confirmable(const request& req) const;

  context& ctx_;
  const visitor& tickets_;
  resume_links& links_;
  pow::join_pressure opt_ins_;  // opt-ins by client network
  under_way_map under_way_;
};

}  // namespace foyer::http::handlers
