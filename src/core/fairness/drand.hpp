#pragma once
// drand quicknet, the public beacon a lottery key may mix in (docs/fairness.md, "The
// beacon: drand quicknet"): the chain's pinned parameters, round <-> time arithmetic, and
// the checks of a relay's answer for one round.
//
// Debian has no BLS12-381 library, so the server does not check a round's BLS signature:
// it checks the answer's shape, its round and that its randomness is SHA-256(signature),
// and, with two or more relays configured (of different origins: the configuration refuses
// two URLs of one server), it draws only once two agree on the round (decide_beacon).
// The pairing check is the audit's, done by anyone with web/js/drand.js (@noble/curves)
// in a browser or in Node, on the round and signature the ledger publishes.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/bytes.hpp"

namespace foyer::drand {

// From drand's published chain info, fetched from
// https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/info
// (the same values are in drand/drand common/chain/info_test.go). Mirrored in
// web/js/drand.js; keep the two alike.
inline constexpr std::string_view chain_hash = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971";
inline constexpr std::string_view public_key =
    "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fe"
    "c758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
inline constexpr std::int64_t period_s = 3;
inline constexpr std::int64_t genesis_s = 1692803367;  // Unix seconds, the time of round 1
inline constexpr std::string_view scheme = "bls-unchained-g1-rfc9380";
// The RFC 9380 hash-to-curve suite of signatures on G1 (draft-irtf-cfrg-bls-signature).
inline constexpr std::string_view dst = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";

// A compressed G1 point.
inline constexpr std::size_t signature_size = 48;
using signature = std::array<std::uint8_t, signature_size>;

// When round `round` (>= 1) is published, in Unix milliseconds: genesis + (round - 1) × period.
std::int64_t time_of_round_ms(std::uint64_t round);
// The round published last at `unix_ms`, as drand counts it: 0 before genesis.
std::uint64_t round_at(std::int64_t unix_ms);
// The first round published at or after `unix_ms`: the round a draw closing then waits for.
std::uint64_t first_round_at_or_after(std::int64_t unix_ms);

// The beacon bytes mixed into the lottery key: SHA-256(signature).
digest randomness(const signature& sig);

struct round_value {
  std::uint64_t round = 0;
  signature sig{};
  digest randomness{};
  friend bool operator==(const round_value&, const round_value&) = default;
};

// Where a relay serves round `round` below its base URL: "/<chain hash>/public/<round>".
std::string relay_path(std::uint64_t round);

enum class answer_error {
  malformed,        // not a JSON object with a numeric round and hex randomness and signature
  wrong_round,      // a round other than the one asked for
  signature_size,   // the signature is not 48 bytes
  wrong_randomness, // randomness is not SHA-256(signature)
};
std::string_view to_string(answer_error error);

// A relay's answer for round `round` ({"round":…,"randomness":"<hex>","signature":"<hex>"},
// other members ignored), checked as far as the server can without the pairing.
std::variant<round_value, answer_error> parse_answer(std::string_view json, std::uint64_t round);

// What stands behind a drand round the draw used, besides its shape: the server never
// checks the BLS signature itself (no vetted library), so the grinding guarantee is
// claimed only when two relays gave the same round.
enum class beacon_check : std::uint8_t {
  none,        // one relay's answer, or a value the operator supplied: nothing independent agreed
  two_relays,  // two configured relays answered the same signature for the round
};
std::string_view to_string(beacon_check check);

// Relays that contradict each other, or a second relay that does not answer, never draw on
// one relay's word when two or more are configured: the draw waits for two that agree, or
// for the operator to supply the round (the admin API, recorded with beacon_check::none).
struct beacon_decision {
  std::optional<round_value> value;  // none: keep waiting
  beacon_check check = beacon_check::none;
  std::vector<std::size_t> agreed;   // two_relays: the indices of the two relays that gave it
  bool contradicted = false;         // two relays gave different rounds that each pass the checks
};

// Decides from one try of every configured relay, in their order (`answers[i]` none if relay
// i failed), whether the draw may use a round: two equal answers (two_relays); else, when a
// single relay is configured, its answer (none: no guarantee); else wait, however long.
beacon_decision decide_beacon(const std::vector<std::optional<round_value>>& answers);

}  // namespace foyer::drand
