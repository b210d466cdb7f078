#include "core/gate/join_pressure.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>
#include <limits>

namespace foyer::pow {

std::size_t join_pressure::keyed_hash::operator()(const network_key& network) const noexcept {
  std::uint8_t out[crypto_shorthash_BYTES];
  crypto_shorthash(out, network.bytes.data(), network.bytes.size(), key.data());
  return static_cast<std::size_t>(get_be64(out));
}

join_pressure::join_pressure(const config& cfg)
    : window_ms_((validate(cfg), cfg.pressure_window_ms)),
      threshold_(cfg.pressure_threshold),
      max_bits_(cfg.max_pressure_bits),
      capacity_(cfg.tracked_networks),
      entries_(0, keyed_hash{random_array<crypto_shorthash_KEYBYTES>()}) {}

void join_pressure::record(const network_key& network, std::uint64_t now_ms) {
  std::uint64_t window = now_ms / window_ms_;
  // The least recently recorded networks sit at the back; two windows idle means they count zero.
  while (!lru_.empty() && lru_.back().window + 2 <= window) {
    entries_.erase(lru_.back().network);
    lru_.pop_back();
  }
  auto found = entries_.find(network);
  if (found == entries_.end()) {
    if (entries_.size() >= capacity_) {
      entries_.erase(lru_.back().network);
      lru_.pop_back();
    }
    lru_.push_front(entry{network, window, 0, 0});
    found = entries_.emplace(network, lru_.begin()).first;
  } else {
    lru_.splice(lru_.begin(), lru_, found->second);
  }
  entry& e = *found->second;
  if (window == e.window + 1) {
    e.previous = e.current;
    e.current = 0;
  } else if (window > e.window + 1) {
    e.previous = 0;
    e.current = 0;
  }
  // A clock step backwards keeps counting into the latest window seen.
  e.window = std::max(e.window, window);
  if (e.current < std::numeric_limits<std::uint32_t>::max()) ++e.current;
}

std::uint64_t join_pressure::estimate(const entry& e, std::uint64_t now_ms) const {
  std::uint64_t window = now_ms / window_ms_;
  std::uint64_t elapsed = now_ms % window_ms_;
  std::uint64_t current = e.current;
  std::uint64_t previous = e.previous;
  if (window < e.window) {
    elapsed = 0;
  } else if (window == e.window + 1) {
    previous = current;
    current = 0;
  } else if (window > e.window + 1) {
    return 0;
  }
  // The previous window overlaps the sliding window by (window_ms - elapsed).
  return current + previous * (window_ms_ - elapsed) / window_ms_;
}

std::uint64_t join_pressure::joins(const network_key& network, std::uint64_t now_ms) const {
  auto found = entries_.find(network);
  return found == entries_.end() ? 0 : estimate(*found->second, now_ms);
}

std::uint32_t join_pressure::extra_bits(const network_key& network, std::uint64_t now_ms) const {
  std::uint64_t ratio = joins(network, now_ms) / threshold_;
  // bit_width(r) = 1 + floor(log2(r)) for r >= 1, and 0 below the threshold.
  return std::min<std::uint32_t>(max_bits_, static_cast<std::uint32_t>(std::bit_width(ratio)));
}

}  // namespace foyer::pow
