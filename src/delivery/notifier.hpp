#pragma once
// Sends the "your turn" notices: about once a second it asks the contact book which are
// due (notify::contact_book::plan) and queues each on its channel's bounded outbox; each
// channel sends one notice at a time, in order, through its sender, retrying a failure
// with back-off a bounded number of times. Nothing here is on the visitor's path: a poll
// or a join never waits for it, and a push service or relay that hangs or refuses costs
// the queue its oldest notices (counted dropped), never the visitors' time.
//
// Each pass also writes what the book changed (the contacts of visitors told their turn,
// forgotten or of rooms that ended are deleted; "soon sent" is kept) in one write to the
// store, waited for by nobody; a failed one is tried again with the next pass.
//
// A channel's sender owns its timeouts (a hung push service or relay must end its send).
//
// An "it's your turn" starts the visitor's claim window when it goes out: its first send, on
// either channel, writes a turn_notified event. One that can no longer help (the visitor
// claimed, or lapsed while it waited in the queue) is not sent: `stale`.
//
// Single-threaded: every member runs on the event loop.

#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>
#include <foyer/store.hpp>

#include "core/notify/contact_book.hpp"
#include "core/ops/metrics.hpp"
#include "core/rooms/journal.hpp"

namespace foyer::delivery {

namespace net = boost::asio;

class notifier {
 public:
  // Sends one notice and says what became of it (the channel senders' notify::outcome).
  // The notice lives until the send completes.
  using send_function = std::function<net::awaitable<notify::outcome>(const notify::notice&)>;

  struct options {
    std::uint32_t soon_seconds = 300;        // Default: 5 minutes ([notifications] soon_minutes)
    std::size_t queue_capacity = 10'000;     // Default: 10,000 notices wait per channel, then the oldest go
    unsigned max_attempts = 5;               // Default: a failing notice is tried 5 times, then dropped
    std::chrono::milliseconds retry_base{1'000};   // Default: the first retry within 1 s
    std::chrono::milliseconds retry_max{60'000};   // Default: retries wait a minute at most
    std::chrono::milliseconds period{1'000};       // Default: due notices are looked for every second
  };

  notifier(net::io_context& ioc, const clock& clock, journal& rooms, notify::contact_book& book, event_store& store,
           options o);

  // The sender of channel `ch`. Until it has one, the channel's notices wait in its queue.
  void set_sender(notify::channel ch, send_function send);

  void start();
  // Stops sending; what is queued is forgotten. The book's last changes are written.
  void stop();

  // The notices queued on `ch`.
  std::size_t queued(notify::channel ch) const;
  // foyer_notifications_total{channel,outcome}, foyer_notified_no_shows_total,
  // foyer_notification_contacts (visitors whose contacts are held) and
  // foyer_notification_queue{channel}.
  void collect(ops::metrics_writer& w) const;

 private:
  struct pending {
    notify::notice n;
    unsigned attempts = 0;
  };
  struct lane {
    explicit lane(net::io_context& ioc) : retry(ioc) {}
    send_function send;
    std::deque<pending> queue;
    std::optional<pending> sending;  // the notice a send is working on
    net::steady_timer retry;
    bool busy = false;
  };

  void schedule();
  void plan();
  void write_changes();
  void enqueue(pending p, bool front);
  void kick(notify::channel ch);
  void finished(notify::channel ch, notify::outcome o);
  bool stale(const notify::notice& n) const;
  void going_out(const notify::notice& n);

  net::io_context& ioc_;
  const clock& clock_;
  journal& rooms_;
  notify::contact_book& book_;
  event_store& store_;
  options options_;
  net::steady_timer timer_;
  std::array<lane, 2> lanes_;
  // (room, place) whose turn_notified is being written: the other channel's send writes none.
  std::set<std::pair<std::string, std::uint64_t>> telling_;
  bool stopped_ = false;
  bool write_failed_ = false;  // said once until a write succeeds again
};

}  // namespace foyer::delivery
