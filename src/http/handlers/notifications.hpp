#pragma once
// A visitor's "your turn" notifications: POST opts their ticket into one channel (a Web
// Push subscription or an email address), DELETE opts it out of every channel. The contact
// goes to the contact book (core/notify/contact_book.hpp), never to the log. An email opt-in
// also makes the visitor's resume link when they hold none (a resume_link_changed event),
// for the mail to carry: it may be read on another device. Either answer waits until the
// book's change is durable in the store's contacts (event_store::write_contacts), so an
// opt-in acknowledged survives a crash; if it cannot be written, 503 and the book is as
// before the request.

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
      : ctx_(ctx), tickets_(tickets), links_(links) {}

  task<response> opt_in(const request& req, const room& r);
  task<response> opt_out(const request& req, const room& r);

 private:
  // Writes the visitor's record if the request changed it; false, and the change undone
  // (back to `before`), if it could not be.
  task<bool> durable(std::string room_id, id16 visitor, std::optional<std::string> before);

  context& ctx_;
  const visitor& tickets_;
  resume_links& links_;
};

}  // namespace foyer::http::handlers
