#pragma once
// The notifier's two channels: each notice is rendered for its channel (core/notify:
// push_payload, build_email) and handed to the push sender or the SMTP relay, and what
// became of it is told back in the contact book's terms. A channel without its settings
// (no VAPID subject, no relay) has no sender: its opt-ins are refused before any is taken.
//
// Single-threaded: every member runs on the event loop.

#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <foyer/clock.hpp>

#include "core/base/public_origin.hpp"
#include "core/passes/pass.hpp"
#include "core/rooms/journal.hpp"
#include "delivery/notifier.hpp"
#include "delivery/push_sender.hpp"
#include "delivery/smtp_sender.hpp"

namespace foyer::delivery {

class notice_senders {
 public:
  // Pushed notices link the room's page at `at`.
  notice_senders(net::io_context& ioc, const clock& clock, const journal& rooms, public_origin at);
  notice_senders(const notice_senders&) = delete;
  notice_senders& operator=(const notice_senders&) = delete;

  // Pushes signed with `vapid_key` for `subject` (RFC 8292), reaching as `reach` allows.
  void use_push(const pass::signing_key& vapid_key, std::string subject, push_reach reach);
  // Email through the operator's relay. Throws std::runtime_error as smtp_sender does.
  void use_email(smtp_settings settings);
  // Gives `n` a sender for each channel in use.
  void attach(notifier& n);

 private:
  net::awaitable<notify::outcome> push(const notify::notice& n);
  net::awaitable<notify::outcome> email(const notify::notice& n);
  // The room's name as its page shows it; its id once the room is gone.
  std::string room_name(const std::string& id) const;

  net::io_context& ioc_;
  const clock& clock_;
  const journal& rooms_;
  public_origin at_;
  std::optional<push_sender> push_;
  std::optional<smtp_sender> email_;
};

}  // namespace foyer::delivery
