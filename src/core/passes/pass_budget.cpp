#include "core/passes/pass_budget.hpp"

#include <algorithm>
#include <cmath>

namespace foyer::pass {

pass_budget::pass_budget(std::uint32_t per_minute, std::size_t max_passes)
    : per_ms_(per_minute / 60'000.0), capacity_(per_minute), max_passes_(std::max<std::size_t>(max_passes, 1)) {}

std::optional<std::int64_t> pass_budget::spend(const id16& pass, std::int64_t now_ms) {
  if (capacity_ == 0) return std::nullopt;
  auto it = buckets_.find(pass);
  if (it == buckets_.end()) {
    if (buckets_.size() == max_passes_) {
      buckets_.erase(recent_.back());
      recent_.pop_back();
    }
    recent_.push_front(pass);
    it = buckets_.emplace(pass, bucket{capacity_, now_ms, recent_.begin()}).first;
  } else {
    recent_.splice(recent_.begin(), recent_, it->second.recent);
  }
  bucket& b = it->second;
  b.tokens = tokens_at(b, now_ms);
  b.at_ms = std::max(b.at_ms, now_ms);
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return std::nullopt;
  }
  return static_cast<std::int64_t>(std::ceil((1 - b.tokens) / per_ms_));
}

double pass_budget::tokens_at(const bucket& b, std::int64_t now_ms) const {
  // The clock may step back (a restart's clock never runs behind the log, but this is
  // not in the log): no refill then.
  auto elapsed = std::max<std::int64_t>(now_ms - b.at_ms, 0);
  return std::min(capacity_, b.tokens + static_cast<double>(elapsed) * per_ms_);
}

std::optional<std::int64_t> pass_budget::wait(const id16& pass, std::int64_t now_ms) const {
  auto it = buckets_.find(pass);
  if (capacity_ == 0 || it == buckets_.end()) return std::nullopt;
  auto tokens = tokens_at(it->second, now_ms);
  if (tokens >= 1) return std::nullopt;
  return static_cast<std::int64_t>(std::ceil((1 - tokens) / per_ms_));
}

}  // namespace foyer::pass
