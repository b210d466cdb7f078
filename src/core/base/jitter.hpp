#pragma once
// Spread for poll intervals, so that a crowd doesn't poll in step: xorshift64, which
// needs spread, not secrecy.

#include <cstdint>

namespace foyer {

class jitter_source {
 public:
  explicit jitter_source(std::uint64_t seed) : state_(seed | 1) {}
  // In [0, 1).
  double next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<double>(state_ >> 11) / static_cast<double>(std::uint64_t{1} << 53);
  }

 private:
  std::uint64_t state_;
};

}  // namespace foyer
