#include "core/lanes/invite_token.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

#include "core/base/bytes.hpp"
#include "core/base/openssl_ptr.hpp"

namespace foyer::invite {

struct jwk_set::key {
  std::optional<std::string> kid;
  algorithm alg;
  std::size_t signature_bytes;
  pkey_ptr pkey;
};

namespace {

constexpr std::size_t ed25519_key_bytes = 32;
constexpr std::size_t ed25519_signature_bytes = 64;
constexpr std::size_t p256_coordinate_bytes = 32;
constexpr std::size_t es256_signature_bytes = 2 * p256_coordinate_bytes;
constexpr std::size_t max_rsa_exponent_bytes = 8;
constexpr std::int64_t max_numeric_date = 253402300799;  // 9999-12-31T23:59:59Z
constexpr std::uint8_t book_format = 1;

[[noreturn]] void bad_jwks(const std::string& what) { throw std::invalid_argument("invalid JWKS: " + what); }

std::string key_name(std::size_t index, std::optional<std::string_view> kid) {
  return "key " + std::to_string(index) + (kid ? " (kid \"" + std::string(*kid) + "\")" : std::string());
}

// Names must be unique: two parsers that pick different duplicates read different tokens.
bool unique_names(simdjson::dom::object object) {
  std::vector<std::string_view> names;
  for (auto [name, value] : object) names.push_back(name);
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) == names.end();
}

// A string member: absent is nullopt, another type is an error.
simdjson::error_code string_member(simdjson::dom::object object, std::string_view name,
                                   std::optional<std::string_view>& out) {
  auto member = object[name];
  if (member.error() == simdjson::NO_SUCH_FIELD) return simdjson::SUCCESS;
  std::string_view value;
  if (auto error = member.get_string().get(value)) return error;
  out = value;
  return simdjson::SUCCESS;
}

std::optional<byte_vector> decode_member(simdjson::dom::object object, std::string_view name) {
  std::optional<std::string_view> text;
  if (string_member(object, name, text) || !text) return std::nullopt;
  return base64url_decode(*text);
}

pkey_ptr from_params(const char* type, OSSL_PARAM_BLD* build) {
  param_ptr params(OSSL_PARAM_BLD_to_param(build));
  pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return pkey_ptr(raw);
}

pkey_ptr ed25519_key(simdjson::dom::object jwk) {
  auto x = decode_member(jwk, "x");
  if (!x || x->size() != ed25519_key_bytes) return nullptr;
  return pkey_ptr(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, x->data(), x->size()));
}

// OpenSSL refuses a point that is not on the curve.
pkey_ptr p256_key(simdjson::dom::object jwk) {
  auto x = decode_member(jwk, "x");
  auto y = decode_member(jwk, "y");
  if (!x || !y || x->size() != p256_coordinate_bytes || y->size() != p256_coordinate_bytes) return nullptr;
  byte_vector point{0x04};
  append(point, *x);
  append(point, *y);
  param_bld_ptr build(OSSL_PARAM_BLD_new());
  if (!build || !OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0) ||
      !OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size())) {
    return nullptr;
  }
  return from_params("EC", build.get());
}

pkey_ptr rsa_key(simdjson::dom::object jwk, std::size_t index, std::optional<std::string_view> kid) {
  auto n = decode_member(jwk, "n");
  auto e = decode_member(jwk, "e");
  if (!n || !e || n->empty() || e->empty() || e->size() > max_rsa_exponent_bytes) return nullptr;
  bignum_ptr modulus(BN_bin2bn(n->data(), static_cast<int>(n->size()), nullptr));
  bignum_ptr exponent(BN_bin2bn(e->data(), static_cast<int>(e->size()), nullptr));
  if (!modulus || !exponent) return nullptr;
  auto bits = static_cast<std::size_t>(BN_num_bits(modulus.get()));
  if (bits < min_rsa_bits || bits > max_rsa_bits) {
    bad_jwks(key_name(index, kid) + ": an RSA modulus of " + std::to_string(bits) + " bits (use " +
             std::to_string(min_rsa_bits) + " to " + std::to_string(max_rsa_bits) + ")");
  }
  if (!BN_is_odd(modulus.get()) || !BN_is_odd(exponent.get()) || BN_is_one(exponent.get())) return nullptr;
  param_bld_ptr build(OSSL_PARAM_BLD_new());
  if (!build || !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) ||
      !OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get())) {
    return nullptr;
  }
  return from_params("RSA", build.get());
}

// The algorithm a JWK's type pins, or nullopt for a type this checker does not load.
std::optional<algorithm> algorithm_of(std::string_view kty, std::optional<std::string_view> crv) {
  if (kty == "OKP" && crv == "Ed25519") return algorithm::eddsa;
  if (kty == "EC" && crv == "P-256") return algorithm::es256;
  if (kty == "RSA") return algorithm::rs256;
  return std::nullopt;
}

std::optional<algorithm> algorithm_named(std::string_view name) {
  for (auto alg : {algorithm::eddsa, algorithm::es256, algorithm::rs256}) {
    if (jws_name(alg) == name) return alg;
  }
  return std::nullopt;
}

// Loads one JWK; nullptr for a key this checker skips; throws for a broken key of a loaded type.
std::shared_ptr<jwk_set::key> load_key(simdjson::dom::element element, std::size_t index) {
  simdjson::dom::object jwk;
  if (element.get_object().get(jwk)) bad_jwks(key_name(index, std::nullopt) + " is not an object");
  std::optional<std::string_view> kty, crv, kid, use, alg_name;
  if (string_member(jwk, "kid", kid)) bad_jwks(key_name(index, std::nullopt) + ": kid is not a string");
  if (string_member(jwk, "kty", kty) || string_member(jwk, "crv", crv) || string_member(jwk, "use", use) ||
      string_member(jwk, "alg", alg_name) || !kty) {
    bad_jwks(key_name(index, kid) + ": kty, crv, use or alg is missing or not a string");
  }
  if (!unique_names(jwk)) bad_jwks(key_name(index, kid) + ": a member appears twice");
  auto alg = algorithm_of(*kty, crv);
  if (!alg || (use && *use != "sig")) return nullptr;
  if (alg_name && *alg_name != jws_name(*alg)) {
    bad_jwks(key_name(index, kid) + ": alg \"" + std::string(*alg_name) + "\" does not fit its kty (use " +
             std::string(jws_name(*alg)) + ")");
  }
  // A private part in the site's published keys is a leaked secret: say so rather than use it.
  for (std::string_view secret : {"d", "p", "q", "dp", "dq", "qi", "k"}) {
    if (jwk[secret].error() != simdjson::NO_SUCH_FIELD) {
      bad_jwks(key_name(index, kid) + ": holds a private part (\"" + std::string(secret) +
               "\"); publish the public key only");
    }
  }
  auto key = std::make_shared<jwk_set::key>();
  if (kid) key->kid = std::string(*kid);
  key->alg = *alg;
  switch (*alg) {
    case algorithm::eddsa:
      key->pkey = ed25519_key(jwk);
      key->signature_bytes = ed25519_signature_bytes;
      break;
    case algorithm::es256:
      key->pkey = p256_key(jwk);
      key->signature_bytes = es256_signature_bytes;
      break;
    case algorithm::rs256:
      key->pkey = rsa_key(jwk, index, kid);
      if (key->pkey) key->signature_bytes = static_cast<std::size_t>(EVP_PKEY_get_size(key->pkey.get()));
      break;
  }
  if (!key->pkey) bad_jwks(key_name(index, kid) + ": not a valid " + std::string(jws_name(*alg)) + " public key");
  return key;
}

// JWS carries ES256 as r || s (RFC 7518 §3.4); OpenSSL verifies DER.
std::optional<byte_vector> es256_der(byte_view raw) {
  bignum_ptr r(BN_bin2bn(raw.data(), p256_coordinate_bytes, nullptr));
  bignum_ptr s(BN_bin2bn(raw.data() + p256_coordinate_bytes, p256_coordinate_bytes, nullptr));
  ecdsa_sig_ptr sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return std::nullopt;
  r.release();  // owned by sig now
  s.release();
  int size = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (size <= 0) return std::nullopt;
  byte_vector der(static_cast<std::size_t>(size));
  unsigned char* cursor = der.data();
  i2d_ECDSA_SIG(sig.get(), &cursor);
  return der;
}

bool verify(const jwk_set::key& key, std::string_view signing_input, byte_view signature) {
  byte_vector der;
  if (key.alg == algorithm::es256) {
    auto converted = es256_der(signature);
    if (!converted) return false;
    der = std::move(*converted);
    signature = der;
  }
  md_ctx_ptr md(EVP_MD_CTX_new());
  // EdDSA hashes inside the algorithm: no digest is named for it.
  const EVP_MD* digest = key.alg == algorithm::eddsa ? nullptr : EVP_sha256();
  return md && EVP_DigestVerifyInit(md.get(), nullptr, digest, nullptr, key.pkey.get()) == 1 &&
         EVP_DigestVerify(md.get(), signature.data(), signature.size(),
                          reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
}

invite_error refuse(refusal code, std::string_view reason) { return {code, reason}; }

// A JSON object with unique names, parsed into `parser`.
std::optional<simdjson::dom::object> parse_object(simdjson::dom::parser& parser, byte_view bytes) {
  simdjson::padded_string padded(as_chars(bytes));
  simdjson::dom::object object;
  if (parser.parse(padded).get_object().get(object) || !unique_names(object)) {
    return std::nullopt;
  }
  return object;
}

// A NumericDate in unix milliseconds; nullopt when absent; an error for a non-integer or a
// date out of range.
struct date_member {
  bool ok = true;
  std::optional<std::int64_t> ms;
};
date_member read_date(simdjson::dom::object object, std::string_view name) {
  auto member = object[name];
  if (member.error() == simdjson::NO_SUCH_FIELD) return {};
  std::int64_t seconds = 0;
  if (member.get_int64().get(seconds) || seconds < 0 || seconds > max_numeric_date) return {false, std::nullopt};
  return {true, seconds * 1000};
}

bool bounded_string(std::optional<std::string_view> s, std::size_t max) { return s && !s->empty() && s->size() <= max; }

}  // namespace

std::string_view jws_name(algorithm alg) {
  switch (alg) {
    case algorithm::eddsa: return "EdDSA";
    case algorithm::es256: return "ES256";
    case algorithm::rs256: return "RS256";
  }
  return "unknown";
}

jwk_set jwk_set::parse(std::string_view jwks_json) {
  if (jwks_json.size() > max_jwks_bytes) {
    bad_jwks("over " + std::to_string(max_jwks_bytes) + " bytes (" + std::to_string(jwks_json.size()) + ")");
  }
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  simdjson::dom::array keys;
  simdjson::padded_string padded(jwks_json);
  if (parser.parse(padded).get_object().get(root)) bad_jwks("not a JSON object");
  if (root["keys"].get_array().get(keys)) bad_jwks("\"keys\" is missing or not an array");
  if (keys.size() > max_jwks_keys) {
    bad_jwks(std::to_string(keys.size()) + " keys (at most " + std::to_string(max_jwks_keys) + ")");
  }
  jwk_set set;
  std::size_t index = 0;
  for (auto element : keys) {
    if (auto key = load_key(element, index)) set.keys_.push_back(std::move(key));
    ++index;
  }
  if (set.keys_.empty()) bad_jwks("no key of a supported type (OKP Ed25519, EC P-256, RSA)");
  for (std::size_t i = 0; i < set.keys_.size(); ++i) {
    const auto& kid = set.keys_[i]->kid;
    if (!kid && set.keys_.size() > 1) bad_jwks("a key has no kid, which is required when there are several keys");
    for (std::size_t j = 0; j < i; ++j) {
      if (kid && set.keys_[j]->kid == kid) bad_jwks("two keys have the kid \"" + *kid + "\"");
    }
  }
  return set;
}

const jwk_set::key* jwk_set::find(const std::optional<std::string_view>& kid) const {
  if (!kid) return keys_.size() == 1 ? keys_.front().get() : nullptr;
  for (const auto& k : keys_) {
    if (k->kid == kid) return k.get();
  }
  return nullptr;
}

std::string_view to_string(refusal r) {
  switch (r) {
    case refusal::too_long: return "too_long";
    case refusal::malformed: return "malformed";
    case refusal::unsupported_alg: return "unsupported_alg";
    case refusal::forbidden_header: return "forbidden_header";
    case refusal::unknown_key: return "unknown_key";
    case refusal::bad_signature: return "bad_signature";
    case refusal::invalid_claims: return "invalid_claims";
    case refusal::wrong_room: return "wrong_room";
    case refusal::expired: return "expired";
    case refusal::not_yet_valid: return "not_yet_valid";
  }
  return "unknown";
}

std::variant<claims, invite_error> check_invite(std::string_view token, const jwk_set& keys,
                                                const expectations& expect) {
  if (token.size() > max_token_bytes) return refuse(refusal::too_long, "token over 4 KiB");
  auto first = token.find('.');
  auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return refuse(refusal::malformed, "not three segments");
  }
  std::string_view signing_input = token.substr(0, second);

  simdjson::dom::parser parser;
  auto header_bytes = base64url_decode(token.substr(0, first));
  if (!header_bytes) return refuse(refusal::malformed, "header is not base64url");
  auto header = parse_object(parser, *header_bytes);
  if (!header) return refuse(refusal::malformed, "header is not a JSON object");
  std::optional<std::string_view> alg_name, kid;
  if (string_member(*header, "alg", alg_name) || !alg_name) return refuse(refusal::malformed, "alg is missing");
  if (string_member(*header, "kid", kid)) return refuse(refusal::malformed, "kid is not a string");
  auto alg = algorithm_named(*alg_name);
  if (!alg) return refuse(refusal::unsupported_alg, "alg is not EdDSA, ES256 or RS256");
  for (std::string_view name : {"jwk", "jku", "x5u", "x5c", "crit"}) {
    if ((*header)[name].error() != simdjson::NO_SUCH_FIELD) {
      return refuse(refusal::forbidden_header, "header names a key or critical extension");
    }
  }
  const jwk_set::key* key = keys.find(kid);
  if (key == nullptr) return refuse(refusal::unknown_key, kid ? "kid names no key" : "no kid, and several keys");
  if (key->alg != *alg) return refuse(refusal::unsupported_alg, "alg is not the algorithm of the key");

  auto payload_bytes = base64url_decode(token.substr(first + 1, second - first - 1));
  auto signature = base64url_decode(token.substr(second + 1));
  if (!payload_bytes || !signature) return refuse(refusal::malformed, "claims or signature is not base64url");
  if (signature->size() != key->signature_bytes) return refuse(refusal::malformed, "signature has the wrong size");
  // The claims are read only once the signature vouches for them.
  if (!verify(*key, signing_input, *signature)) return refuse(refusal::bad_signature, "signature does not verify");

  auto payload = parse_object(parser, *payload_bytes);
  if (!payload) return refuse(refusal::malformed, "claims are not a JSON object");
  std::optional<std::string_view> sub, room, lane, jti;
  if (string_member(*payload, "sub", sub) || !bounded_string(sub, max_account_bytes)) {
    return refuse(refusal::invalid_claims, "sub is missing, empty or too long");
  }
  if (string_member(*payload, "room", room) || !room) return refuse(refusal::invalid_claims, "room is missing");
  if (string_member(*payload, "jti", jti) || !bounded_string(jti, max_jti_bytes)) {
    return refuse(refusal::invalid_claims, "jti is missing, empty or too long");
  }
  if (string_member(*payload, "lane", lane) || (lane && !bounded_string(lane, max_lane_bytes))) {
    return refuse(refusal::invalid_claims, "lane is not a short string");
  }
  bool agent = false;
  if (auto member = (*payload)["agent"]; member.error() != simdjson::NO_SUCH_FIELD && member.get_bool().get(agent)) {
    return refuse(refusal::invalid_claims, "agent is not a boolean");
  }
  auto exp = read_date(*payload, "exp");
  auto nbf = read_date(*payload, "nbf");
  auto iat = read_date(*payload, "iat");
  if (!exp.ok || !exp.ms) return refuse(refusal::invalid_claims, "exp is missing or not integer seconds");
  if (!nbf.ok || !iat.ok) return refuse(refusal::invalid_claims, "nbf or iat is not integer seconds");

  if (*room != expect.room) return refuse(refusal::wrong_room, "room is another room");
  if (expect.now_ms >= *exp.ms + expect.leeway_ms) return refuse(refusal::expired, "exp has passed");
  if (nbf.ms && expect.now_ms < *nbf.ms - expect.leeway_ms) return refuse(refusal::not_yet_valid, "nbf is ahead");
  if (iat.ms && *iat.ms > expect.now_ms + expect.leeway_ms) return refuse(refusal::not_yet_valid, "iat is ahead");

  claims out;
  out.account = std::string(*sub);
  out.room = std::string(*room);
  if (lane) out.lane = std::string(*lane);
  out.exp_ms = *exp.ms;
  out.jti = std::string(*jti);
  out.agent = agent;
  return out;
}

bool jti_book::seen(std::string_view jti) const { return until_.find(jti) != until_.end(); }

bool jti_book::record(std::string_view jti, std::int64_t exp_ms) {
  auto [it, fresh] = until_.try_emplace(std::string(jti), exp_ms);
  if (!fresh) return false;
  by_expiry_.emplace(exp_ms, it->first);
  return true;
}

std::size_t jti_book::forget_expired(std::int64_t now_ms) {
  std::size_t forgotten = 0;
  // A token is accepted while now < exp + leeway: from then on its jti can go.
  while (!by_expiry_.empty() && by_expiry_.begin()->first + leeway_ms_ <= now_ms) {
    until_.erase(by_expiry_.begin()->second);
    by_expiry_.erase(by_expiry_.begin());
    ++forgotten;
  }
  return forgotten;
}

void jti_book::encode(writer& w) const {
  w.u8(book_format);
  w.u64(by_expiry_.size());
  for (const auto& [exp_ms, jti] : by_expiry_) {
    w.i64(exp_ms);
    w.str(jti);
  }
}

bool jti_book::decode(reader& r) {
  if (r.u8() != book_format) return false;
  std::uint64_t count = r.u64();
  jti_book book(capacity_, leeway_ms_);
  // Each entry takes at least 12 bytes, so a damaged count cannot make the loop run long.
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    std::int64_t exp_ms = r.i64();
    std::string jti = r.str();
    if (r.failed() || exp_ms < 0 || exp_ms > max_numeric_date * 1000 || jti.empty() || jti.size() > max_jti_bytes ||
        !book.record(jti, exp_ms)) {
      return false;
    }
  }
  if (r.failed()) return false;
  *this = std::move(book);
  return true;
}

bool apply(jti_book& book, const invite_used& e) {
  book.forget_expired(e.at_ms);
  return book.record(e.jti, e.exp_ms);
}

}  // namespace foyer::invite
