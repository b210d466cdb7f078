#include "core/ops/overload.hpp"

namespace foyer::ops {

std::string_view to_string(overload_level l) {
  switch (l) {
    case overload_level::normal: return "normal";
    case overload_level::slow_polls: return "slow_polls";
    case overload_level::shed_far_polls: return "shed_far_polls";
    case overload_level::refuse_joins: return "refuse_joins";
  }
  return "normal";
}

bool overload_ladder::observe(std::int64_t now_ms, std::int64_t loop_lag_ms, std::int64_t commit_ms) {
  const bool hot = loop_lag_ms > settings_.loop_lag_ms || commit_ms > settings_.commit_ms;
  // Half the thresholds on the way down: a reading that hovers at a threshold holds the
  // level instead of flapping.
  const bool calm = 2 * loop_lag_ms < settings_.loop_lag_ms && 2 * commit_ms < settings_.commit_ms;
  const streak now = hot ? streak::hot : calm ? streak::calm : streak::none;
  if (now != streak_) {
    streak_ = now;
    streak_since_ms_ = now_ms;
    return false;
  }
  const auto top = overload_level::refuse_joins;
  if (streak_ == streak::hot && level_ != top && now_ms - streak_since_ms_ >= settings_.rise_after_ms) {
    level_ = static_cast<overload_level>(static_cast<int>(level_) + 1);
  } else if (streak_ == streak::calm && level_ != overload_level::normal &&
             now_ms - streak_since_ms_ >= settings_.fall_after_ms) {
    level_ = static_cast<overload_level>(static_cast<int>(level_) - 1);
  } else {
    return false;
  }
  // Each further step needs a whole period of its own.
  streak_since_ms_ = now_ms;
  return true;
}

bool overload_ladder::refuses_join() {
  if (level_ < overload_level::refuse_joins) return false;
  ++shed_[static_cast<std::size_t>(overload_level::refuse_joins)];
  return true;
}

bool overload_ladder::sheds_poll(const std::optional<std::uint64_t>& eta_seconds, std::uint32_t& poll_after_ms) {
  if (level_ == overload_level::normal) return false;
  if (level_ >= overload_level::shed_far_polls && eta_seconds && *eta_seconds > settings_.far_seconds) {
    ++shed_[static_cast<std::size_t>(overload_level::shed_far_polls)];
    return true;
  }
  poll_after_ms *= settings_.poll_stretch;
  ++shed_[static_cast<std::size_t>(overload_level::slow_polls)];
  return false;
}

std::string_view overload_ladder::not_ready(std::int64_t now_ms) const {
  // Recovery needs no check: the server listens only once the log is recovered.
  if (!last_write_ms_ || now_ms - *last_write_ms_ > settings_.ready_write_ms) return "storage_stalled";
  if (level_ == overload_level::refuse_joins) return "shedding";
  return {};
}

}  // namespace foyer::ops
