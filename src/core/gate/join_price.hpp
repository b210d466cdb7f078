#pragma once
// What a join costs: signed single-use challenges, priced per client network.
// Single-threaded: owned by the event loop.

#include <cstdint>
#include <utility>

#include "core/gate/join_pressure.hpp"
#include "core/gate/network.hpp"
#include "core/gate/pow.hpp"

namespace foyer {

struct join_price {
  join_price(byte_view secret, const pow::config& cfg, std::uint64_t start_ms, network_rules rules)
      : authority(secret, cfg, start_ms), spent(cfg.spent_capacity), pressure(cfg), rules(std::move(rules)),
        base_bits(cfg.base_bits) {}

  pow::authority authority;
  pow::spent_set spent;
  pow::join_pressure pressure;
  network_rules rules;
  std::uint32_t base_bits;
};

}  // namespace foyer
