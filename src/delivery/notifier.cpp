#include "delivery/notifier.hpp"

#include <boost/asio/co_spawn.hpp>
#include <fmt/core.h>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/ops/outbox.hpp"

namespace foyer::delivery {
namespace {

std::size_t index(notify::channel ch) { return static_cast<std::size_t>(ch); }

constexpr std::array channels{notify::channel::push, notify::channel::email};

}  // namespace

notifier::notifier(net::io_context& ioc, const clock& clock, journal& rooms, notify::contact_book& book,
                   event_store& store, options o)
    : ioc_(ioc),
      clock_(clock),
      rooms_(rooms),
      book_(book),
      store_(store),
      options_(o),
      timer_(ioc),
      lanes_{lane(ioc), lane(ioc)} {}

void notifier::set_sender(notify::channel ch, send_function send) { lanes_[index(ch)].send = std::move(send); }

void notifier::start() {
  timer_.expires_after(options_.period);
  schedule();
}

void notifier::stop() {
  // A contact forgotten since the last pass is not restored at the next start.
  if (!stopped_) write_changes();
  stopped_ = true;
  timer_.cancel();
  for (auto& l : lanes_) {
    l.retry.cancel();
    l.queue.clear();
  }
}

void notifier::schedule() {
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    plan();
    // From the previous expiry, not from now: the period does not drift.
    timer_.expires_at(timer_.expiry() + options_.period);
    schedule();
  });
}

void notifier::plan() {
  for (auto& n : book_.plan(rooms_, clock_.steady_ms(), options_.soon_seconds)) enqueue({std::move(n), 0}, false);
  write_changes();
  for (auto ch : channels) kick(ch);
}

void notifier::write_changes() {
  auto changes = book_.take_changes();
  if (changes.empty()) return;
  // The keys alone are kept: a change written again is written as the book is then.
  std::vector<record_change> keys;
  keys.reserve(changes.size());
  for (const auto& c : changes) keys.push_back({c.key, std::nullopt});
  store_.write_contacts(std::move(changes), [this, keys = std::move(keys)](std::error_code ec) {
    if (!ec) {
      write_failed_ = false;
      return;
    }
    book_.unwritten(keys);
    if (std::exchange(write_failed_, true)) return;
    fmt::print(stderr, "foyer: notifications: the contacts' changes could not be written ({}); trying again\n",
               ec.message());
  });
}

void notifier::enqueue(pending p, bool front) {
  auto ch = notify::channel_of(p.n.to);
  auto& l = lanes_[index(ch)];
  if (l.queue.size() >= options_.queue_capacity) {
    // Full: the oldest news goes, counted, as in the event sinks' outbox.
    auto& dropped = front ? p : l.queue.front();
    book_.record(dropped.n.room, ch, notify::outcome::dropped);
    if (front) return;
    l.queue.pop_front();
  }
  if (front) {
    l.queue.push_front(std::move(p));
  } else {
    l.queue.push_back(std::move(p));
  }
}

void notifier::kick(notify::channel ch) {
  auto& l = lanes_[index(ch)];
  if (l.busy || stopped_ || !l.send) return;
  while (!l.queue.empty() && stale(l.queue.front().n)) {
    book_.record(l.queue.front().n.room, ch, notify::outcome::stale);
    l.queue.pop_front();
  }
  if (l.queue.empty()) return;
  l.busy = true;
  l.sending = std::move(l.queue.front());
  l.queue.pop_front();
  going_out(l.sending->n);
  net::co_spawn(ioc_, l.send(l.sending->n), [this, ch](std::exception_ptr failure, notify::outcome o) {
    if (failure) fmt::print(stderr, "foyer: notifications: a {} send failed unexpectedly\n", notify::to_string(ch));
    finished(ch, failure ? notify::outcome::failed : o);
  });
}

void notifier::finished(notify::channel ch, notify::outcome o) {
  if (stopped_) return;
  auto& l = lanes_[index(ch)];
  auto p = std::move(*l.sending);
  l.sending.reset();
  book_.record(p.n.room, ch, o);
  if (o == notify::outcome::gone) book_.forget(p.n.room, p.n.visitor, ch);
  if (o != notify::outcome::failed) {
    l.busy = false;
    kick(ch);
    return;
  }
  if (++p.attempts >= options_.max_attempts) {
    book_.record(p.n.room, ch, notify::outcome::dropped);
    l.busy = false;
    kick(ch);
    return;
  }
  // Back in front, in order, after a wait that grows with each failure of this notice.
  l.retry.expires_after(retry_delay(p.attempts - 1, options_.retry_base, options_.retry_max, random_u64()));
  enqueue(std::move(p), true);
  l.retry.async_wait([this, ch](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    lanes_[index(ch)].busy = false;
    kick(ch);
  });
}

bool notifier::stale(const notify::notice& n) const {
  if (n.kind != notify::notice_kind::turn) return false;
  const room* r = rooms_.find(n.room);
  return r == nullptr || !r->claimable(n.place, clock_.steady_ms());
}

void notifier::going_out(const notify::notice& n) {
  if (n.kind != notify::notice_kind::turn || telling_.contains({n.room, n.place})) return;
  const room* r = rooms_.find(n.room);
  auto told = r ? r->turn_notice(n.place, clock_.steady_ms()) : std::nullopt;
  if (!told) return;
  telling_.emplace(n.room, n.place);
  rooms_.submit(std::move(*told), [this, room = n.room, place = n.place](std::error_code ec, const join_outcome&) {
    telling_.erase({room, place});
    // Not durable: the window runs from the admission, as for a visitor nobody told.
    if (ec) fmt::print(stderr, "foyer: notifications: room '{}': a turn notice not recorded: {}\n", room, ec.message());
  });
}

std::size_t notifier::queued(notify::channel ch) const { return lanes_[index(ch)].queue.size(); }

void notifier::collect(ops::metrics_writer& w) const {
  const auto& outcomes = book_.outcomes();
  w.family("foyer_notifications_total", "counter", "Notices by channel and what became of each attempt.");
  for (auto ch : channels) {
    for (std::size_t o = 0; o < notify::outcome_count; ++o) {
      w.sample("foyer_notifications_total",
               {{"channel", notify::to_string(ch)}, {"outcome", notify::to_string(static_cast<notify::outcome>(o))}},
               outcomes[index(ch)][o]);
    }
  }
  w.family("foyer_notified_no_shows_total", "counter",
           "Visitors told it was their turn who never claimed their pass in time.");
  w.sample("foyer_notified_no_shows_total", {}, book_.notified_no_shows());
  w.family("foyer_notification_contacts", "gauge", "Visitors whose contacts are held for a notice to come.");
  w.sample("foyer_notification_contacts", {}, std::uint64_t{book_.size()});
  w.family("foyer_notification_plan_visitors", "gauge",
           "Visitors the last search for due notices looked at: those admitted or near their turn.");
  w.sample("foyer_notification_plan_visitors", {}, std::uint64_t{book_.looked_at()});
  w.family("foyer_notification_queue", "gauge", "Notices waiting to be sent, by channel.");
  for (auto ch : channels) w.sample("foyer_notification_queue", {{"channel", notify::to_string(ch)}}, std::uint64_t{queued(ch)});
}

}  // namespace foyer::delivery
