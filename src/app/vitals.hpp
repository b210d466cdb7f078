#pragma once
// The server's vital signs, and what follows from them: how late the event loop runs,
// how long the storage takes to commit, the degradation ladder they drive
// (core/ops/overload.hpp) and the readiness /readyz reports. Each change of level is
// logged. Their metrics: foyer_loop_lag_seconds, foyer_storage_commit_duration_seconds,
// foyer_storage_batch_events, foyer_overload_level and foyer_shed_total.
//
// An idle server writes nothing, yet must stay ready, and a stalled storage completes
// nothing, yet must show: so when no write has succeeded for a second, a probe (one side
// record, synced like any write) goes to the store, and while it is pending its age
// counts as the commit latency.
//
// On the event loop only.

#include <chrono>
#include <cstdint>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>
#include <foyer/store.hpp>

#include "core/ops/metrics.hpp"
#include "core/ops/overload.hpp"
#include "store/rocks_store.hpp"

namespace foyer::app {

class vitals {
 public:
  // How often the loop's lag is sampled, and the ladder fed the worst of the samples.
  static constexpr std::chrono::milliseconds sample_period{100};
  static constexpr std::int64_t reading_ms = 1'000;
  // A probe is written when no write succeeded for this long.
  static constexpr std::int64_t probe_after_ms = 1'000;

  vitals(boost::asio::io_context& ioc, const clock& clock, ops::overload_ladder& ladder,
         ops::metrics_registry& metrics);
  // Starts sampling and probing `store`, which must outlive stop().
  void start(event_store& store);
  void stop();
  // A synced write's report (store::options::on_commit).
  void committed(const store::commit_report& report);

 private:
  void schedule();
  void sample();
  void read();
  void collect(ops::metrics_writer& w) const;

  boost::asio::steady_timer timer_;
  const clock& clock_;
  ops::overload_ladder& ladder_;
  event_store* store_ = nullptr;
  bool stopped_ = false;
  ops::histogram commit_seconds_;
  ops::histogram batch_events_;
  // Worst since the last reading, and the last reading's, which the gauge shows.
  std::int64_t worst_lag_ms_ = 0;
  std::int64_t worst_commit_ms_ = 0;
  double lag_seconds_ = 0;
  std::int64_t next_reading_ms_ = 0;
  std::optional<std::int64_t> probe_since_ms_;  // a probe is pending since then
};

}  // namespace foyer::app
