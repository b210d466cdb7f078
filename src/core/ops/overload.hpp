#pragma once
// The degradation ladder and readiness: when the event loop or the storage falls behind,
// Foyer sheds the cheapest work first, one level at a time, and says so.
//
//   0 normal
//   1 slow_polls      every poll is told to come back `poll_stretch` times later
//   2 shed_far_polls  polls of visitors more than `far_seconds` from the front get 503
//                     with Retry-After (they lose nothing by skipping a poll)
//   3 refuse_joins    joins and challenges get 503 with Retry-After before any work;
//                     /readyz says not ready, so a load balancer sends newcomers elsewhere
//
// At every level the frontier, admitted visitors' passes and the admin API answer as
// always, and admission is untouched: the ladder only ever turns work away.
//
// A level is climbed when a reading stays hot (loop lag or commit latency above its
// threshold) for `rise_after_ms`, and left when readings stay calm (both below half their
// thresholds) for `fall_after_ms`; readings in between hold the level. Pure: the caller
// feeds readings with the time they were taken. Call on the event loop only.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace foyer::ops {

struct overload_settings {
  std::int64_t loop_lag_ms = 100;     // Default: 100 ms late timers are hot
  std::int64_t commit_ms = 500;       // Default: a synced write taking (or pending) 500 ms is hot
  std::int64_t rise_after_ms = 3'000;   // Default: 3 s hot climbs one level
  std::int64_t fall_after_ms = 15'000;  // Default: 15 s calm descends one level
  std::uint32_t poll_stretch = 3;     // Default: polls come back 3 times later from level 1
  std::uint64_t far_seconds = 300;    // Default: from level 2, polls more than 5 minutes out are shed
  std::int64_t ready_write_ms = 5'000;  // Default: not ready when no write succeeded for 5 s
};

enum class overload_level : std::uint8_t { normal, slow_polls, shed_far_polls, refuse_joins };
inline constexpr std::size_t overload_levels = 4;

// "normal", "slow_polls", ...
std::string_view to_string(overload_level l);

class overload_ladder {
 public:
  explicit overload_ladder(overload_settings s) : settings_(s) {}

  // One reading: the worst loop lag and commit latency seen since the last one. True if
  // the level changed.
  bool observe(std::int64_t now_ms, std::int64_t loop_lag_ms, std::int64_t commit_ms);
  overload_level level() const { return level_; }
  const overload_settings& settings() const { return settings_; }

  // Level 3: a join or challenge is refused (and counted) before any work is done on it.
  bool refuses_join();
  // Whether a poll whose visitor waits `eta_seconds` more is shed (level 2, counted);
  // otherwise stretches `poll_after_ms` from level 1 (counted).
  bool sheds_poll(const std::optional<std::uint64_t>& eta_seconds, std::uint32_t& poll_after_ms);
  // Requests refused or slowed at each level (index 0 stays 0).
  const std::array<std::uint64_t, overload_levels>& shed() const { return shed_; }

  // A synced write succeeded at `now_ms`.
  void write_succeeded(std::int64_t now_ms) { last_write_ms_ = now_ms; }
  const std::optional<std::int64_t>& last_write_ms() const { return last_write_ms_; }
  // Why the server is not ready (a code, e.g. "storage_stalled"), or empty when it is.
  std::string_view not_ready(std::int64_t now_ms) const;

 private:
  enum class streak { none, hot, calm };

  overload_settings settings_;
  overload_level level_ = overload_level::normal;
  streak streak_ = streak::none;
  std::int64_t streak_since_ms_ = 0;  // when the current streak began, or the last step in it
  std::optional<std::int64_t> last_write_ms_;
  std::array<std::uint64_t, overload_levels> shed_{};
};

}  // namespace foyer::ops
