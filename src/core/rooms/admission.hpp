#pragma once
// The admission ticker's arithmetic. Rates are per minute; the carry keeps the
// fraction of a visitor not yet admitted, in 1/60000ths, so that over any run
// admitted == floor(rate × elapsed) exactly, however the ticks fall.

#include <algorithm>
#include <cstdint>

namespace foyer {

// A stalled loop or a restart must not release a burst: at most this much time is
// admitted in one step.
inline constexpr std::int64_t max_admission_elapsed_ms = 15'000;
inline constexpr std::uint64_t carry_units_per_visitor = 60'000;  // ms per minute

struct admission_step {
  std::uint64_t admit = 0;
  std::int64_t tick_ms = 0;
  std::uint64_t carry = 0;
};

inline admission_step admission_due(std::uint32_t rate_per_minute, std::int64_t last_tick_ms,
                                    std::uint64_t carry, std::int64_t now_ms) {
  // A clock that steps backwards admits nothing and never moves the tick back.
  std::int64_t elapsed = std::clamp<std::int64_t>(now_ms - last_tick_ms, 0, max_admission_elapsed_ms);
  std::uint64_t units = carry + std::uint64_t{rate_per_minute} * static_cast<std::uint64_t>(elapsed);
  return {units / carry_units_per_visitor, std::max(now_ms, last_tick_ms),
          units % carry_units_per_visitor};
}

}  // namespace foyer
