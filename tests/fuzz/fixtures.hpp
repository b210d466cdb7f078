#pragma once
// The secrets, keys and names the fuzz targets and the corpus generator share, so that the
// seeds are tokens the targets accept and mutations start from genuine input.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/bytes.hpp"
#include "core/gate/network.hpp"
#include "core/passes/pass.hpp"

namespace foyer::fuzz {

inline constexpr std::string_view secret = "a fuzzing secret of 32 bytes!!!!";
inline constexpr std::string_view room_id = "spring-sale";
inline constexpr std::string_view issuer = "https://queue.example";
inline constexpr std::int64_t t0_ms = 1'800'000'000'000;  // the targets' "now"

inline network_key client_network() { return network_of(*parse_ip("203.0.113.7")); }

inline pass::signing_key pass_key() {
  pass::seed_bytes seed;
  seed.fill(7);
  return pass::key_from_seed(seed, t0_ms / 1000);
}

inline pass::claims pass_claims(std::string visitor) {
  std::int64_t t0 = t0_ms / 1000;
  return {std::string(issuer), std::string(room_id), visitor, t0, t0, t0 + 600, "jti-" + visitor};
}

// libFuzzer's input as text.
inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace foyer::fuzz
