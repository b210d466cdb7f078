#pragma once
// Passes: Ed25519 signing keys, the key ring the server signs with and publishes as a JWKS,
// and the compact JWT (alg EdDSA) that an admitted visitor carries to the site.
// Verification lives in include/foyer/pass_verifier.hpp so that sites can embed it alone.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace foyer::pass {

using seed_bytes = std::array<std::uint8_t, 32>;

// One Ed25519 key. The kid is base64url(first 12 bytes of SHA-256(public key)): 16 characters,
// stable for the key, and re-derived on load so a damaged key file cannot pair a kid with the
// wrong key.
struct signing_key {
  std::string kid;
  std::array<std::uint8_t, 64> secret{};  // libsodium layout: seed || public key
  std::array<std::uint8_t, 32> public_key{};
  std::int64_t created_at = 0;  // unix seconds
  bool retired = false;         // retired keys sign nothing and are no longer published
};

std::string key_id(const std::array<std::uint8_t, 32>& public_key);

// Deterministic from the seed; tests and the key file rely on that.
signing_key key_from_seed(const seed_bytes& seed, std::int64_t created_at);
signing_key generate_key(std::int64_t now);

// The server's keys, oldest first. Invariant: at least one key is not retired, so there is
// always an active key to sign with. Mutations throw std::invalid_argument with a message
// meant for the operator and leave the ring unchanged.
class keyring {
 public:
  explicit keyring(signing_key first);

  // The newest key that is not retired: new passes are signed with it.
  const signing_key& active() const;
  const std::vector<signing_key>& keys() const { return keys_; }

  // Rotation: the new key becomes active; older keys stay published until retired, so the
  // passes they signed keep verifying until they expire.
  void add(signing_key key);
  // Stops publishing a key. Refuses unknown kids, keys already retired and the last
  // unretired key.
  void retire(std::string_view kid);

  // The key file: JSON holding each key's seed (secret!), kid, creation time and state.
  std::string encode() const;
  // Throws std::runtime_error naming the problem if the text is not a valid key file.
  static keyring decode(std::string_view text);

  // {"keys":[{"kty":"OKP","crv":"Ed25519","x":..,"kid":..,"alg":"EdDSA","use":"sig"},..]}
  // with every key that is not retired.
  std::string jwks_json() const;

 private:
  keyring() = default;
  void append(signing_key key);  // refuses a duplicate kid
  std::vector<signing_key> keys_;
};

// Registered JWT claims of a pass (RFC 7519 §4.1). Times are unix seconds.
struct claims {
  std::string issuer;     // iss
  std::string audience;   // aud: the room id
  std::string subject;    // sub: the visitor id
  std::int64_t issued_at = 0;   // iat
  std::int64_t not_before = 0;  // nbf
  std::int64_t expires_at = 0;  // exp
  std::string jti;        // unique pass id, for single-use checks
};

// Compact JWS over the given JSON texts, signed with Ed25519. The texts are used verbatim.
std::string sign_jws(const signing_key& key, std::string_view header_json,
                     std::string_view payload_json);

// The pass: header {"alg":"EdDSA","typ":"JWT","kid":..}, payload with the claims above.
std::string sign_pass(const signing_key& key, const claims& c);

}  // namespace foyer::pass
