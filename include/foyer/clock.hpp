#pragma once
// The clock seam. Domain code takes `now` as an argument; whoever calls it reads
// one of these, so that tests drive time exactly. Call on the event loop thread.
//
// Two times, both in unix milliseconds:
// - now_ms(), the wall clock: only for what leaves the process (pass `iat`/`exp`,
//   the frontier's `at`, cookies).
// - steady_ms(), the rooms' clock: the wall clock at start (or the latest time in the
//   log, if that is later), then monotonic. Admission ticks, schedules and expiry run
//   on it and the log records it, so a wall clock stepped back by NTP or by hand
//   neither freezes nor reverses admission, before or across a restart.

#include <chrono>
#include <cstdint>

namespace foyer {

class clock {
 public:
  virtual ~clock() = default;
  virtual std::int64_t now_ms() const = 0;
  virtual std::int64_t steady_ms() const = 0;
};

class system_clock final : public clock {
 public:
  using source = std::int64_t (*)();
  static std::int64_t wall_source() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  static std::int64_t steady_source() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // The sources are seams for tests; the defaults are the system's clocks.
  explicit system_clock(source wall = wall_source, source steady = steady_source)
      : wall_(wall), steady_(steady), origin_(wall()), start_(steady()) {}

  std::int64_t now_ms() const override { return wall_(); }
  std::int64_t steady_ms() const override { return origin_ + (steady_() - start_); }

  // After recovery: the rooms' clock continues from the log even if the wall clock
  // went back while the server was down.
  void not_before(std::int64_t ms) {
    if (auto now = steady_ms(); now < ms) origin_ += ms - now;
  }

 private:
  source wall_;
  source steady_;
  std::int64_t origin_;
  std::int64_t start_;
};

// A clock that moves only when told to. advance_ms and set_ms move both times;
// step_wall_ms moves only the wall clock, as a clock set by hand would.
class manual_clock final : public clock {
 public:
  explicit manual_clock(std::int64_t start_ms) : now_ms_(start_ms) {}
  std::int64_t now_ms() const override { return now_ms_; }
  std::int64_t steady_ms() const override { return now_ms_ + steady_offset_; }
  void advance_ms(std::int64_t ms) { now_ms_ += ms; }
  void set_ms(std::int64_t ms) { now_ms_ = ms; }
  void step_wall_ms(std::int64_t ms) {
    now_ms_ += ms;
    steady_offset_ -= ms;
  }

 private:
  std::int64_t now_ms_;
  std::int64_t steady_offset_ = 0;
};

}  // namespace foyer
