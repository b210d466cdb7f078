#include "app/ticker.hpp"

#include <fmt/core.h>

namespace foyer::app {

ticker::ticker(boost::asio::io_context& ioc, journal& rooms, rate_controller& rates, const clock& clock)
    : timer_(ioc), rooms_(rooms), rates_(rates), clock_(clock) {}

void ticker::start(std::function<void()> caught_up) {
  step(std::move(caught_up));
  timer_.expires_after(period);
  schedule();
}

void ticker::stop() {
  stopped_ = true;
  timer_.cancel();
}

void ticker::schedule() {
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    step(nullptr);
    // From the previous expiry, not from now, so the ticker does not drift.
    timer_.expires_at(timer_.expiry() + period);
    schedule();
  });
}

void ticker::step(std::function<void()> done) {
  // `done` runs once every room's step of this round is durable (or failed).
  auto waiting = std::make_shared<std::size_t>(1);
  auto finished = [waiting, done = std::move(done)] {
    if (--*waiting == 0 && done) done();
  };
  std::int64_t now = clock_.steady_ms();
  failures_.flush(now);
  for (const auto& [id, r] : rooms_.rooms()) {
    // A change of settings in flight writes the frontier at its moment, at the old rate.
    if (in_flight_.contains(id) || rooms_.configuring(id)) continue;
    if (r.seats().frozen() && frozen_said_.insert(id).second) {
      log::error(fmt::format("room '{}': SEAT LEDGER FROZEN: confirmed + held + available != total; every hold is refused", id),
                 {{"room", id}});
    }
    // Holds whose time passed, in the same write as the room's step: every step expires
    // them, the first after a restart before anyone is answered.
    std::vector<event> due;
    if (auto expired = r.expired_holds(now)) due.push_back(std::move(*expired));
    // A new rate first: it is written with the frontier at its moment, at the old rate.
    std::optional<event> next = rates_.decide(r, now);
    if (!next) next = r.due(now);
    if (next) due.push_back(std::move(*next));
    if (due.empty()) continue;
    in_flight_.insert(id);
    ++*waiting;
    rooms_.submit(std::move(due), [this, id = id, finished](std::error_code ec, const join_outcome&) {
      in_flight_.erase(id);
      // Not durable, not applied: the next step recomputes from the last durable tick.
      if (ec) {
        failures_.error(id, clock_.steady_ms(), fmt::format("room '{}': admission step not durable: {}", id, ec.message()),
                        {{"room", id}, {"error", ec.message()}});
      }
      finished();
    });
  }
  finished();
}

}  // namespace foyer::app
