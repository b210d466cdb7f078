#pragma once
// What a join costs: signed single-use challenges, priced per client network.
// Single-threaded: owned by the event loop.

#include <cstdint>
#include <string_view>
#include <utility>

#include "core/gate/join_pressure.hpp"
#include "core/gate/network.hpp"
#include "core/gate/pow.hpp"

namespace foyer {

struct join_price {
  join_price(byte_view secret, const pow::config& cfg, std::uint64_t start_ms, network_rules rules)
      : authority(secret, cfg, start_ms), spent(cfg.spent_capacity), pressure(cfg), rules(std::move(rules)),
        base_bits(cfg.base_bits) {}

  // A join's price now, in bits on top of base_bits: the network's join pressure plus the
  // operator's rules for the address. Asked when a challenge is minted and again when it
  // is redeemed, so the price holds at redemption too.
  std::uint32_t extra_bits(const ip_address& address, const network_key& network, std::uint64_t now_ms) const {
    return pressure.extra_bits(network, now_ms) + rules.extra_bits(address);
  }

  pow::challenge mint(std::string_view room, const ip_address& address, std::uint64_t now_ms) const {
    auto network = network_of(address);
    return authority.mint(room, network, now_ms, extra_bits(address, network, now_ms));
  }

  pow::authority authority;
  pow::spent_set spent;
  pow::join_pressure pressure;
  network_rules rules;
  std::uint32_t base_bits;
};

}  // namespace foyer
