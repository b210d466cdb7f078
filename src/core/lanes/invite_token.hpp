#pragma once
// Invite tokens: a shop's site signs a JWT (compact JWS, RFC 7515/7519) that lets one of its
// accounts into an invite-only room or lane. Foyer checks it offline against the site's JWK
// Set (RFC 7517), given here as JSON text (configured inline or fetched elsewhere), and
// remembers each token's jti so that an invite is used once.
//
// Pure logic, no I/O. A parsed jwk_set is immutable; check_invite() is a pure function and
// may be called from any thread. A jti_book is owned by the event loop like the rest of a
// room's state.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/base/codec.hpp"

namespace foyer::invite {

// Apply a reasonable limit to what a site's configuration and its tokens may cost to read.
inline constexpr std::size_t max_jwks_bytes = 64 * 1024;
inline constexpr std::size_t max_jwks_keys = 32;
inline constexpr std::size_t max_token_bytes = 4 * 1024;
inline constexpr std::size_t max_account_bytes = 256;
inline constexpr std::size_t max_jti_bytes = 128;
inline constexpr std::size_t max_lane_bytes = 128;
inline constexpr std::size_t min_rsa_bits = 2048;
// An RSA verification costs time in the modulus size: a site has no reason to go past this.
inline constexpr std::size_t max_rsa_bits = 8192;
inline constexpr std::int64_t default_leeway_ms = 30'000;

// The signature algorithms a token may name. Each key pins exactly one of them.
enum class algorithm { eddsa, es256, rs256 };
std::string_view jws_name(algorithm alg);  // "EdDSA", "ES256", "RS256"

// A site's public keys.
//
// parse() reads {"keys":[...]} and loads the keys of kty OKP/crv Ed25519 (EdDSA), kty EC/crv
// P-256 (ES256) and kty RSA (RS256, modulus of min_rsa_bits to max_rsa_bits). Keys of other
// types or curves, and keys whose "use" is not "sig", are skipped. It throws
// std::invalid_argument with a message for the operator when the text is over max_jwks_bytes,
// not a JWKS, holds more than max_jwks_keys keys, a key of a loaded type is not a valid public
// key (bad coordinates, a weak or huge RSA modulus, a private part, an "alg" that is not its
// type's), two loaded keys share a kid, a kid is missing while more than one key is loaded,
// or no key is loaded at all.
//
// Copies share the loaded keys.
class jwk_set {
 public:
  struct key;  // kid, algorithm and the OpenSSL key; defined in invite_token.cpp

  static jwk_set parse(std::string_view jwks_json);

  std::size_t size() const { return keys_.size(); }
  // The key a token's header names: by kid, or the only key when the header has no kid.
  // nullptr when there is no such key.
  const key* find(const std::optional<std::string_view>& kid) const;

 private:
  std::vector<std::shared_ptr<const key>> keys_;
};

struct expectations {
  std::string_view room;                       // Required: the token's "room" must equal it.
  std::int64_t now_ms = 0;                     // Required: wall clock, unix milliseconds.
  std::int64_t leeway_ms = default_leeway_ms;  // Default: 30 s. Clock skew tolerated on exp, nbf, iat.
};

// What an accepted token says.
struct claims {
  std::string account;              // sub: the site's account id
  std::string room;                 // room: the room it invites to (equals the expected room)
  std::optional<std::string> lane;  // lane: the lane inside the room, if any
  std::int64_t exp_ms = 0;          // exp, in unix milliseconds
  std::string jti;                  // the token's id: single use through a jti_book
  bool agent = false;               // agent: the account is an automated agent
};

// Why a token is refused.
//   too_long         over max_token_bytes
//   malformed        not three base64url segments, header or claims not a JSON object with
//                    unique names, a signature of the wrong size
//   unsupported_alg  alg is none, HS*, anything but EdDSA/ES256/RS256, or not the algorithm of
//                    the key the kid names (alg/kty confusion)
//   forbidden_header the header carries jwk, jku, x5u, x5c or crit: keys come from the JWKS only
//   unknown_key      the kid names no key, or the header has no kid and the set has several
//   bad_signature    the signature does not verify (checked before the claims are read)
//   invalid_claims   sub, room, exp or jti missing, of the wrong type, empty or too long;
//                    lane, nbf, iat or agent of the wrong type. Dates are integer seconds.
//   wrong_room       room is not the expected room
//   expired          now >= exp + leeway
//   not_yet_valid    now < nbf - leeway, or iat > now + leeway
enum class refusal {
  too_long,
  malformed,
  unsupported_alg,
  forbidden_header,
  unknown_key,
  bad_signature,
  invalid_claims,
  wrong_room,
  expired,
  not_yet_valid,
};
std::string_view to_string(refusal r);

struct invite_error {
  refusal code;
  std::string_view reason;  // a short static text naming the check, e.g. "exp is missing"
};

// Checks a token in this order: size, form, header, key, signature, claims, dates.
// Never throws for bad input (only std::bad_alloc escapes).
std::variant<claims, invite_error> check_invite(std::string_view token, const jwk_set& keys,
                                                const expectations& expect);

// The jti of each invite used in one room, kept until the token could no longer be accepted
// (exp + leeway), so that a token is used once.
//
// Bound: at most `capacity` jtis (default 65,536: under 30 MiB even with 128-byte jtis, each
// held twice, for lookup and in expiry order). At the bound the room refuses new invites
// (full() is true after forget_expired(now)) rather than forget a jti that is still live:
// forgetting one early would let its token in again. The bound is checked where an invite is
// decided; record() itself never drops or refuses a fresh jti, so a use already committed is
// always remembered, and the book exceeds its capacity by at most the uses in flight between
// decision and commit.
class jti_book {
 public:
  static constexpr std::size_t default_capacity = 65'536;

  explicit jti_book(std::size_t capacity = default_capacity, std::int64_t leeway_ms = default_leeway_ms)
      : capacity_(capacity), leeway_ms_(leeway_ms) {}

  bool seen(std::string_view jti) const;
  bool full() const { return until_.size() >= capacity_; }
  std::size_t size() const { return until_.size(); }
  // Remembers jti until exp_ms + leeway; false (and no change) when it is already there.
  bool record(std::string_view jti, std::int64_t exp_ms);
  // Forgets the jtis whose tokens have expired beyond the leeway at now_ms; returns how many.
  std::size_t forget_expired(std::int64_t now_ms);

  // Snapshot encoding: the jtis with their exp, in expiry order (equal books, equal bytes).
  // Capacity and leeway are configuration and are not encoded.
  void encode(writer& w) const;
  // Restores what encode wrote; false (book unchanged) on damaged or foreign input.
  bool decode(reader& r);

  friend bool operator==(const jti_book& a, const jti_book& b) { return a.until_ == b.until_; }

 private:
  std::size_t capacity_;
  std::int64_t leeway_ms_;
  std::map<std::string, std::int64_t, std::less<>> until_;    // jti -> exp_ms
  std::set<std::pair<std::int64_t, std::string>> by_expiry_;  // (exp_ms, jti), for forgetting
};

// The event of an invite used: the room's book remembers its jti.
struct invite_used {
  std::string room;
  std::string jti;
  std::int64_t exp_ms = 0;
  std::int64_t at_ms = 0;  // when it was used; the book forgets what expired by then
};

// Applies e to the book of e.room. Returns false, changing nothing but forgetting expired
// jtis, when the jti was already used: replaying an event or a retried commit of the same
// invite uses it once.
bool apply(jti_book& book, const invite_used& e);

}  // namespace foyer::invite
