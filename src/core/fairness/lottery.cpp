#include "core/fairness/lottery.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string_view>

namespace foyer::lottery {
namespace {

constexpr std::string_view key_domain = "foyer/lottery/v1/key";
constexpr std::string_view round_domain = "foyer/lottery/v1";
constexpr int rounds = 10;

}  // namespace

digest commitment(const digest& seed) { return sha256(seed); }

digest derive_key(const digest& seed, const digest& lobby_root, byte_view beacon) {
  return hmac_sha256(seed, {as_bytes(key_domain), lobby_root, beacon});
}

permutation::permutation(const digest& key, std::uint64_t n) : key_(key), n_(n) {
  if (n < min_lobby_size || n >= lobby_size_limit) {
    throw std::invalid_argument("lottery: lobby size out of range");
  }
  auto bits = std::max(2u, static_cast<unsigned>(std::bit_width(n - 1)));
  bits += bits % 2;
  half_bits_ = bits / 2;
  mask_ = (std::uint64_t{1} << half_bits_) - 1;
  if (n <= table_lobby_limit) {
    table_.reserve(rounds << half_bits_);
    for (int r = 0; r < rounds; ++r) {
      for (std::uint64_t v = 0; v <= mask_; ++v) {
        table_.push_back(compute_round(static_cast<std::uint8_t>(r), v));
      }
    }
  }
}

std::uint64_t permutation::round(std::uint8_t r, std::uint64_t v) const {
  return table_.empty() ? compute_round(r, v) : table_[std::uint64_t{r} << half_bits_ | v];
}

std::uint64_t permutation::compute_round(std::uint8_t r, std::uint64_t v) const {
  std::uint8_t tail[1 + 8 + 8];
  tail[0] = r;
  put_be64(tail + 1, n_);
  put_be64(tail + 9, v);
  digest mac = key_.mac({as_bytes(round_domain), tail});
  return get_be64(mac.data()) & mask_;
}

std::uint64_t permutation::encrypt(std::uint64_t x) const {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & mask_;
  for (int r = 0; r < rounds; ++r) {
    std::uint64_t next = left ^ round(static_cast<std::uint8_t>(r), right);
    left = right;
    right = next;
  }
  return left << half_bits_ | right;
}

std::uint64_t permutation::decrypt(std::uint64_t y) const {
  std::uint64_t left = y >> half_bits_;
  std::uint64_t right = y & mask_;
  for (int r = rounds - 1; r >= 0; --r) {
    std::uint64_t previous = right ^ round(static_cast<std::uint8_t>(r), left);
    right = left;
    left = previous;
  }
  return left << half_bits_ | right;
}

// Cycle walking: the Feistel domain 2^k is below 4n, so the walk ends after a few
// steps on average, and it never leaves [0, n) for good because E permutes 2^k.
std::uint64_t permutation::place(std::uint64_t index) const {
  if (index >= n_) throw std::out_of_range("lottery: index outside the lobby");
  if (n_ == 1) return 0;
  std::uint64_t x = encrypt(index);
  while (x >= n_) x = encrypt(x);
  return x;
}

std::uint64_t permutation::holder(std::uint64_t place) const {
  if (place >= n_) throw std::out_of_range("lottery: place outside the lobby");
  if (n_ == 1) return 0;
  std::uint64_t x = decrypt(place);
  while (x >= n_) x = decrypt(x);
  return x;
}

}  // namespace foyer::lottery
