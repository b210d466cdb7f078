#pragma once
// Passes: signing keys, the key ring the server signs with and publishes as a JWKS, and the
// compact JWT that an admitted visitor carries to the site.
// Verification lives in include/foyer/pass_verifier.hpp so that sites can embed it alone.
//
// Two pass profiles. EdDSA (Ed25519, the default) is what the header-only verifier and the
// guard check. ES256 (ECDSA P-256, via OpenSSL) is for verifiers that lack EdDSA (HAProxy's
// jwt_verify, Spring Security's stock NimbusJwtDecoder, auth0's libraries): a deployment
// switches to it by adding an ES256 key (foyer keygen --alg ES256), since passes are signed
// with the newest key of either type. Lobby receipts are always Ed25519.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <foyer/pass_verifier.hpp>

#include "core/base/bytes.hpp"
#include "core/base/p256.hpp"

namespace foyer::pass {

using seed_bytes = std::array<std::uint8_t, 32>;

enum class key_type { ed25519, es256 };

// The JWS alg of a key type: "EdDSA" or "ES256".
std::string_view jws_alg(key_type type);
// The key type of a JWS alg; throws std::invalid_argument naming the accepted ones.
key_type key_type_of(std::string_view alg);

// One key. The kid is base64url(first 12 bytes of SHA-256(public key)): 16 characters, stable
// for the key, and re-derived on load so a damaged key file cannot pair a kid with the wrong
// key. An ES256 key's public key for the kid is the uncompressed point 04 || x || y.
struct signing_key {
  key_type type = key_type::ed25519;
  std::string kid;
  // Ed25519: libsodium's layout, seed || public key. ES256: the private scalar (big-endian),
  // then zeros.
  std::array<std::uint8_t, 64> secret{};
  // Ed25519: the public key. ES256: the public point's x coordinate.
  std::array<std::uint8_t, 32> public_key{};
  std::array<std::uint8_t, 32> public_y{};  // ES256: the public point's y; zeros for Ed25519
  std::int64_t created_at = 0;  // unix seconds
  bool retired = false;         // retired keys sign nothing and are no longer published
};

std::string key_id(byte_view public_key);
// An ES256 key's public point, 04 || x || y.
p256_point es256_public_point(const signing_key& key);

// Deterministic from the seed (the Ed25519 seed or the P-256 private scalar); tests and the
// key file rely on that. Throws std::invalid_argument for a scalar outside [1, n-1].
signing_key key_from_seed(const seed_bytes& seed, std::int64_t created_at, key_type type = key_type::ed25519);
signing_key generate_key(std::int64_t now, key_type type = key_type::ed25519);

// The server's keys, oldest first. Invariant: at least one Ed25519 key is not retired, so
// there is always a key to sign receipts and passes with. Mutations throw
// std::invalid_argument with a message meant for the operator and leave the ring unchanged.
class keyring {
 public:
  // `first` must be an Ed25519 key.
  explicit keyring(signing_key first);

  // The newest Ed25519 key that is not retired: it signs lobby receipts.
  const signing_key& active() const;
  // The newest key that is not retired, of either type: new passes are signed with it.
  const signing_key& pass_signer() const;
  const std::vector<signing_key>& keys() const { return keys_; }

  // Rotation: the new key signs new passes; older keys stay published until retired, so the
  // passes they signed keep verifying until they expire.
  void add(signing_key key);
  // Stops publishing a key. Refuses unknown kids, keys already retired and the last
  // unretired Ed25519 key.
  void retire(std::string_view kid);

  // The server's VAPID key (RFC 8292), which signs its Web Push requests: ES256, never
  // published in the JWKS and never signing passes. Null in a ring from before Web Push.
  const signing_key* vapid() const { return vapid_ ? &*vapid_ : nullptr; }
  // Sets it; refuses a key that is not ES256 or is retired. A new VAPID key orphans every
  // push subscription made with the old one (browsers bind them to the key).
  void set_vapid(signing_key key);

  // The key file: JSON holding each key's type, seed (secret!), kid, creation time and state,
  // and the VAPID key under "vapid" if there is one.
  std::string encode() const;
  // Throws std::runtime_error naming the problem if the text is not a valid key file.
  static keyring decode(std::string_view text);

  // {"keys":[{"kty":"OKP","crv":"Ed25519","x":..,"kid":..,"alg":"EdDSA","use":"sig"},
  //          {"kty":"EC","crv":"P-256","x":..,"y":..,"kid":..,"alg":"ES256","use":"sig"},..]}
  // with every key that is not retired.
  std::string jwks_json() const;

 private:
  keyring() = default;
  void append(signing_key key);  // refuses a duplicate kid
  std::vector<signing_key> keys_;
  std::optional<signing_key> vapid_;
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

// Compact JWS over the given JSON texts, signed with the key (Ed25519, or ES256 with the
// 64-byte r || s signature of RFC 7518 §3.4). The texts are used verbatim.
std::string sign_jws(const signing_key& key, std::string_view header_json,
                     std::string_view payload_json);

// The pass: header {"alg":"EdDSA" or "ES256","typ":"JWT","kid":..}, payload with the claims
// above.
std::string sign_pass(const signing_key& key, const claims& c);

// ES256 for pass_verifier (OpenSSL): loads EC P-256 JWKs, checking that the point is on the
// curve, and verifies r || s signatures over SHA-256.
key_kind es256_key_kind();

}  // namespace foyer::pass
