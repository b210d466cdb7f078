#pragma once
// A request budget per pass: `per_minute` requests a minute, as many at once (a token
// bucket that refills continuously); 0 is no budget. It remembers at most `max_passes` passes; past that
// the one that asked longest ago is forgotten, and gets a full budget if it comes back.
// The state is bounded by that: about 100 bytes a pass.
//
// Single-threaded: owned by the event loop.

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>

#include "core/base/ids.hpp"

namespace foyer::pass {

class pass_budget {
 public:
  static constexpr std::size_t default_max_passes = 100'000;

  explicit pass_budget(std::uint32_t per_minute, std::size_t max_passes = default_max_passes);

  // Spends one request of `pass` at `now`; if none is left, how long until one is, in ms.
  std::optional<std::int64_t> spend(const id16& pass, std::int64_t now_ms);
  // How long until `pass` has a request to spend, if it has none at `now`; spends nothing.
  std::optional<std::int64_t> wait(const id16& pass, std::int64_t now_ms) const;
  std::size_t remembered() const { return buckets_.size(); }

 private:
  struct bucket {
    double tokens = 0;
    std::int64_t at_ms = 0;
    std::list<id16>::iterator recent;  // its place in recent_
  };
  double per_ms_;
  double capacity_;
  std::size_t max_passes_;
  // The bucket's tokens at `now`, refilled since it last spent.
  double tokens_at(const bucket& b, std::int64_t now_ms) const;

  std::unordered_map<id16, bucket, id16_hash> buckets_;
  std::list<id16> recent_;  // the pass that asked last first
};

}  // namespace foyer::pass
