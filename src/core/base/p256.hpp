#pragma once
// P-256 (secp256r1) keys through OpenSSL, shared by ES256 passes and Web Push (ECDH and VAPID).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/base/openssl_ptr.hpp"

namespace foyer {

inline constexpr std::size_t p256_coordinate_bytes = 32;
using p256_scalar = std::array<std::uint8_t, p256_coordinate_bytes>;      // a private key, big-endian
using p256_point = std::array<std::uint8_t, 1 + 2 * p256_coordinate_bytes>;  // 04 || x || y
using p256_shared_secret = std::array<std::uint8_t, p256_coordinate_bytes>;  // the x coordinate of d·Q

// OpenSSL fails here only when out of memory or misbuilt; neither is the caller's input.
// Throws std::runtime_error naming `what`.
void openssl_check(bool ok, std::string_view what);

// Q = d·G; throws std::invalid_argument for a scalar outside [1, n-1].
p256_point p256_public_point(const p256_scalar& scalar);

// A P-256 EVP_PKEY from the public point and, for signing or ECDH, the private scalar (or
// null). Null if OpenSSL refuses the point: not on the curve.
pkey_ptr p256_pkey(const p256_point& point, const std::uint8_t* scalar);

// ECDH (SEC 1 §3.3.1): the x coordinate of own·peer. Nullopt if `peer` is not a point on
// the curve. `own_point` is own_scalar's public point.
std::optional<p256_shared_secret> p256_ecdh(const p256_scalar& own_scalar, const p256_point& own_point,
                                            const p256_point& peer);

}  // namespace foyer
