#pragma once
// Offline verification of Foyer passes: a header-only check that a site embeds to admit the
// visitors Foyer let through, without ever calling Foyer.
//
// Depends on libsodium and the C++ standard library only (C++17 or later; link -lsodium).
//
// A pass is a compact JWT (RFC 7519) signed with Ed25519 ("alg":"EdDSA", RFC 8037). The
// public keys come from Foyer's JWKS (GET /.well-known/jwks.json, or a copy on disk).
//
// Contract of verify(): a pass is accepted only if all of these hold:
//   - it is at most max_token_size bytes, three base64url segments (no padding), the header
//     and claims are strict JSON objects (UTF-8, no duplicate names, bounded depth);
//   - the header carries none of jwk, jku, x5u, x5c, crit: keys come from the JWKS given
//     here, never from the token;
//   - its kid names a key of the JWKS, and its alg is exactly that key's algorithm: "EdDSA"
//     for Ed25519 keys. The key pins the algorithm, so no token can make the verifier use
//     another algorithm with that key;
//   - the signature verifies (checked before the claims are parsed);
//   - iss equals the expected issuer; aud equals the expected audience (the room id), or is
//     an array of strings containing it;
//   - now < exp + leeway, and now >= nbf - leeway when nbf is present;
//   - sub and jti are strings. Dates are integer seconds in [0, 253402300799].
//
// Errors. The constructor throws foyer::jwks_error for a JWKS that is not usable (too large,
// not JSON, a key without kid or with a bad x, a duplicate kid, a private key, no key of a
// known type at all) and std::invalid_argument for bad expectations or key kinds. verify() never throws for bad
// input; a refused pass has ok == false and error_code one of:
//   too_large        the token exceeds max_token_size
//   malformed        not three segments, bad base64url, bad JSON, not an object, bad signature size
//   unsupported_alg  alg is not the algorithm of a loaded key type (none, HS256, RS256, ... are
//                    all refused), or not the algorithm of the key named by kid
//   forbidden_header the header carries jwk, jku, x5u, x5c or crit
//   unknown_kid      no kid, or a kid that is not in the key set
//   bad_signature    the signature does not verify with the key named by kid
//   invalid_claims   a required claim (iss, aud, sub, exp, jti) is missing or has the wrong type
//   wrong_issuer     iss differs from the expected issuer
//   wrong_audience   aud does not contain the expected audience
//   expired          now >= exp + leeway
//   not_yet_valid    now < nbf - leeway
// Only std::bad_alloc can escape verify().
//
// Threading: a constructed verifier is immutable; verify() is const and may be called from
// any number of threads at once. To refresh keys, build a new verifier and swap it in.
//
// Example:
//   #include <foyer/pass_verifier.hpp>
//
//   foyer::pass_expectations expect;
//   expect.issuer = "https://queue.example.com";  // Foyer's configured issuer
//   expect.audience = "spring-sale";              // the room id
//   expect.leeway_seconds = 5;
//   const foyer::pass_verifier verifier(jwks_text, expect);  // once, at start
//
//   // per request, with the foyer_pass cookie or the Bearer token:
//   foyer::pass_verify_result r = verifier.verify(token, std::time(nullptr));
//   if (!r.ok) return redirect_to_waiting_room(r.error_code);
//   serve_visitor(r.subject);
//
// Other algorithms. A deployment may sign passes with ES256 (ECDSA P-256) for verifiers that
// lack EdDSA. This header stays libsodium-only: a caller that has ECDSA (OpenSSL, say) passes
// a key_kind that loads such JWKs and checks their signatures; the verifier then loads those
// keys too, pins each kid to its kind's algorithm and applies the same header and claims
// rules. Foyer's guard does that with OpenSSL (pass::es256_key_kind() in src/core/pass.hpp).

#include <sodium.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foyer {

struct pass_expectations {
  std::string issuer;               // Required: iss must equal it.
  std::string audience;             // Required: the room id that aud must name.
  std::int64_t leeway_seconds = 0;  // Default: 0. Clock skew tolerated on exp and nbf.
};

struct pass_verify_result {
  bool ok = false;
  std::string error_code;  // empty when ok
  std::string subject;     // sub: the visitor id (when ok)
  std::string jti;         // the pass id, for single-use checks (when ok)
  std::int64_t exp = 0;    // expiry in unix seconds, e.g. to bound a cache entry (when ok)
};

class jwks_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A public key loaded from the JWKS, for one algorithm. verify() is called from any thread
// that calls pass_verifier::verify(), so it must be safe to call concurrently.
class signature_key {
 public:
  virtual ~signature_key() = default;
  // `signature` has exactly the kind's signature_size bytes.
  virtual bool verify(std::string_view signing_input, std::string_view signature) const = 0;
};

// Reads a member of the JWK being loaded: nullptr when absent or not a string.
using jwk_member = std::function<const std::string*(std::string_view name)>;

// A type of key the verifier loads, and the one algorithm its tokens must name.
struct key_kind {
  std::string kty;                 // the JWK's kty, e.g. "EC"
  std::string crv;                 // the JWK's crv, e.g. "P-256"
  std::string alg;                 // e.g. "ES256"
  std::size_t signature_size = 0;  // bytes; a signature of another size is malformed
  // Builds the key from the JWK; throws jwks_error when its members are no valid public key.
  std::function<std::shared_ptr<const signature_key>(const jwk_member& member)> load;
};

namespace detail::jwt {

// A strict JSON reader, just enough for JWKS and JWT headers and claims (RFC 8259 grammar).
// Objects with duplicate names are refused (RFC 7515 §4 allows that and it removes any
// doubt about which value counts); so are deep nesting and very large objects.
struct json_value {
  enum class kind { null, boolean, number, string, array, object };
  kind type = kind::null;
  bool boolean = false;
  std::string text;               // a string's contents, or a number as written
  std::vector<json_value> items;  // array elements, or object member values
  std::vector<std::string> names;  // object member names, parallel to items

  const json_value* find(std::string_view name) const {
    if (type != kind::object) return nullptr;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return &items[i];
    }
    return nullptr;
  }
  const std::string* string_member(std::string_view name) const {
    const json_value* v = find(name);
    return v != nullptr && v->type == kind::string ? &v->text : nullptr;
  }
};

// Length of the well-formed UTF-8 sequence (RFC 3629) at the start of s, or 0.
inline std::size_t utf8_sequence_length(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (byte(0) < 0x80) return 1;
  if (byte(0) >= 0xc2 && byte(0) <= 0xdf) {
    n = 2;
    cp = byte(0) & 0x1fu;
  } else if (byte(0) >= 0xe0 && byte(0) <= 0xef) {
    n = 3;
    cp = byte(0) & 0x0fu;
  } else if (byte(0) >= 0xf0 && byte(0) <= 0xf4) {
    n = 4;
    cp = byte(0) & 0x07u;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (byte(i) & 0x3fu);
  }
  bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
  return overlong || surrogate || cp > 0x10ffff ? 0 : n;
}

inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | cp >> 6));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | cp >> 12));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | cp >> 18));
    out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

class json_reader {
 public:
  // JWKS: object > keys array > key object > key_ops array; JWT parts are flatter.
  static constexpr int max_depth = 8;
  // Bounds the quadratic duplicate check; real headers, claims and JWKs have about ten.
  static constexpr std::size_t max_members = 64;

  static std::optional<json_value> parse(std::string_view text) {
    json_reader reader(text);
    json_value out;
    if (!reader.value(out, 0)) return std::nullopt;
    reader.skip_space();
    if (reader.pos_ != text.size()) return std::nullopt;
    return out;
  }

 private:
  explicit json_reader(std::string_view text) : text_(text) {}

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool consume(char c) {
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  bool value(json_value& out, int depth) {
    skip_space();
    switch (peek()) {
      case '{':
        return depth < max_depth && object(out, depth);
      case '[':
        return depth < max_depth && array(out, depth);
      case '"':
        out.type = json_value::kind::string;
        return string(out.text);
      case 't':
        out.type = json_value::kind::boolean;
        out.boolean = true;
        return literal("true");
      case 'f':
        out.type = json_value::kind::boolean;
        return literal("false");
      case 'n':
        return literal("null");
      default:
        out.type = json_value::kind::number;
        return number(out.text);
    }
  }

  bool object(json_value& out, int depth) {
    out.type = json_value::kind::object;
    ++pos_;
    skip_space();
    if (consume('}')) return true;
    do {
      skip_space();
      std::string name;
      if (peek() != '"' || !string(name)) return false;
      if (out.find(name) != nullptr || out.names.size() == max_members) return false;
      skip_space();
      if (!consume(':')) return false;
      out.names.push_back(std::move(name));
      out.items.emplace_back();
      if (!value(out.items.back(), depth + 1)) return false;
      skip_space();
    } while (consume(','));
    return consume('}');
  }

  bool array(json_value& out, int depth) {
    out.type = json_value::kind::array;
    ++pos_;
    skip_space();
    if (consume(']')) return true;
    do {
      out.items.emplace_back();
      if (!value(out.items.back(), depth + 1)) return false;
      skip_space();
    } while (consume(','));
    return consume(']');
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool digits() {
    std::size_t start = pos_;
    while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    return pos_ > start;
  }

  bool number(std::string& out) {
    std::size_t start = pos_;
    consume('-');
    if (!consume('0') && !(peek() >= '1' && peek() <= '9' && digits())) return false;
    if (consume('.') && !digits()) return false;
    if (consume('e') || consume('E')) {
      if (!consume('+')) consume('-');
      if (!digits()) return false;
    }
    out.assign(text_.substr(start, pos_ - start));
    return true;
  }

  bool hex4(std::uint32_t& out) {
    if (text_.size() - pos_ < 4) return false;
    auto first = text_.data() + pos_;
    auto [end, ec] = std::from_chars(first, first + 4, out, 16);
    if (ec != std::errc() || end != first + 4) return false;
    pos_ += 4;
    return true;
  }

  bool escape(std::string& out) {
    char c = peek();
    ++pos_;
    switch (c) {
      case '"': out.push_back('"'); return true;
      case '\\': out.push_back('\\'); return true;
      case '/': out.push_back('/'); return true;
      case 'b': out.push_back('\b'); return true;
      case 'f': out.push_back('\f'); return true;
      case 'n': out.push_back('\n'); return true;
      case 'r': out.push_back('\r'); return true;
      case 't': out.push_back('\t'); return true;
      case 'u': break;
      default: return false;
    }
    std::uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xdc00 && cp <= 0xdfff) return false;  // a low surrogate alone
    if (cp >= 0xd800 && cp <= 0xdbff) {
      std::uint32_t low = 0;
      if (!literal("\\u") || !hex4(low) || low < 0xdc00 || low > 0xdfff) return false;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    append_utf8(out, cp);
    return true;
  }

  bool string(std::string& out) {
    ++pos_;  // the opening quote
    while (!at_end()) {
      auto c = static_cast<unsigned char>(peek());
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        ++pos_;
        if (at_end() || !escape(out)) return false;
      } else if (c < 0x20) {
        return false;
      } else {
        std::size_t n = utf8_sequence_length(text_.substr(pos_));
        if (n == 0) return false;
        out.append(text_.substr(pos_, n));
        pos_ += n;
      }
    }
    return false;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// RFC 4648 §5 without padding; libsodium refuses padding, foreign characters and non-zero
// trailing bits, so each byte string has exactly one accepted encoding.
inline std::optional<std::string> base64url_decode(std::string_view in) {
  std::string out(in.size() / 4 * 3 + 3, '\0');
  std::size_t length = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), in.data(),
                        in.size(), nullptr, &length, nullptr,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    return std::nullopt;
  }
  out.resize(length);
  return out;
}

// RFC 7519 NumericDate, restricted to whole seconds up to 9999-12-31T23:59:59Z so that adding
// a leeway can never overflow.
inline std::optional<std::int64_t> numeric_date(const json_value* v) {
  constexpr std::int64_t max_date = 253402300799;
  if (v == nullptr || v->type != json_value::kind::number) return std::nullopt;
  std::int64_t out = 0;
  auto first = v->text.data();
  auto last = first + v->text.size();
  auto [end, ec] = std::from_chars(first, last, out);
  if (ec != std::errc() || end != last || out < 0 || out > max_date) return std::nullopt;
  return out;
}

class ed25519_key final : public signature_key {
 public:
  explicit ed25519_key(const std::string& public_key) {
    std::copy(public_key.begin(), public_key.end(), public_key_.begin());
  }
  bool verify(std::string_view signing_input, std::string_view signature) const override {
    return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(signature.data()),
                                       reinterpret_cast<const unsigned char*>(signing_input.data()),
                                       signing_input.size(), public_key_.data()) == 0;
  }

 private:
  std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> public_key_{};
};

inline key_kind ed25519_kind() {
  key_kind kind{"OKP", "Ed25519", "EdDSA", crypto_sign_BYTES, nullptr};
  kind.load = [](const jwk_member& member) -> std::shared_ptr<const signature_key> {
    const std::string* x = member("x");
    auto public_key = x == nullptr ? std::nullopt : base64url_decode(*x);
    if (!public_key || public_key->size() != crypto_sign_PUBLICKEYBYTES) {
      throw jwks_error("JWKS: key " + *member("kid") + " has a bad x");
    }
    return std::make_shared<ed25519_key>(*public_key);
  };
  return kind;
}

}  // namespace detail::jwt

class pass_verifier {
 public:
  // Passes travel in cookies and headers; nothing legitimate comes near this.
  static constexpr std::size_t max_token_size = 8 * 1024;
  static constexpr std::size_t max_jwks_size = 64 * 1024;
  static constexpr std::size_t max_keys = 64;
  static constexpr std::int64_t max_leeway_seconds = 300;

  // `extra_kinds`: key types beyond Ed25519 (see "Other algorithms" above); their kty/crv
  // pairs must differ from each other and from OKP/Ed25519.
  pass_verifier(std::string_view jwks_json, pass_expectations expect, std::vector<key_kind> extra_kinds = {})
      : expect_(std::move(expect)) {
    using detail::jwt::json_value;
    kinds_.push_back(detail::jwt::ed25519_kind());
    for (key_kind& kind : extra_kinds) {
      if (kind.alg.empty() || kind.signature_size == 0 || !kind.load || find_kind(kind.kty, kind.crv) != nullptr) {
        throw std::invalid_argument("pass_verifier: key kind " + kind.kty + "/" + kind.crv +
                                    " is incomplete or repeats another");
      }
      kinds_.push_back(std::move(kind));
    }
    if (expect_.issuer.empty()) throw std::invalid_argument("pass_verifier: the issuer is empty");
    if (expect_.audience.empty()) throw std::invalid_argument("pass_verifier: the audience is empty");
    if (expect_.leeway_seconds < 0 || expect_.leeway_seconds > max_leeway_seconds) {
      throw std::invalid_argument("pass_verifier: leeway must be within 0.." +
                                  std::to_string(max_leeway_seconds) + " seconds");
    }
    if (sodium_init() < 0) throw std::runtime_error("pass_verifier: libsodium failed to initialise");
    if (jwks_json.size() > max_jwks_size) throw jwks_error("JWKS: larger than 64 KiB");
    auto root = detail::jwt::json_reader::parse(jwks_json);
    if (!root || root->type != json_value::kind::object) throw jwks_error("JWKS: not a JSON object");
    const json_value* keys = root->find("keys");
    if (keys == nullptr || keys->type != json_value::kind::array) {
      throw jwks_error("JWKS: \"keys\" is not an array");
    }
    for (const json_value& jwk : keys->items) add_key(jwk);
    if (keys_.empty()) throw jwks_error("JWKS: no signing key of a known type");
  }

  pass_verify_result verify(std::string_view token, std::int64_t now_seconds) const {
    using detail::jwt::json_value;
    pass_verify_result result;
    auto refuse = [&result](const char* code) {
      result.error_code = code;
      return result;
    };
    if (token.size() > max_token_size) return refuse("too_large");
    std::size_t dot1 = token.find('.');
    std::size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
    if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
      return refuse("malformed");
    }
    auto header_text = detail::jwt::base64url_decode(token.substr(0, dot1));
    if (!header_text) return refuse("malformed");
    auto header = detail::jwt::json_reader::parse(*header_text);
    if (!header || header->type != json_value::kind::object) return refuse("malformed");
    for (std::string_view name : {"jwk", "jku", "x5u", "x5c", "crit"}) {
      if (header->find(name) != nullptr) return refuse("forbidden_header");
    }
    const std::string* alg = header->string_member("alg");
    auto known_alg = [this](const std::string& name) {
      return std::any_of(kinds_.begin(), kinds_.end(), [&name](const key_kind& kind) { return kind.alg == name; });
    };
    if (alg == nullptr || !known_alg(*alg)) return refuse("unsupported_alg");
    const std::string* kid = header->string_member("kid");
    const key* k = kid == nullptr ? nullptr : find_key(*kid);
    if (k == nullptr) return refuse("unknown_kid");
    const key_kind& kind = kinds_[k->kind];
    if (*alg != kind.alg) return refuse("unsupported_alg");

    auto payload_text = detail::jwt::base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1));
    auto signature = detail::jwt::base64url_decode(token.substr(dot2 + 1));
    if (!payload_text || !signature || signature->size() != kind.signature_size) return refuse("malformed");
    if (!k->public_key->verify(token.substr(0, dot2), *signature)) return refuse("bad_signature");

    // The claims are parsed only once the signature vouches for them.
    auto payload = detail::jwt::json_reader::parse(*payload_text);
    if (!payload || payload->type != json_value::kind::object) return refuse("malformed");
    const std::string* iss = payload->string_member("iss");
    const json_value* aud = payload->find("aud");
    const std::string* sub = payload->string_member("sub");
    const std::string* jti = payload->string_member("jti");
    auto exp = detail::jwt::numeric_date(payload->find("exp"));
    const json_value* nbf_value = payload->find("nbf");
    auto nbf = detail::jwt::numeric_date(nbf_value);
    const json_value* iat_value = payload->find("iat");
    if (iss == nullptr || aud == nullptr || sub == nullptr || jti == nullptr || !exp ||
        (nbf_value != nullptr && !nbf) ||
        (iat_value != nullptr && !detail::jwt::numeric_date(iat_value))) {
      return refuse("invalid_claims");
    }
    if (*iss != expect_.issuer) return refuse("wrong_issuer");
    if (aud->type == json_value::kind::string) {
      if (aud->text != expect_.audience) return refuse("wrong_audience");
    } else if (aud->type == json_value::kind::array) {
      bool found = false;
      for (const json_value& item : aud->items) {
        if (item.type != json_value::kind::string) return refuse("invalid_claims");
        found = found || item.text == expect_.audience;
      }
      if (!found) return refuse("wrong_audience");
    } else {
      return refuse("invalid_claims");
    }
    if (now_seconds >= *exp + expect_.leeway_seconds) return refuse("expired");
    if (nbf && now_seconds < *nbf - expect_.leeway_seconds) return refuse("not_yet_valid");

    result.ok = true;
    result.subject = *sub;
    result.jti = *jti;
    result.exp = *exp;
    return result;
  }

  const pass_expectations& expectations() const { return expect_; }

  // The kids of the loaded keys, in JWKS order (for logs).
  std::vector<std::string> key_ids() const {
    std::vector<std::string> out;
    for (const key& k : keys_) out.push_back(k.kid);
    return out;
  }

 private:
  struct key {
    std::string kid;
    std::size_t kind = 0;  // index in kinds_
    std::shared_ptr<const signature_key> public_key;
  };

  const key_kind* find_kind(std::string_view kty, std::string_view crv) const {
    for (const key_kind& kind : kinds_) {
      if (kind.kty == kty && kind.crv == crv) return &kind;
    }
    return nullptr;
  }

  const key* find_key(std::string_view kid) const {
    for (const key& k : keys_) {
      if (k.kid == kid) return &k;
    }
    return nullptr;
  }

  // Loads a signing key of a known kind; other key types and encryption keys are skipped,
  // since this verifier never uses them.
  void add_key(const detail::jwt::json_value& jwk) {
    if (jwk.type != detail::jwt::json_value::kind::object) throw jwks_error("JWKS: a key is not an object");
    if (jwk.find("d") != nullptr) throw jwks_error("JWKS: contains a private key; publish public keys only");
    const std::string* kty = jwk.string_member("kty");
    const std::string* crv = jwk.string_member("crv");
    const std::string* use = jwk.string_member("use");
    const key_kind* kind = kty == nullptr || crv == nullptr ? nullptr : find_kind(*kty, *crv);
    if (kind == nullptr) return;
    if (jwk.find("use") != nullptr && (use == nullptr || *use != "sig")) return;
    const std::string* alg = jwk.string_member("alg");
    const std::string* kid = jwk.string_member("kid");
    if (jwk.find("alg") != nullptr && (alg == nullptr || *alg != kind->alg)) {
      throw jwks_error("JWKS: a " + kind->crv + " key declares an algorithm other than " + kind->alg);
    }
    if (kid == nullptr || kid->empty()) throw jwks_error("JWKS: a " + kind->crv + " key has no kid");
    if (find_key(*kid) != nullptr) throw jwks_error("JWKS: duplicate kid " + *kid);
    if (keys_.size() == max_keys) throw jwks_error("JWKS: more than 64 signing keys");
    auto public_key = kind->load([&jwk](std::string_view name) { return jwk.string_member(name); });
    keys_.push_back({*kid, static_cast<std::size_t>(kind - kinds_.data()), std::move(public_key)});
  }

  pass_expectations expect_;
  std::vector<key_kind> kinds_;  // Ed25519 first, then the caller's
  std::vector<key> keys_;
};

}  // namespace foyer
