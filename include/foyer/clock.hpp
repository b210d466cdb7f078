#pragma once
// The clock seam. Domain code takes `now` as an argument; whoever calls it reads
// one of these, so that tests drive time exactly.
//
// now_ms() is wall-clock time in unix milliseconds: it leaves the process (pass
// `iat`/`exp`, receipts, the frontier's `at`) and is persisted by the ticker so
// that a restart continues where the log left off. Call on the event loop thread.

#include <chrono>
#include <cstdint>

namespace foyer {

class clock {
 public:
  virtual ~clock() = default;
  virtual std::int64_t now_ms() const = 0;
};

class system_clock final : public clock {
 public:
  std::int64_t now_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that moves only when told to.
class manual_clock final : public clock {
 public:
  explicit manual_clock(std::int64_t start_ms) : now_ms_(start_ms) {}
  std::int64_t now_ms() const override { return now_ms_; }
  void advance_ms(std::int64_t ms) { now_ms_ += ms; }
  void set_ms(std::int64_t ms) { now_ms_ = ms; }

 private:
  std::int64_t now_ms_;
};

}  // namespace foyer
