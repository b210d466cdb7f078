#include "core/pass.hpp"

#include <sodium.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

#include "core/bytes.hpp"
#include "core/crypto.hpp"
#include "core/json.hpp"

namespace foyer::pass {
namespace {

static_assert(std::tuple_size_v<seed_bytes> == crypto_sign_SEEDBYTES);
static_assert(std::tuple_size_v<decltype(signing_key::secret)> == crypto_sign_SECRETKEYBYTES);
static_assert(std::tuple_size_v<decltype(signing_key::public_key)> == crypto_sign_PUBLICKEYBYTES);

constexpr std::size_t kid_hash_bytes = 12;
constexpr std::string_view keyring_format = "foyer-keyring-1";

[[noreturn]] void bad_file(std::string_view what) {
  throw std::runtime_error("invalid key file: " + std::string(what));
}

signing_key decode_key(simdjson::dom::element element) {
  simdjson::dom::object object;
  if (element.get_object().get(object)) bad_file("a key is not an object");
  std::string_view kid;
  std::string_view seed_text;
  std::int64_t created_at = 0;
  bool retired = false;
  unsigned seen = 0;  // one bit per field, to refuse duplicates and missing fields
  for (auto [name, value] : object) {
    simdjson::error_code error = simdjson::SUCCESS;
    unsigned bit = 0;
    if (name == "kid") {
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
  if (seen != 15) bad_file("a key lacks one of kid, seed, created_at, retired");
  auto seed = base64url_decode(seed_text);
  if (!seed || seed->size() != crypto_sign_SEEDBYTES) bad_file("key " + std::string(kid) + ": bad seed");
  seed_bytes seed_array;
  std::copy(seed->begin(), seed->end(), seed_array.begin());
  auto key = key_from_seed(seed_array, created_at);
  sodium_memzero(seed_array.data(), seed_array.size());
  sodium_memzero(seed->data(), seed->size());
  if (key.kid != kid) bad_file("key " + std::string(kid) + ": kid does not match its seed");
  key.retired = retired;
  return key;
}

}  // namespace

std::string key_id(const std::array<std::uint8_t, 32>& public_key) {
  auto hash = sha256(public_key);
  return base64url_encode(byte_view(hash.data(), kid_hash_bytes));
}

signing_key key_from_seed(const seed_bytes& seed, std::int64_t created_at) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  signing_key key;
  crypto_sign_seed_keypair(key.public_key.data(), key.secret.data(), seed.data());
  key.kid = key_id(key.public_key);
  key.created_at = created_at;
  return key;
}

signing_key generate_key(std::int64_t now) {
  auto seed = random_array<32>();
  auto key = key_from_seed(seed, now);
  sodium_memzero(seed.data(), seed.size());
  return key;
}

keyring::keyring(signing_key first) { add(std::move(first)); }

const signing_key& keyring::active() const {
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
  auto unretired = std::count_if(keys_.begin(), keys_.end(), [](const auto& k) { return !k.retired; });
  if (unretired == 1) {
    throw std::invalid_argument("key " + std::string(kid) +
                                " is the only active key; add a new key before retiring it");
  }
  it->retired = true;
}

std::string keyring::encode() const {
  std::string keys = "[";
  for (const auto& k : keys_) {
    if (keys.size() > 1) keys.push_back(',');
    // The seed is the first half of libsodium's secret key; the rest is derived from it.
    keys += "\n" + json_object()
                       .str("kid", k.kid)
                       .num("created_at", k.created_at)
                       .boolean("retired", k.retired)
                       .str("seed", base64url_encode(byte_view(k.secret.data(), crypto_sign_SEEDBYTES)))
                       .done();
  }
  keys += "\n]";
  return json_object().str("format", keyring_format).raw("keys", keys).done() + "\n";
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
  if (root.size() != 2) bad_file("unexpected top-level fields");
  keyring ring;
  for (auto element : keys) {
    try {
      ring.append(decode_key(element));
    } catch (const std::invalid_argument& e) {
      bad_file(e.what());
    }
  }
  if (std::none_of(ring.keys_.begin(), ring.keys_.end(), [](const auto& k) { return !k.retired; })) {
    bad_file("no active key (every key is retired)");
  }
  return ring;
}

std::string keyring::jwks_json() const {
  std::string keys = "[";
  for (const auto& k : keys_) {
    if (k.retired) continue;
    if (keys.size() > 1) keys.push_back(',');
    keys += json_object()
                .str("kty", "OKP")
                .str("crv", "Ed25519")
                .str("x", base64url_encode(k.public_key))
                .str("kid", k.kid)
                .str("alg", "EdDSA")
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
  std::array<std::uint8_t, crypto_sign_BYTES> signature;
  crypto_sign_detached(signature.data(), nullptr, reinterpret_cast<const unsigned char*>(out.data()),
                       out.size(), key.secret.data());
  out.push_back('.');
  out += base64url_encode(signature);
  return out;
}

std::string sign_pass(const signing_key& key, const claims& c) {
  auto header = json_object().str("alg", "EdDSA").str("typ", "JWT").str("kid", key.kid).done();
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

}  // namespace foyer::pass
