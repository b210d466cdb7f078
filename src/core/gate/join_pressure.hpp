#pragma once
// Per-network join pressure: how often a /24 or /48 has joined lately, turned
// into extra proof-of-work bits.
//
// The rule. Joins are counted in a sliding window approximated by two fixed
// windows (the current one plus the previous one weighted by how much of it
// still overlaps the sliding window). With c that estimate and t the threshold:
//
//   extra_bits = 0                                   if c < t
//              = min(max_bits, 1 + floor(log2(c / t)))  otherwise
//
// so a network pays twice the work at t joins per window, and twice again at
// every doubling after that (t = 16, max 6: 16 -> 2x, 32 -> 4x, ... 512 -> 64x).
// When a burst stops, the estimate drains to zero within two windows and the
// price falls back with it.
//
// Memory is bounded: at most `tracked_networks` entries (about 100 bytes each).
// A new network beyond the cap evicts the least recently recorded one, which is
// the quietest: a network joining often stays at the recent end, so flushing it
// takes more new networks within its gap between joins than the cap. Networks
// idle for two windows count zero and are dropped as `record` passes.
//
// Count successful joins, not challenges: minting is free, so counting it would
// let anyone raise the price for their neighbours behind the same NAT at no cost.

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>

#include "core/gate/network.hpp"
#include "core/gate/pow.hpp"

namespace foyer::pow {

class join_pressure {
 public:
  // Uses pressure_window_ms, pressure_threshold, max_pressure_bits and
  // tracked_networks; throws std::invalid_argument as validate() does.
  explicit join_pressure(const config& cfg);

  void record(const network_key& network, std::uint64_t now_ms);

  // The sliding-window estimate of joins from `network` at now_ms.
  std::uint64_t joins(const network_key& network, std::uint64_t now_ms) const;

  // 0..max_pressure_bits by the rule above.
  std::uint32_t extra_bits(const network_key& network, std::uint64_t now_ms) const;

  std::size_t tracked() const { return entries_.size(); }

 private:
  struct entry {
    network_key network;
    std::uint64_t window = 0;    // index of the current fixed window
    std::uint32_t current = 0;   // joins in that window
    std::uint32_t previous = 0;  // joins in the window before it
  };
  using lru_list = std::list<entry>;  // most recently recorded first

  // A keyed hash: clients choose their IPv6 /48 within their allocation, so an
  // unkeyed hash would let them aim at one bucket.
  struct keyed_hash {
    std::array<std::uint8_t, 16> key;
    std::size_t operator()(const network_key& network) const noexcept;
  };

  std::uint64_t estimate(const entry& e, std::uint64_t now_ms) const;

  std::uint64_t window_ms_;
  std::uint32_t threshold_;
  std::uint32_t max_bits_;
  std::size_t capacity_;
  lru_list lru_;
  std::unordered_map<network_key, lru_list::iterator, keyed_hash> entries_;
};

}  // namespace foyer::pow
