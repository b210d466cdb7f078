#include "app/ticker.hpp"

#include <fmt/core.h>

namespace foyer::app {

ticker::ticker(boost::asio::io_context& ioc, journal& rooms, const clock& clock, std::chrono::milliseconds period)
    : timer_(ioc), rooms_(rooms), clock_(clock), period_(period) {}

void ticker::start() {
  timer_.expires_after(period_);
  schedule();
}

void ticker::stop() {
  stopped_ = true;
  timer_.cancel();
}

void ticker::schedule() {
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    step();
    // From the previous expiry, not from now, so the ticker does not drift.
    timer_.expires_at(timer_.expiry() + period_);
    schedule();
  });
}

void ticker::step() {
  std::int64_t now = clock_.now_ms();
  for (const auto& [id, r] : rooms_.rooms()) {
    if (in_flight_.contains(id) || !rooms_.find(id)) continue;
    auto due = r.due(now);
    if (!due) continue;
    in_flight_.insert(id);
    rooms_.submit(std::move(*due), [this, id = id](std::error_code ec, const join_outcome&) {
      in_flight_.erase(id);
      // Not durable, not applied: the next step recomputes from the last durable tick.
      if (ec) fmt::print(stderr, "foyer: room '{}': admission step not durable: {}\n", id, ec.message());
    });
  }
}

}  // namespace foyer::app
