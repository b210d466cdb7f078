#include "delivery/notice_senders.hpp"

#include <fmt/core.h>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/notify/email_message.hpp"
#include "core/notify/push_payload.hpp"

namespace foyer::delivery {
namespace {

// A notice is worth nothing once the visitor's claim window is long gone: the push service
// keeps it an hour at most.
constexpr std::chrono::seconds push_ttl{3600};

}  // namespace

notice_senders::notice_senders(net::io_context& ioc, const clock& clock, const journal& rooms, public_origin at)
    : ioc_(ioc), clock_(clock), rooms_(rooms), at_(std::move(at)) {}

void notice_senders::use_push(const pass::signing_key& vapid_key, std::string subject, push_reach reach) {
  push_.emplace(ioc_, clock_, vapid_key, std::move(subject), std::move(reach));
}

void notice_senders::use_email(smtp_settings settings) {
  email_.emplace(ioc_, std::move(settings));
}

void notice_senders::attach(notifier& n) {
  if (push_) n.set_sender(notify::channel::push, [this](const notify::notice& x) { return push(x); });
  if (email_) n.set_sender(notify::channel::email, [this](const notify::notice& x) { return email(x); });
}

std::string notice_senders::room_name(const std::string& id) const {
  const auto* r = rooms_.find(id);
  return r ? r->config().name : id;
}

net::awaitable<notify::outcome> notice_senders::push(const notify::notice& n) {
  auto payload = notify::push_payload(n, room_name(n.room), at_);
  std::string problem;
  auto o = co_await push_->send(std::get<notify::push_subscription>(n.to), payload, push_ttl, &problem);
  // The endpoint's path identifies the visitor's browser: the log names the room, the push
  // service's origin and what went wrong, never the path.
  if (o != notify::outcome::delivered) fmt::print(stderr, "foyer: notifications: push for room {}: {}\n", n.room, problem);
  co_return o;
}

net::awaitable<notify::outcome> notice_senders::email(const notify::notice& n) {
  const auto& to = std::get<notify::email_contact>(n.to);
  auto kind = n.kind == notify::notice_kind::soon   ? notify::email_notice::kind::soon
              : n.kind == notify::notice_kind::turn ? notify::email_notice::kind::turn
                                                    : notify::email_notice::kind::confirm;
  // A confirmation carries its link, and nothing of the visitor's place.
  notify::email_notice what{kind, room_name(n.room), n.minutes,
                            kind == notify::email_notice::kind::confirm ? to.confirm_link : to.link};
  auto message = notify::build_email({email_->from(), to.address, clock_.now_ms(), to_hex(random_array<16>())}, what);
  auto result = co_await email_->deliver(to.address, message);
  // The relay's detail never quotes the address (smtp_sender.hpp).
  if (result.outcome != notify::outcome::delivered) {
    fmt::print(stderr, "foyer: notifications: email for room {}: {}\n", n.room, result.detail);
  }
  co_return result.outcome;
}

}  // namespace foyer::delivery
