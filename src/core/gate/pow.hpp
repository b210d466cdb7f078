#pragma once
// Proof of work for joins: stateless signed challenges, priced per network, each
// redeemable once.
//
// Challenge token: base64url (no padding) of 113 bytes, integers big-endian:
//
//   offset size  field
//        0    1  version (1)
//        1    1  puzzles k (1..max_puzzles)
//        2   32  SHA-256 of the room id
//       34    7  network key (see network.hpp)
//       41    8  issued_at, Unix ms
//       49    8  expires_at, Unix ms
//       57    8  threshold
//       65   16  salt, random
//       81   32  mac = HMAC-SHA256(pow key, bytes 0..80)
//
// Every field is fixed width, so no two field sequences share a MAC input (the
// ALTCHA splicing lesson). The pow key is HMAC-SHA256(server secret,
// "foyer/pow/v1/key"), so the secret may also key other things.
//
// The work: for every puzzle i in [0, k) the client finds a 64-bit nonce_i with
//
//   SHA-256(mac ‖ be32(i) ‖ be64(nonce_i))        44 bytes, a single block
//
// whose first 8 bytes, read as a big-endian integer, are <= threshold. A try
// passes with probability (threshold + 1) / 2^64. The proof is the string of k
// nonces, each as 16 lowercase hex digits (big-endian), concatenated in puzzle
// order: the join body is {"challenge": token, "nonce": that string}.
//
// Splitting the work into k puzzles keeps the total expected work but narrows
// its spread (the solve time's coefficient of variation is about 1/sqrt(k)), and
// "puzzles solved / k" is an honest progress bar. Verification costs one HMAC and
// k single-block SHA-256.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/gate/network.hpp"

namespace foyer::pow {

inline constexpr std::uint8_t token_version = 1;
inline constexpr std::size_t token_size = 113;
inline constexpr std::size_t salt_size = 16;
inline constexpr std::size_t nonce_hex_digits = 16;
inline constexpr std::uint32_t max_puzzles = 64;
// A ceiling on base + extra bits: 2^40 hashes is hours in a browser already.
inline constexpr std::uint32_t max_difficulty_bits = 40;
inline constexpr std::size_t min_secret_size = 16;

using salt = std::array<std::uint8_t, salt_size>;

struct config {
  // Expected hashes per join from a quiet network, in total over all puzzles: 2^base_bits.
  // 0 turns the work off (local development and tests). Default: 16 (65,536 hashes).
  std::uint32_t base_bits = 16;
  // Puzzles per challenge. Default: 8 (solve time spread about ±35%, 8 SHA-256 to verify).
  std::uint32_t puzzles = 8;
  // How long a challenge can be redeemed. Default: 120,000 ms.
  std::uint64_t challenge_ttl_ms = 120'000;
  // Join pressure (see join_pressure.hpp): the sliding window. Default: 60,000 ms.
  std::uint64_t pressure_window_ms = 60'000;
  // Joins per window from one network before its price rises. Default: 16.
  std::uint32_t pressure_threshold = 16;
  // Most extra bits pressure can add. Default: 6 (64x).
  std::uint32_t max_pressure_bits = 6;
  // Networks whose pressure is tracked at once (about 100 bytes each). Default: 65,536.
  std::size_t tracked_networks = 65'536;
  // Spent challenge ids remembered at once (about 60 bytes each); past it joins are
  // refused until ids expire. Sized for a national-scale rush: 35,000 joins/s over a
  // 120 s ttl, about 250 MB when full. Default: 4,194,304.
  std::size_t spent_capacity = std::size_t{1} << 22;
};

// Throws std::invalid_argument naming the first field out of range.
void validate(const config& cfg);

// The per-puzzle threshold for `total_hashes` expected hashes split over `puzzles`:
// (threshold + 1) = floor(puzzles * 2^64 / total_hashes), so a try passes with
// probability puzzles / total_hashes. Any multiplier is exact to 2^-64, not only
// powers of two. When total_hashes <= puzzles every try passes (threshold = 2^64 - 1).
std::uint64_t puzzle_threshold(std::uint64_t total_hashes, std::uint32_t puzzles);

// One try of puzzle `index`, with the layout documented above.
digest puzzle_hash(const digest& mac, std::uint32_t index, std::uint64_t nonce);
bool meets(const digest& hash, std::uint64_t threshold);

// A token's fields, decoded but not authenticated.
struct token_fields {
  std::uint32_t puzzles = 0;
  digest room_hash{};
  network_key network;
  std::uint64_t issued_at_ms = 0;
  std::uint64_t expires_at_ms = 0;
  std::uint64_t threshold = 0;
  salt salt_bytes{};
  digest mac{};
};

// nullopt unless the text is the base64url of a version-1 token with 1..max_puzzles puzzles.
std::optional<token_fields> decode(std::string_view token);

struct challenge {
  std::string token;
  // log2 of the expected hashes: exact, since the policy only moves in whole bits.
  std::uint32_t difficulty_bits = 0;
  std::uint64_t expires_at_ms = 0;
};

enum class verdict : std::uint8_t {
  ok,
  malformed,            // not a token, or the nonce string has the wrong shape
  bad_mac,              // forged or tampered
  wrong_room,           // minted for another room
  wrong_network,        // minted for another client network
  expired,              // now >= expires_at
  issued_before_start,  // minted by an earlier run, whose spent ids are gone
  underpriced,          // minted at a lower price than the network pays now
  insufficient_work,    // some puzzle's hash is above the threshold
};

// Stable lowercase names for logs and metrics. Clients get one generic answer for all.
std::string_view to_string(verdict v);

struct verify_result {
  verdict outcome = verdict::malformed;
  // Set once the MAC checks out (outcomes after bad_mac): the MAC's first 8 bytes,
  // big-endian, as the spent set's key.
  std::uint64_t challenge_id = 0;
  std::uint64_t expires_at_ms = 0;

  bool ok() const { return outcome == verdict::ok; }
};

// Mints and verifies challenges. Holds no per-challenge state: single use is the
// spent_set's job. Const methods may be called from any thread.
class authority {
 public:
  // `secret`: at least min_secret_size bytes. `start_ms`: this run's start (Unix ms);
  // challenges issued before it are refused, so a restart, which forgets the spent
  // set, cannot reopen replays. Throws std::invalid_argument on a short secret or a
  // config that validate() refuses.
  authority(byte_view secret, const config& cfg, std::uint64_t start_ms);

  // Difficulty = base_bits + extra_bits, capped at max_difficulty_bits. extra_bits
  // is the caller's sum of join pressure and operator network rules.
  challenge mint(std::string_view room, const network_key& network, std::uint64_t now_ms,
                 std::uint32_t extra_bits) const;
  // As above with a given salt, for reproducible tokens in tests and vectors.
  challenge mint(std::string_view room, const network_key& network, std::uint64_t now_ms,
                 std::uint32_t extra_bits, const salt& salt_bytes) const;

  // base_bits + extra_bits, capped at max_difficulty_bits.
  std::uint32_t difficulty_bits(std::uint32_t extra_bits) const;

  // Checks in this order: shape, MAC, room, network, start, expiry, price, work. O(1):
  // one HMAC, one SHA-256 of the room id, at most k puzzle hashes (only for a genuine,
  // live token). `extra_bits` is the network's price now, as for mint(): a challenge
  // minted cheaper is underpriced, so a price fixed at issue cannot be carried past a
  // rise (challenges fetched early while calm, redeemed in a burst).
  verify_result verify(std::string_view token, std::string_view nonce, std::string_view room,
                       const network_key& network, std::uint64_t now_ms, std::uint32_t extra_bits = 0) const;

 private:
  hmac_key key_;
  config cfg_;
  std::uint64_t start_ms_;
};

// Finds the first passing nonce of every puzzle by counting up from 0 and returns
// the proof string. For tests, the load generator and `foyer solve`. Throws std::invalid_argument
// on a malformed token.
std::string solve(std::string_view token);

enum class spend_outcome : std::uint8_t {
  spent,          // first redemption: go ahead
  already_spent,  // a replay
  expired,        // expires_at <= now: verify() should have refused it already
  full,           // capacity reached by live ids: refuse (fail closed) and alert
};

// Challenge ids redeemed and not yet expired. Memory is bounded by `capacity`;
// expired ids are pruned on every call. Not thread-safe: owned by the event loop.
class spent_set {
 public:
  explicit spent_set(std::size_t capacity);

  spend_outcome try_spend(std::uint64_t id, std::uint64_t expires_at_ms, std::uint64_t now_ms);
  // The join a spend paid for was not recorded (its write failed): the same solved
  // challenge may be redeemed again, so a retry after a 503 is not refused.
  void give_back(std::uint64_t id);
  std::size_t size() const { return size_; }

 private:
  std::size_t slot_of(std::uint64_t id) const;  // where id is, or the free slot it would take
  void insert(std::uint64_t id);
  bool contains(std::uint64_t id) const;
  // Removes `id` if it is there: an id given back is still in by_expiry_.
  void erase(std::uint64_t id);
  void prune(std::uint64_t now_ms);

  std::size_t capacity_;
  std::size_t size_ = 0;
  // Open addressing with linear probing, at most half full. The ids are MAC bytes,
  // uniform and not chosen by clients, so their low bits are the slot. 0 marks a
  // free slot; the id 0 itself is held aside.
  std::vector<std::uint64_t> slots_;
  bool holds_zero_ = false;
  using entry = std::pair<std::uint64_t, std::uint64_t>;  // (expires_at_ms, id)
  std::priority_queue<entry, std::vector<entry>, std::greater<>> by_expiry_;
};

}  // namespace foyer::pow
