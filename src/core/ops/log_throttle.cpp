#include "core/ops/log_throttle.hpp"

namespace foyer::ops {

std::optional<std::uint64_t> log_throttle::occur(std::string_view key, std::int64_t now_ms) {
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    if (keys_.size() >= max_keys) return std::nullopt;
    keys_.emplace(std::string(key), state{now_ms});
    return 0;
  }
  auto& s = it->second;
  if (now_ms - s.written_ms < interval_ms_) {
    ++s.held;
    return std::nullopt;
  }
  auto held = s.held;
  s = state{now_ms};
  return held;
}

}  // namespace foyer::ops
