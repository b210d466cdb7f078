#pragma once
// C2SP tlog-cosignature v1 (c2sp.org/tlog-cosignature), Ed25519: a witness's timestamped
// signature of a checkpoint, carried as one more signature line of its note.
//
//   key id    = SHA-256(witness name ‖ 0x0A ‖ 0x04 ‖ 32-byte public key)[:4]
//   vkey      = as a note vkey (signed_note.hpp), with the type byte 0x04
//   message   = "cosignature/v1\ntime " ‖ decimal timestamp ‖ "\n" ‖ checkpoint text
//   line      = "— " ‖ witness name ‖ " " ‖ base64(u32be key id ‖ u64be timestamp ‖ signature) ‖ "\n"
//
// The timestamp is POSIX seconds below 2^63. The message does not name the witness: one key
// must never serve two witness names. Pure: no clock, no I/O.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/fairness/checkpoint.hpp"
#include "core/fairness/signed_note.hpp"

namespace foyer::cosignature {

inline constexpr std::uint8_t ed25519_type = 0x04;
inline constexpr std::uint64_t max_timestamp = (std::uint64_t{1} << 63) - 1;

// A witness is known by a note::verifier whose key id is of type 0x04.
std::optional<note::verifier> parse_vkey(std::string_view vkey);
std::string encode_vkey(const note::verifier& witness);
// The witness's signing key. Throws std::invalid_argument on an invalid name.
note::signer make_signer(std::string name, const note::seed& seed);

// The signed message for `text` (a checkpoint's note text) at `timestamp`.
std::string message(std::string_view text, std::uint64_t timestamp);
// The cosignature line of `text` at `timestamp` by `witness` (made by make_signer()).
// Throws std::invalid_argument unless note::valid_text(text) and timestamp <= max_timestamp.
std::string sign(const note::signer& witness, std::string_view text, std::uint64_t timestamp);

enum class error {
  malformed,          // not one signature line, or a payload that is not id ‖ u64 ‖ 64 bytes
  other_key,          // a signature line by another key (name or key id differ)
  invalid_signature,  // the witness's line, but the signature does not verify (or time ≥ 2^63)
};

// Checks a signature of a note (note::split) as `witness`'s cosignature of `text`; the
// cosignature's timestamp if it verifies.
std::variant<std::uint64_t, error> verify_signature(const note::signature& sig, std::string_view text,
                                                    const note::verifier& witness);
// The same for one signature line, with or without its final newline.
std::variant<std::uint64_t, error> verify_line(std::string_view line, std::string_view text,
                                               const note::verifier& witness);

struct witness_time {
  std::string name;
  std::uint64_t timestamp = 0;
  friend bool operator==(const witness_time&, const witness_time&) = default;
};

struct cosigned_head {
  checkpoint::tree_head head;
  std::vector<witness_time> cosigners;  // in the order of `witnesses`, each witness once
};

enum class quorum_error {
  malformed,              // not a signed note, or not a checkpoint
  log_unverified,         // the log's signature is missing or does not verify
  invalid_cosignature,    // a listed witness's line does not verify
  below_quorum,           // fewer than `quorum` listed witnesses cosigned it
};

struct quorum_problem {
  quorum_error kind;
  std::string witness;     // invalid_cosignature: whose line
  std::size_t cosigned = 0;  // below_quorum: how many did
  friend bool operator==(const quorum_problem&, const quorum_problem&) = default;
};

// Opens a cosigned checkpoint: the log's signature must verify, every line by a listed
// witness must verify (as a note's known keys do: one bad line refuses it all; a repeated
// witness counts once), and at least `quorum` listed witnesses must have cosigned it.
// Lines by keys not listed are ignored.
std::variant<cosigned_head, quorum_problem> verify(std::string_view note, const note::verifier& log,
                                                  std::span<const note::verifier> witnesses, std::size_t quorum);

}  // namespace foyer::cosignature
