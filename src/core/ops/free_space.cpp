#include "core/ops/free_space.hpp"

namespace foyer::ops {

bool free_space_watch::must_look(std::int64_t now_ms) const {
  if (!looked_ms_ || !space_ || now_ms - *looked_ms_ >= limits_.interval_ms) return true;
  // Far from full means far even after what has been written since.
  return space_->free_bytes < space_->reserve_bytes + limits_.far_bytes + written_;
}

void free_space_watch::looked(std::int64_t now_ms, std::optional<device_space> found) {
  looked_ms_ = now_ms;
  space_ = found;
  written_ = 0;
}

bool free_space_watch::has_room() const {
  return !space_ || space_->free_bytes > space_->reserve_bytes + written_;
}

}  // namespace foyer::ops
