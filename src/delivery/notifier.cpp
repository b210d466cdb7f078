#include "delivery/notifier.hpp"

#include <algorithm>
#include <memory>

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
    : ioc_(ioc), clock_(clock), rooms_(rooms), book_(book), store_(store), options_(o), timer_(ioc) {}

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
    l.services.clear();
    l.retries.clear();
    l.waiting = 0;
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
  for (auto& n : book_.plan(rooms_, clock_.steady_ms(), options_.soon_seconds)) enqueue({std::move(n), 0});
  write_changes();
  for (auto ch : channels) {
    // After the fresh notices: a retry waits behind them.
    retry_due(ch);
    kick(ch);
  }
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

void notifier::enqueue(pending p) {
  auto ch = notify::channel_of(p.n.to);
  auto& l = lanes_[index(ch)];
  if (l.waiting + l.retries.size() >= options_.queue_capacity) make_room(ch);
  l.services[notify::service_of(p.n.to)].queue.push_back(std::move(p));
  ++l.waiting;
}

void notifier::make_room(notify::channel ch) {
  // Full: a retry goes first (it failed before), else the oldest notice of the service
  // holding the most, counted, as in the event sinks' outbox.
  auto& l = lanes_[index(ch)];
  if (!l.retries.empty()) {
    given_up(ch, l.retries.begin()->second, notify::outcome::dropped);
    l.retries.erase(l.retries.begin());
    return;
  }
  auto longest = std::max_element(l.services.begin(), l.services.end(), [](const auto& a, const auto& b) {
    return a.second.queue.size() < b.second.queue.size();
  });
  if (longest == l.services.end() || longest->second.queue.empty()) return;
  given_up(ch, longest->second.queue.front(), notify::outcome::dropped);
  longest->second.queue.pop_front();
  --l.waiting;
}

void notifier::retry_due(notify::channel ch) {
  auto& l = lanes_[index(ch)];
  auto now = steady::now();
  while (!l.retries.empty() && l.retries.begin()->first <= now) {
    auto p = std::move(l.retries.begin()->second);
    l.retries.erase(l.retries.begin());
    l.services[notify::service_of(p.n.to)].queue.push_back(std::move(p));
    ++l.waiting;
  }
}

void notifier::kick(notify::channel ch) {
  auto& l = lanes_[index(ch)];
  if (stopped_ || !l.send) return;
  while (l.sending < options_.concurrent_sends) {
    auto p = next(ch, /*idle_only=*/false);
    if (!p) return;
    send(ch, std::move(*p));
  }
  // The shared sends are all taken (services that hang can take them all between them): a
  // service with nothing in flight still starts one, up to twice concurrent_sends in all,
  // so a fresh notice to a working service goes at once, not after a send's deadline.
  while (l.sending < 2 * options_.concurrent_sends) {
    auto p = next(ch, /*idle_only=*/true);
    if (!p) return;
    send(ch, std::move(*p));
  }
}

std::optional<notifier::pending> notifier::next(notify::channel ch, bool idle_only) {
  auto& l = lanes_[index(ch)];
  // A push service takes at most a quarter of the sends; the relay, all of them.
  auto share = std::max<std::size_t>(1, options_.concurrent_sends / 4);
  // Services that can't take a turn are those sending their share (at most 4 of them) or
  // sending at all (with `idle_only`) or with nothing queued (at most twice
  // concurrent_sends): the search is bounded by those.
  auto it = l.services.upper_bound(l.last);
  for (auto looked = l.services.size(); looked > 0; --looked) {
    if (it == l.services.end()) it = l.services.begin();
    auto& s = it->second;
    while (!s.queue.empty() && stale(s.queue.front().n)) {
      book_.record(s.queue.front().n.room, ch, s.queue.front().n.kind, notify::outcome::stale);
      s.queue.pop_front();
      --l.waiting;
    }
    if (s.queue.empty() && s.sending == 0) {
      it = l.services.erase(it);
      continue;
    }
    if (s.queue.empty() || (idle_only && s.sending > 0) || (!it->first.empty() && s.sending >= share)) {
      ++it;
      continue;
    }
    auto p = std::move(s.queue.front());
    s.queue.pop_front();
    --l.waiting;
    l.last = it->first;
    return p;
  }
  return std::nullopt;
}

void notifier::send(notify::channel ch, pending p) {
  auto& l = lanes_[index(ch)];
  ++l.sending;
  ++l.services[notify::service_of(p.n.to)].sending;
  // The notice lives until its send completes.
  auto flight = std::make_shared<pending>(std::move(p));
  net::co_spawn(ioc_, l.send(flight->n), [this, ch, flight](std::exception_ptr failure, notify::outcome o) {
    if (failure) fmt::print(stderr, "foyer: notifications: a {} send failed unexpectedly\n", notify::to_string(ch));
    finished(ch, std::move(*flight), failure ? notify::outcome::failed : o);
  });
}

void notifier::finished(notify::channel ch, pending p, notify::outcome o) {
  if (stopped_) return;
  auto& l = lanes_[index(ch)];
  --l.sending;
  auto s = l.services.find(notify::service_of(p.n.to));
  if (--s->second.sending == 0 && s->second.queue.empty()) l.services.erase(s);
  book_.record(p.n.room, ch, p.n.kind, o);
  if (o == notify::outcome::gone) book_.forget(p.n.room, p.n.visitor, ch);
  if (o == notify::outcome::delivered) accepted(p.n);
  if (o == notify::outcome::failed && ++p.attempts < options_.max_attempts) {
    // Waits out a back-off that grows with each failure of this notice, then queues again.
    auto wait = retry_delay(p.attempts - 1, options_.retry_base, options_.retry_max, random_u64());
    if (l.waiting + l.retries.size() >= options_.queue_capacity) make_room(ch);
    l.retries.emplace(steady::now() + wait, std::move(p));
  } else if (o == notify::outcome::failed) {
    given_up(ch, p, notify::outcome::dropped);
  } else if (o != notify::outcome::delivered) {
    given_up(ch, p, o);
  }
  kick(ch);
}

void notifier::given_up(notify::channel ch, const pending& p, notify::outcome o) {
  // gone and refused are counted as the send's answer already.
  if (o == notify::outcome::dropped) book_.record(p.n.room, ch, p.n.kind, o);
  if (p.n.kind != notify::notice_kind::turn) return;
  const room* r = rooms_.find(p.n.room);
  if (r && r->told(p.n.place)) return;
  fmt::print(stderr,
             "foyer: notifications: room '{}': an \"it's your turn\" by {} was not accepted ({}, {} attempts); "
             "place {} is not counted as told\n",
             p.n.room, notify::to_string(ch), notify::to_string(o), p.attempts, p.n.place);
}

bool notifier::stale(const notify::notice& n) const {
  if (n.kind != notify::notice_kind::turn) return false;
  const room* r = rooms_.find(n.room);
  return r == nullptr || !r->claimable(n.place, clock_.steady_ms());
}

void notifier::accepted(const notify::notice& n) {
  if (n.kind != notify::notice_kind::turn || telling_.contains({n.room, n.place})) return;
  const room* r = rooms_.find(n.room);
  auto told = r ? r->turn_notice(n.place, clock_.steady_ms()) : std::nullopt;
  if (!told) return;
  telling_.emplace(n.room, n.place);
  rooms_.submit(std::move(*told), [this, room = n.room, place = n.place](std::error_code ec, const join_outcome&) {
    telling_.erase({room, place});
    // Not durable: the window runs from the admission, as for a visitor nobody told.
    if (ec) {
      fmt::print(stderr, "foyer: notifications: room '{}': a turn notice not recorded: {}\n", room, ec.message());
      return;
    }
    book_.told(room, place);
  });
}

std::size_t notifier::queued(notify::channel ch) const {
  const auto& l = lanes_[index(ch)];
  return l.waiting + l.retries.size();
}

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
  w.family("foyer_notification_confirmations_total", "counter",
           "Confirmation mails ([notifications] confirm) by what became of each attempt; not notices.");
  for (std::size_t o = 0; o < notify::outcome_count; ++o) {
    w.sample("foyer_notification_confirmations_total", {{"outcome", notify::to_string(static_cast<notify::outcome>(o))}},
             book_.confirmation_outcomes()[o]);
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
