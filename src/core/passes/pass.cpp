#include "core/passes/pass.hpp"

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <simdjson.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "core/base/openssl_ptr.hpp"

namespace foyer::pass {
namespace {

static_assert(std::tuple_size_v<seed_bytes> == crypto_sign_SEEDBYTES);
static_assert(std::tuple_size_v<decltype(signing_key::secret)> == crypto_sign_SECRETKEYBYTES);
static_assert(std::tuple_size_v<decltype(signing_key::public_key)> == crypto_sign_PUBLICKEYBYTES);

constexpr std::size_t kid_hash_bytes = 12;
constexpr std::string_view keyring_format = "foyer-keyring-1";
constexpr std::size_t es256_signature_bytes = 2 * p256_coordinate_bytes;

std::array<std::uint8_t, es256_signature_bytes> es256_sign(const signing_key& key, std::string_view input) {
  auto pkey = p256_pkey(es256_public_point(key), key.secret.data());
  md_ctx_ptr md(EVP_MD_CTX_new());
  openssl_check(pkey && md && EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, pkey.get()) == 1,
                "ES256 signing set-up");
  auto data = reinterpret_cast<const unsigned char*>(input.data());
  std::size_t der_size = 0;
  openssl_check(EVP_DigestSign(md.get(), nullptr, &der_size, data, input.size()) == 1, "ES256 signing");
  std::vector<unsigned char> der(der_size);
  openssl_check(EVP_DigestSign(md.get(), der.data(), &der_size, data, input.size()) == 1, "ES256 signing");
  // JWS wants r || s, each left-padded to 32 bytes (RFC 7518 §3.4), not OpenSSL's DER.
  const unsigned char* cursor = der.data();
  ecdsa_sig_ptr sig(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der_size)));
  openssl_check(sig != nullptr, "ES256 signature decoding");
  std::array<std::uint8_t, es256_signature_bytes> out{};
  openssl_check(BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), out.data(), p256_coordinate_bytes) == p256_coordinate_bytes &&
                    BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), out.data() + p256_coordinate_bytes,
                                 p256_coordinate_bytes) == p256_coordinate_bytes,
                "ES256 signature encoding");
  return out;
}

class es256_public_key final : public signature_key {
 public:
  explicit es256_public_key(pkey_ptr pkey) : pkey_(std::move(pkey)) {}

  bool verify(std::string_view signing_input, std::string_view signature) const override {
    auto bytes = reinterpret_cast<const unsigned char*>(signature.data());
    bignum_ptr r(BN_bin2bn(bytes, p256_coordinate_bytes, nullptr));
    bignum_ptr s(BN_bin2bn(bytes + p256_coordinate_bytes, p256_coordinate_bytes, nullptr));
    ecdsa_sig_ptr sig(ECDSA_SIG_new());
    if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return false;
    r.release();  // owned by sig now
    s.release();
    int der_size = i2d_ECDSA_SIG(sig.get(), nullptr);
    if (der_size <= 0) return false;
    std::vector<unsigned char> der(static_cast<std::size_t>(der_size));
    unsigned char* cursor = der.data();
    i2d_ECDSA_SIG(sig.get(), &cursor);
    md_ctx_ptr md(EVP_MD_CTX_new());
    // OpenSSL refuses r or s outside [1, n-1].
    return md && EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, pkey_.get()) == 1 &&
           EVP_DigestVerify(md.get(), der.data(), der.size(), reinterpret_cast<const unsigned char*>(signing_input.data()),
                            signing_input.size()) == 1;
  }

 private:
  pkey_ptr pkey_;
};

[[noreturn]] void bad_file(std::string_view what) {
  throw std::runtime_error("invalid key file: " + std::string(what));
}

signing_key decode_key(simdjson::dom::element element) {
  simdjson::dom::object object;
  if (element.get_object().get(object)) bad_file("a key is not an object");
  std::string_view kid;
  std::string_view seed_text;
  std::string_view alg = jws_alg(key_type::ed25519);  // key files from before ES256 have no alg
  std::int64_t created_at = 0;
  bool retired = false;
  unsigned seen = 0;  // one bit per field, to refuse duplicates and missing fields
  constexpr unsigned required = 15;
  for (auto [name, value] : object) {
    simdjson::error_code error = simdjson::SUCCESS;
    unsigned bit = 0;
    if (name == "alg") {
      bit = 16;
      error = value.get_string().get(alg);
    } else if (name == "kid") {
      bit = 1;
      error = value.get_string().get(kid);
    } else if (name == "seed") {
      bit = 2;
      error = value.get_string().get(seed_text);
    } else if (name == "created_at") {
      bit = 4;
      error = value.get_int64().get(created_at);
    } else if (name == "retired") {
      bit = 8;
      error = value.get_bool().get(retired);
    } else {
      bad_file("unknown key field \"" + std::string(name) + "\"");
    }
    if (error) bad_file("key field \"" + std::string(name) + "\" has the wrong type");
    if (seen & bit) bad_file("key field \"" + std::string(name) + "\" appears twice");
    seen |= bit;
  }
  if ((seen & required) != required) bad_file("a key lacks one of kid, seed, created_at, retired");
  key_type type = key_type::ed25519;
  try {
    type = key_type_of(alg);
  } catch (const std::invalid_argument& e) {
    bad_file("key " + std::string(kid) + ": " + e.what());
  }
  auto seed = base64url_decode(seed_text);
  if (!seed || seed->size() != std::tuple_size_v<seed_bytes>) bad_file("key " + std::string(kid) + ": bad seed");
  seed_bytes seed_array;
  std::copy(seed->begin(), seed->end(), seed_array.begin());
  sodium_memzero(seed->data(), seed->size());
  signing_key key;
  try {
    key = key_from_seed(seed_array, created_at, type);
  } catch (const std::invalid_argument& e) {
    sodium_memzero(seed_array.data(), seed_array.size());
    bad_file("key " + std::string(kid) + ": " + e.what());
  }
  sodium_memzero(seed_array.data(), seed_array.size());
  if (key.kid != kid) bad_file("key " + std::string(kid) + ": kid does not match its seed");
  key.retired = retired;
  return key;
}

// The seed is the first half of libsodium's secret key; the rest is derived from it.
std::string encode_key(const signing_key& k) {
  return json_object()
      .str("kid", k.kid)
      .str("alg", jws_alg(k.type))
      .num("created_at", k.created_at)
      .boolean("retired", k.retired)
      .str("seed", base64url_encode(byte_view(k.secret.data(), std::tuple_size_v<seed_bytes>)))
      .done();
}

}  // namespace

std::string_view jws_alg(key_type type) { return type == key_type::es256 ? "ES256" : "EdDSA"; }

key_type key_type_of(std::string_view alg) {
  for (auto type : {key_type::ed25519, key_type::es256}) {
    if (alg == jws_alg(type)) return type;
  }
  throw std::invalid_argument("unknown key algorithm \"" + std::string(alg) + "\" (use EdDSA or ES256)");
}

std::string key_id(byte_view public_key) {
  auto hash = sha256(public_key);
  return base64url_encode(byte_view(hash.data(), kid_hash_bytes));
}

p256_point es256_public_point(const signing_key& key) {
  p256_point point{0x04};
  std::copy(key.public_key.begin(), key.public_key.end(), point.begin() + 1);
  std::copy(key.public_y.begin(), key.public_y.end(), point.begin() + 1 + p256_coordinate_bytes);
  return point;
}

signing_key key_from_seed(const seed_bytes& seed, std::int64_t created_at, key_type type) {
  signing_key key;
  key.type = type;
  key.created_at = created_at;
  if (type == key_type::es256) {
    auto point = p256_public_point(seed);
    std::copy(seed.begin(), seed.end(), key.secret.begin());
    std::copy_n(point.begin() + 1, p256_coordinate_bytes, key.public_key.begin());
    std::copy_n(point.begin() + 1 + p256_coordinate_bytes, p256_coordinate_bytes, key.public_y.begin());
    key.kid = key_id(point);
    return key;
  }
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  crypto_sign_seed_keypair(key.public_key.data(), key.secret.data(), seed.data());
  key.kid = key_id(key.public_key);
  return key;
}

signing_key generate_key(std::int64_t now, key_type type) {
  for (;;) {
    auto seed = random_array<32>();
    try {
      auto key = key_from_seed(seed, now, type);
      sodium_memzero(seed.data(), seed.size());
      return key;
    } catch (const std::invalid_argument&) {
      // A P-256 scalar beyond the group order: about one draw in 2^32; draw again.
      sodium_memzero(seed.data(), seed.size());
    }
  }
}

keyring::keyring(signing_key first) {
  if (first.type != key_type::ed25519) throw std::invalid_argument("the first key of a key ring must be Ed25519");
  add(std::move(first));
}

const signing_key& keyring::active() const {
  auto it = std::find_if(keys_.rbegin(), keys_.rend(),
                         [](const auto& k) { return !k.retired && k.type == key_type::ed25519; });
  return *it;  // the class invariant guarantees one
}

const signing_key& keyring::pass_signer() const {
  auto it = std::find_if(keys_.rbegin(), keys_.rend(), [](const auto& k) { return !k.retired; });
  return *it;  // the class invariant guarantees one
}

void keyring::add(signing_key key) {
  if (key.retired) throw std::invalid_argument("a retired key cannot be added");
  append(std::move(key));
}

void keyring::append(signing_key key) {
  for (const auto& k : keys_) {
    if (k.kid == key.kid) throw std::invalid_argument("key " + key.kid + " is already in the key ring");
  }
  keys_.push_back(std::move(key));
}

void keyring::retire(std::string_view kid) {
  auto it = std::find_if(keys_.begin(), keys_.end(), [&](const auto& k) { return k.kid == kid; });
  if (it == keys_.end()) throw std::invalid_argument("no key with kid " + std::string(kid));
  if (it->retired) throw std::invalid_argument("key " + std::string(kid) + " is already retired");
  auto unretired_ed25519 = std::count_if(keys_.begin(), keys_.end(), [](const auto& k) {
    return !k.retired && k.type == key_type::ed25519;
  });
  if (it->type == key_type::ed25519 && unretired_ed25519 == 1) {
    throw std::invalid_argument("key " + std::string(kid) +
                                " is the only active Ed25519 key (it signs lobby receipts); add a new key "
                                "before retiring it");
  }
  it->retired = true;
}

void keyring::set_vapid(signing_key key) {
  if (key.type != key_type::es256 || key.retired) throw std::invalid_argument("a VAPID key must be an active ES256 key");
  vapid_ = std::move(key);
}

std::string keyring::encode() const {
  std::string keys = "[";
  for (const auto& k : keys_) {
    if (keys.size() > 1) keys.push_back(',');
    keys += '\n';
    keys += encode_key(k);
  }
  keys += "\n]";
  auto file = json_object().str("format", keyring_format).raw("keys", keys);
  if (vapid_) file.raw("vapid", encode_key(*vapid_));
  return file.done() + "\n";
}

keyring keyring::decode(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(text.data(), text.size()).get_object().get(root)) bad_file("not a JSON object");
  std::string_view format;
  if (root["format"].get_string().get(format) || format != keyring_format) {
    bad_file("format is not \"" + std::string(keyring_format) + "\"");
  }
  simdjson::dom::array keys;
  if (root["keys"].get_array().get(keys)) bad_file("\"keys\" is not an array");
  simdjson::dom::element vapid;
  bool has_vapid = root["vapid"].get(vapid) == simdjson::SUCCESS;
  if (root.size() != (has_vapid ? 3 : 2)) bad_file("unexpected top-level fields");
  keyring ring;
  if (has_vapid) {
    try {
      ring.set_vapid(decode_key(vapid));
    } catch (const std::invalid_argument& e) {
      bad_file(std::string("vapid: ") + e.what());
    }
  }
  for (auto element : keys) {
    try {
      ring.append(decode_key(element));
    } catch (const std::invalid_argument& e) {
      bad_file(e.what());
    }
  }
  if (std::none_of(ring.keys_.begin(), ring.keys_.end(),
                   [](const auto& k) { return !k.retired && k.type == key_type::ed25519; })) {
    bad_file("no active Ed25519 key (every one is retired)");
  }
  return ring;
}

std::string keyring::jwks_json() const {
  std::string keys = "[";
  for (const auto& k : keys_) {
    if (k.retired) continue;
    if (keys.size() > 1) keys.push_back(',');
    if (k.type == key_type::es256) {
      keys += json_object()
                  .str("kty", "EC")
                  .str("crv", "P-256")
                  .str("x", base64url_encode(k.public_key))
                  .str("y", base64url_encode(k.public_y))
                  .str("kid", k.kid)
                  .str("alg", jws_alg(k.type))
                  .str("use", "sig")
                  .done();
      continue;
    }
    keys += json_object()
                .str("kty", "OKP")
                .str("crv", "Ed25519")
                .str("x", base64url_encode(k.public_key))
                .str("kid", k.kid)
                .str("alg", jws_alg(k.type))
                .str("use", "sig")
                .done();
  }
  keys.push_back(']');
  return json_object().raw("keys", keys).done();
}

std::string sign_jws(const signing_key& key, std::string_view header_json,
                     std::string_view payload_json) {
  std::string out = base64url_encode(as_bytes(header_json));
  out.push_back('.');
  out += base64url_encode(as_bytes(payload_json));
  if (key.type == key_type::es256) {
    auto signature = es256_sign(key, out);
    out.push_back('.');
    out += base64url_encode(signature);
    return out;
  }
  std::array<std::uint8_t, crypto_sign_BYTES> signature;
  crypto_sign_detached(signature.data(), nullptr, reinterpret_cast<const unsigned char*>(out.data()),
                       out.size(), key.secret.data());
  out.push_back('.');
  out += base64url_encode(signature);
  return out;
}

std::string sign_pass(const signing_key& key, const claims& c) {
  auto header = json_object().str("alg", jws_alg(key.type)).str("typ", "JWT").str("kid", key.kid).done();
  auto payload = json_object()
                     .str("iss", c.issuer)
                     .str("aud", c.audience)
                     .str("sub", c.subject)
                     .num("iat", c.issued_at)
                     .num("nbf", c.not_before)
                     .num("exp", c.expires_at)
                     .str("jti", c.jti)
                     .done();
  return sign_jws(key, header, payload);
}

key_kind es256_key_kind() {
  key_kind kind{"EC", "P-256", std::string(jws_alg(key_type::es256)), es256_signature_bytes, nullptr};
  kind.load = [](const jwk_member& member) -> std::shared_ptr<const signature_key> {
    const std::string* kid = member("kid");
    auto bad = [&](std::string_view what) {
      return jwks_error("JWKS: P-256 key " + *kid + " " + std::string(what));
    };
    p256_point point{0x04};
    std::size_t offset = 1;
    for (std::string_view name : {"x", "y"}) {
      const std::string* text = member(name);
      auto coordinate = text == nullptr ? std::nullopt : base64url_decode(*text);
      if (!coordinate || coordinate->size() != p256_coordinate_bytes) throw bad("has a bad " + std::string(name));
      std::copy(coordinate->begin(), coordinate->end(), point.begin() + static_cast<std::ptrdiff_t>(offset));
      offset += p256_coordinate_bytes;
    }
    auto pkey = p256_pkey(point, nullptr);
    if (!pkey) throw bad("is not a point on the curve");
    return std::make_shared<es256_public_key>(std::move(pkey));
  };
  return kind;
}

}  // namespace foyer::pass
