#include "core/ops/free_space.hpp"

namespace foyer::ops {

bool free_space_watch::must_look(std::int64_t now_ms) const {
  if (!looked_ms_ || !free_ || now_ms - *looked_ms_ >= limits_.interval_ms) return true;
  // Far from full means far even after what has been written since.
  return *free_ < reserve_ + limits_.far_bytes + written_;
}

void free_space_watch::looked(std::int64_t now_ms, std::optional<std::uint64_t> free_bytes,
                              std::uint64_t reserve_bytes) {
  looked_ms_ = now_ms;
  free_ = free_bytes;
  reserve_ = reserve_bytes;
  written_ = 0;
}

bool free_space_watch::has_room() const { return !free_ || *free_ > reserve_ + written_; }

}  // namespace foyer::ops
