#include "app/vitals.hpp"

#include <algorithm>
#include <string>

#include <fmt/core.h>

#include "app/log.hpp"

namespace foyer::app {
namespace {

constexpr std::string_view probe_key = "vitals/probe";

std::int64_t ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace

vitals::vitals(boost::asio::io_context& ioc, const clock& clock, ops::overload_ladder& ladder,
               ops::metrics_registry& metrics)
    : timer_(ioc),
      clock_(clock),
      ladder_(ladder),
      // From a healthy sync (a fraction of a millisecond) to a stalled device.
      commit_seconds_({0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      batch_events_(ops::exponential_bounds(1, 4, 8)) {
  metrics.add([this](ops::metrics_writer& w) { collect(w); });
}

void vitals::start(event_store& store) {
  store_ = &store;
  next_reading_ms_ = clock_.steady_ms() + reading_ms;
  read();
  timer_.expires_after(sample_period);
  schedule();
}

void vitals::stop() {
  stopped_ = true;
  timer_.cancel();
}

void vitals::schedule() {
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    sample();
    // From now, not from the expiry: after a stall, one late sample says so; a burst of
    // catching-up expiries would only say it again.
    timer_.expires_after(sample_period);
    schedule();
  });
}

void vitals::sample() {
  worst_lag_ms_ = std::max(worst_lag_ms_, ms(std::chrono::steady_clock::now() - timer_.expiry()));
  if (clock_.steady_ms() >= next_reading_ms_) read();
}

void vitals::read() {
  const auto now = clock_.steady_ms();
  next_reading_ms_ = now + reading_ms;
  const auto commit_ms = std::max(worst_commit_ms_, probe_since_ms_ ? now - *probe_since_ms_ : 0);
  const auto before = ladder_.level();
  if (ladder_.observe(now, worst_lag_ms_, commit_ms)) {
    const auto level = ladder_.level();
    auto msg = fmt::format("overload: level {} ({}), was {}: loop lag {} ms, commit latency {} ms",
                           static_cast<int>(level), ops::to_string(level), static_cast<int>(before), worst_lag_ms_,
                           commit_ms);
    (level > before ? log::warn : log::info)(msg, {{"overload_level", static_cast<int>(level)},
                                                   {"loop_lag_ms", worst_lag_ms_},
                                                   {"commit_ms", commit_ms}});
  }
  lag_seconds_ = static_cast<double>(worst_lag_ms_) / 1000;
  worst_lag_ms_ = 0;
  worst_commit_ms_ = 0;

  const auto& last_write = ladder_.last_write_ms();
  if (probe_since_ms_ || (last_write && now - *last_write < probe_after_ms)) return;
  probe_since_ms_ = now;
  std::vector<side_record> probe{{std::string(probe_key), std::to_string(now)}};
  store_->append({}, std::move(probe), [this](std::error_code, std::uint64_t) { probe_since_ms_.reset(); });
}

void vitals::committed(const store::commit_report& report) {
  const auto took = std::chrono::duration<double>(report.took).count();
  commit_seconds_.observe(took);
  batch_events_.observe(static_cast<double>(report.events));
  worst_commit_ms_ = std::max(worst_commit_ms_, ms(report.took));
  if (report.ok) ladder_.write_succeeded(clock_.steady_ms());
}

void vitals::collect(ops::metrics_writer& w) const {
  w.family("foyer_loop_lag_seconds", "gauge", "How late the event loop ran its timers: the worst over the last second.")
      .sample("foyer_loop_lag_seconds", {}, lag_seconds_);
  w.family("foyer_storage_commit_duration_seconds", "histogram", "Time of each synced write (a group commit).")
      .samples("foyer_storage_commit_duration_seconds", {}, commit_seconds_);
  w.family("foyer_storage_batch_events", "histogram", "Events per synced write (probes and snapshots carry none).")
      .samples("foyer_storage_batch_events", {}, batch_events_);
  w.family("foyer_overload_level", "gauge",
           "The degradation ladder's level: 0 normal, 1 slow polls, 2 far polls shed, 3 joins refused.")
      .sample("foyer_overload_level", {}, std::uint64_t{static_cast<std::uint8_t>(ladder_.level())});
  w.family("foyer_shed_total", "counter", "Requests slowed (level 1) or refused (levels 2 and 3) by the ladder.");
  for (std::size_t level = 1; level < ops::overload_levels; ++level) {
    auto label = std::to_string(level);
    w.sample("foyer_shed_total", {{"level", label}}, ladder_.shed()[level]);
  }
}

}  // namespace foyer::app
