#pragma once
// C2SP signed notes (c2sp.org/signed-note) with Ed25519 keys: the envelope of the public
// logs' checkpoints. Interoperates with Go's golang.org/x/mod/sumdb/note.
//
//   note      = text (ends in "\n") ‖ "\n" ‖ one or more signature lines
//   signature = "— " (U+2014, space) ‖ key name ‖ " " ‖ base64(u32be key id ‖ signature) ‖ "\n"
//   key id    = SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ 32-byte public key)[:4], big-endian
//   vkey      = key name ‖ "+" ‖ hex(key id, 8 digits) ‖ "+" ‖ base64(0x01 ‖ public key)
//
// Base64 is RFC 4648 §4 with padding. A key name is non-empty UTF-8 with no Unicode
// space and no "+". A note is UTF-8 with no ASCII control character but newline.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/bytes.hpp"

namespace foyer::note {

// A bound on what open() reads: the spec asks verifiers to accept at least 16
// signatures of up to ~5 kB each (post-quantum); Go's reference stops at 100.
inline constexpr std::size_t max_note_bytes = 1024 * 1024;
inline constexpr std::size_t max_signatures = 100;

inline constexpr std::uint8_t ed25519_type = 0x01;

using public_key = std::array<std::uint8_t, 32>;
using seed = std::array<std::uint8_t, 32>;

bool valid_key_name(std::string_view name);
// The key id of an Ed25519 key of signature type `type` (0x01 for note signatures; other
// C2SP types reuse the same key shape, e.g. 0x04 for tlog-cosignature v1).
// Throws std::invalid_argument on an invalid key name.
std::uint32_t ed25519_key_id(std::string_view name, const public_key& key, std::uint8_t type = ed25519_type);

struct verifier {
  std::string name;
  std::uint32_t key_id = 0;
  public_key key{};
};

// The vkey of an Ed25519 key; nullopt from parse_vkey() unless it is exactly that shape
// for an Ed25519 key of signature type `type` whose id matches its name and key.
std::string encode_vkey(const verifier& v, std::uint8_t type = ed25519_type);
std::optional<verifier> parse_vkey(std::string_view vkey, std::uint8_t type = ed25519_type);

// Ed25519 (RFC 8032) over `message`.
bool verify_ed25519(const verifier& v, std::string_view message, byte_view signature);

class signer {
 public:
  // A key of signature type `type` (its key id depends on it).
  // Throws std::invalid_argument on an invalid key name.
  signer(std::string name, const seed& seed, std::uint8_t type = ed25519_type);
  const verifier& public_part() const { return verifier_; }
  // The signature line's base64 payload, key id first.
  std::string sign_line(std::string_view text) const;
  // The bare Ed25519 signature of `message`, for types that sign more than the text.
  std::array<std::uint8_t, 64> sign_ed25519(std::string_view message) const;

 private:
  verifier verifier_;
  std::array<std::uint8_t, 64> secret_;  // libsodium layout: seed ‖ public key
};

// True if `text` can be the text of a note: non-empty, ending in a newline, UTF-8 with
// no control character but newline, and within max_note_bytes.
bool valid_text(std::string_view text);

// The signed note: text, blank line, one signature line per signer in order.
// Throws std::invalid_argument unless valid_text(text) and signers is non-empty.
std::string sign(std::string_view text, std::span<const signer> signers);

// A key id as it starts a signature's payload: u32be.
std::array<std::uint8_t, 4> key_id_bytes(std::uint32_t id);

// One signature line: "— " ‖ name ‖ " " ‖ base64(payload) ‖ "\n", where the payload starts
// with the u32be key id. Throws std::invalid_argument on an invalid key name.
std::string signature_line(std::string_view name, byte_view payload);

struct signature {
  std::string name;
  std::uint32_t key_id = 0;
  std::string base64;  // as in the note: key id ‖ signature
  friend bool operator==(const signature&, const signature&) = default;
};

// A note cut into its text and its signature lines, in order, nothing checked but the
// shape and the limits above; nullopt if malformed (as open() would say).
struct split_note {
  std::string text;
  std::vector<signature> lines;
};
std::optional<split_note> split(std::string_view message);

struct opened_note {
  std::string text;
  std::vector<signature> verified;    // by a known key, each key once
  std::vector<signature> unverified;  // by keys not known, each distinct line once
};

enum class open_error {
  malformed,              // not a note, or beyond the limits above
  invalid_signature,      // a known key's signature does not verify
  no_verified_signature,  // well formed, but no known key signed it
};

// Parses `message` and checks the signatures of the known keys, as sumdb/note.Open does:
// signatures by unknown keys (name and id not both matching a known key) are listed,
// not checked; a repeated signature by one key counts once.
std::variant<opened_note, open_error> open(std::string_view message, std::span<const verifier> known);

}  // namespace foyer::note
