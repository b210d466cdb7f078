#pragma once
// A visitor's "your turn" notifications: POST opts their ticket into one channel (a Web
// Push subscription or an email address), DELETE opts it out of every channel. The contact
// goes to the contact book (core/notify/contact_book.hpp), in memory, never to the log:
// nothing is written, so both answer at once.

#include <variant>

#include <simdjson.h>

#include "core/base/field_problem.hpp"
#include "core/notify/contact.hpp"
#include "http/handlers/context.hpp"
#include "http/handlers/visitor.hpp"

namespace foyer::http::handlers {

// {"push": {"endpoint", "keys": {"p256dh", "auth"}}} (PushSubscription.toJSON(); other
// members are ignored) or {"email": "..."}, one of them; checked (notify::check_push,
// check_email). Else the field at fault, "" for the body as a whole.
std::variant<notify::contact, field_problem> parse_contact(simdjson::ondemand::parser& parser,
                                                           simdjson::padded_string_view text,
                                                           bool private_push_endpoints);

class notifications {
 public:
  notifications(context& ctx, const visitor& tickets) : ctx_(ctx), tickets_(tickets) {}

  response opt_in(const request& req, const room& r);
  response opt_out(const request& req, const room& r);

 private:
  context& ctx_;
  const visitor& tickets_;
};

}  // namespace foyer::http::handlers
