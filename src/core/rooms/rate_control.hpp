#pragma once
// The rate a room admits at, decided by the ticker and made durable as rate_changed.
// Composed in this order:
//   1. the base rate: the configured one, or with [rooms.adaptive] an AIMD controller's
//      between the bounds, from the latest signals the site reported;
//   2. × the no-show compensation: 1 / the measured claim ratio, at most
//      no_show_max_multiplier, so that claimed admissions per minute meet the base rate;
//   3. then room::served bounds the frontier by max_active (passes live) and the joined.
// Signals are not durable: after a restart the controller waits for new ones.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/rooms/room.hpp"

namespace foyer {

struct site_signal {
  std::optional<double> p95_ms;
  std::optional<double> error_rate;
  std::int64_t at_ms = 0;
};

// One AIMD step from `current`: additive increase while the latest signal is fresh and
// healthy, multiplicative decrease on a breach, and decay toward the minimum while the
// site is silent (a site that stops reporting is most often one that is failing).
struct rate_step {
  std::uint32_t rate = 0;
  rate_reason reason = rate_reason::configured;
};
rate_step aimd_step(const adaptive_settings& a, std::uint32_t current, const std::optional<site_signal>& latest,
                    std::int64_t now_ms);
bool breaches(const adaptive_settings& a, const site_signal& s);

// The admitted rate for a base rate and a measured claim ratio.
std::uint32_t compensated_rate(std::uint32_t base, std::optional<double> claim_ratio, double max_multiplier);

class rate_controller {
 public:
  // The site's latest signal for the room; fields it left out keep their last value.
  void report(std::string_view room, const site_signal& s);
  // The rate change to make durable now, if any.
  std::optional<rate_changed> decide(const room& r, std::int64_t now_ms);
  void forget(std::string_view room) { rooms_.erase(std::string(room)); }

 private:
  struct room_signals {
    std::optional<site_signal> latest;
    bool unread = false;  // a new signal that breaches backs off at the next tick
    std::optional<std::int64_t> last_step_ms;
  };
  std::map<std::string, room_signals, std::less<>> rooms_;
};

}  // namespace foyer
