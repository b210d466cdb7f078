#include "core/rooms/rate_control.hpp"

#include <algorithm>
#include <cmath>

namespace foyer {
namespace {

// Without adaptive settings, the compensation for no-shows is revised this often.
constexpr std::int64_t compensation_every_ms = 10'000;

std::uint32_t increase_of(const adaptive_settings& a) {
  if (a.increase_per_minute > 0) return a.increase_per_minute;
  return std::max<std::uint32_t>(1, (a.max_rate_per_minute - a.min_rate_per_minute) / 10);
}

std::uint32_t decreased(const adaptive_settings& a, std::uint32_t current) {
  auto cut = static_cast<std::uint32_t>(std::floor(current * a.decrease_factor));
  return std::max(cut, a.min_rate_per_minute);
}

}  // namespace

bool breaches(const adaptive_settings& a, const site_signal& s) {
  return (s.p95_ms && *s.p95_ms > a.target_p95_ms) || (s.error_rate && *s.error_rate > a.max_error_rate);
}

rate_step aimd_step(const adaptive_settings& a, std::uint32_t current, const std::optional<site_signal>& latest,
                    std::int64_t now_ms) {
  current = std::clamp(current, a.min_rate_per_minute, a.max_rate_per_minute);
  bool fresh = latest && now_ms - latest->at_ms <= std::int64_t{a.signal_timeout_seconds} * 1000;
  if (!fresh) return {decreased(a, current), rate_reason::adaptive_no_signal};
  if (breaches(a, *latest)) return {decreased(a, current), rate_reason::adaptive_decrease};
  auto raised = std::min<std::uint64_t>(std::uint64_t{current} + increase_of(a), a.max_rate_per_minute);
  return {static_cast<std::uint32_t>(raised), rate_reason::adaptive_increase};
}

std::uint32_t compensated_rate(std::uint32_t base, std::optional<double> claim_ratio, double max_multiplier) {
  if (max_multiplier <= 1.0 || !claim_ratio) return base;
  double multiplier = *claim_ratio > 0 ? std::min(1.0 / *claim_ratio, max_multiplier) : max_multiplier;
  double rate = std::floor(base * std::max(multiplier, 1.0));
  return static_cast<std::uint32_t>(std::min(rate, double{UINT32_MAX}));
}

void rate_controller::report(std::string_view room, const site_signal& s) {
  auto& r = rooms_[std::string(room)];
  site_signal merged = r.latest.value_or(site_signal{});
  if (s.p95_ms) merged.p95_ms = s.p95_ms;
  if (s.error_rate) merged.error_rate = s.error_rate;
  merged.at_ms = s.at_ms;
  r.latest = merged;
  r.unread = true;
}

std::optional<rate_changed> rate_controller::decide(const room& rm, std::int64_t now_ms) {
  if (rm.state() != room_state::open) return std::nullopt;
  const auto& c = rm.config();
  auto& signals = rooms_[c.id];
  std::int64_t every = c.adaptive ? std::int64_t{c.adaptive->adjust_every_seconds} * 1000 : compensation_every_ms;
  if (!signals.last_step_ms) signals.last_step_ms = now_ms;
  bool period_over = now_ms - *signals.last_step_ms >= every;
  bool breach_now = c.adaptive && signals.unread && breaches(*c.adaptive, *signals.latest);
  signals.unread = false;
  if (!period_over && !breach_now) return std::nullopt;
  signals.last_step_ms = now_ms;

  rate_step base{rm.base_rate(), rate_reason::configured};
  if (c.adaptive) base = aimd_step(*c.adaptive, rm.base_rate(), signals.latest, now_ms);
  auto rate = compensated_rate(base.rate, rm.claim_ratio(), c.no_show_max_multiplier);
  if (base.rate == rm.base_rate() && rate == rm.rate()) return std::nullopt;
  auto reason = base.rate != rm.base_rate() ? base.reason : rate_reason::no_show_compensation;
  return rate_changed{c.id, base.rate, rate, reason, now_ms};
}

}  // namespace foyer
