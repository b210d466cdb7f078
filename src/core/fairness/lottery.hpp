#pragma once
// The opening lottery, v1 (docs: FAIRNESS.md): seed commitment, key derivation and
// the keyed permutation π over [0, N) that turns a lobby index into a place.
// Pure functions of their arguments; a permutation is immutable after construction
// and may be shared by threads (hmac_key::mac is const and uses per-thread scratch).

#include <cstdint>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"

namespace foyer::lottery {

// N must lie in [min_lobby_size, lobby_size_limit).
inline constexpr std::uint64_t min_lobby_size = 1;
inline constexpr std::uint64_t lobby_size_limit = std::uint64_t{1} << 48;
// Lobbies up to this size (half-blocks of at most 12 bits) get a tabulated round function:
// at most 40,960 HMACs and 320 KiB once, so that every place of the lobby (the reveal
// hashes them all) costs table lookups only.
inline constexpr std::uint64_t table_lobby_limit = std::uint64_t{1} << 24;

// SHA-256 over the 32 raw seed bytes; published before the lobby opens.
digest commitment(const digest& seed);

// HMAC-SHA256(seed, "foyer/lottery/v1/key" ‖ lobby root ‖ beacon). An absent beacon is empty.
digest derive_key(const digest& seed, const digest& lobby_root, byte_view beacon);

// π: a 10-round balanced Feistel network over 2^k values (k even, k ≥ 2), cycle-walked
// down to [0, n). One place costs about 10 × (2^k / n) ≤ 40 HMACs on average; up to
// table_lobby_limit the round function is tabulated at construction (10 × 2^(k/2) HMACs)
// and places cost no HMAC at all. Construct once per lobby and keep it.
class permutation {
 public:
  // Throws std::invalid_argument unless n lies in [min_lobby_size, lobby_size_limit).
  permutation(const digest& key, std::uint64_t n);

  std::uint64_t size() const { return n_; }
  // π(index): the place of lobby index `index`. Throws std::out_of_range unless index < n.
  std::uint64_t place(std::uint64_t index) const;
  // π⁻¹(place): the lobby index holding `place`. Throws std::out_of_range unless place < n.
  std::uint64_t holder(std::uint64_t place) const;

 private:
  std::uint64_t round(std::uint8_t r, std::uint64_t v) const;
  std::uint64_t compute_round(std::uint8_t r, std::uint64_t v) const;
  std::uint64_t encrypt(std::uint64_t x) const;
  std::uint64_t decrypt(std::uint64_t y) const;

  hmac_key key_;
  std::uint64_t n_;
  unsigned half_bits_;
  std::uint64_t mask_;
  std::vector<std::uint64_t> table_;  // F(r, v) at r << half_bits_ | v; empty for large lobbies
};

}  // namespace foyer::lottery
