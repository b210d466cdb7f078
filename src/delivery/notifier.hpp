#pragma once
// Sends the "your turn" notices: about once a second it asks the contact book which are
// due (notify::contact_book::plan) and queues each on its channel's bounded outbox. Each
// channel sends up to `concurrent_sends` notices at once, each ended by its sender's own
// deadline, and serves the services it sends through in turn (notify::service_of: a push
// endpoint's origin; the one relay for email), so that no push service holds more than a
// quarter of the channel's sends: endpoints that hang cost their own service its turns,
// never another's. When services that hang hold every shared send between them, a service
// with nothing in flight may still start one, up to a hard ceiling of twice
// `concurrent_sends` at once: a fresh notice to a working service never waits for them. A failed send is retried with back-off a bounded number of times; once
// its wait is over it joins the back of its service's queue, behind the fresh notices.
// Nothing here is on the visitor's path: a poll or a join never waits for it, and a push
// service or relay that hangs or refuses costs the queue its oldest notices (counted
// dropped), never the visitors' time.
//
// Each pass also writes what the book changed (the contacts of visitors told their turn,
// forgotten or of rooms that ended are deleted; "soon sent" is kept) in one write to the
// store, waited for by nobody; a failed one is tried again with the next pass.
//
// Told means accepted: an "it's your turn" that the push service or relay accepts, on
// either channel first, writes a turn_notified event at that moment, and the visitor's
// claim window runs from it (durable first: the event is written, then applied). One
// never accepted (refused, gone, or failed on every attempt) writes none: the contact
// book counts it refused, and the visitor's window runs from their admission. One that can
// no longer help (the visitor claimed, or lapsed while it waited in the queue) is not
// sent: `stale`.
//
// Single-threaded: every member runs on the event loop.

#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
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
    std::size_t concurrent_sends = 32;       // Default: 32 sends at once per channel, a quarter per push service
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
  // foyer_notifications_total{channel,outcome}, foyer_notification_confirmations_total{outcome},
  // foyer_notified_no_shows_total,
  // foyer_notification_contacts (visitors whose contacts are held) and
  // foyer_notification_queue{channel}.
  void collect(ops::metrics_writer& w) const;

 private:
  struct pending {
    notify::notice n;
    unsigned attempts = 0;
  };
  // The notices of one service, in order, and its sends under way.
  struct service {
    std::deque<pending> queue;
    std::size_t sending = 0;
  };
  using steady = std::chrono::steady_clock;
  struct lane {
    send_function send;
    std::map<std::string, service, std::less<>> services;  // kept while they hold or send a notice
    std::string last;          // the service whose notice went last: the next turn is the following one's
    std::size_t waiting = 0;   // notices in the services' queues
    std::size_t sending = 0;
    // Failed notices waiting out their back-off, by when they may go again.
    std::multimap<steady::time_point, pending> retries;
  };

  void schedule();
  void plan();
  void write_changes();
  void enqueue(pending p);
  void make_room(notify::channel ch);
  void retry_due(notify::channel ch);
  void kick(notify::channel ch);
  // The next notice to send on `ch`, taking the services in turn (with `idle_only`, only
  // those with no send in flight), or nullopt.
  std::optional<pending> next(notify::channel ch, bool idle_only);
  void send(notify::channel ch, pending p);
  void finished(notify::channel ch, pending p, notify::outcome o);
  void given_up(notify::channel ch, const pending& p, notify::outcome o);
  bool stale(const notify::notice& n) const;
  void accepted(const notify::notice& n);

  net::io_context& ioc_;
  const clock& clock_;
  journal& rooms_;
  notify::contact_book& book_;
  event_store& store_;
  options options_;
  net::steady_timer timer_;
  std::array<lane, 2> lanes_;
  // (room, place) whose turn_notified is being written: the other channel's acceptance writes none.
  std::set<std::pair<std::string, std::uint64_t>> telling_;
  bool stopped_ = false;
  bool write_failed_ = false;  // said once until a write succeeds again
};

}  // namespace foyer::delivery
