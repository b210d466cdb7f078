#include "core/base/crypto.hpp"

// The SHA256_* calls are deprecated in OpenSSL 3 in favour of EVP, but EVP copies a
// context through the provider (an allocation and a wipe per copy): a prepared HMAC
// key then costs more than the hashing, on every ticket poll and proof of work.
#define OPENSSL_API_COMPAT 10101
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <bit>
#include <cstring>
#include <stdexcept>

namespace foyer {
namespace {

constexpr std::size_t block_size = 64;
constexpr std::size_t length_bytes = 8;
// sha256_short takes messages below this: with the 0x80 byte and the length, one block.
constexpr std::size_t short_limit = block_size - length_bytes;

void check(int ok) {
  if (ok != 1) throw std::runtime_error("OpenSSL SHA-256 failed");
}

digest finish(SHA256_CTX& ctx) {
  digest out;
  check(SHA256_Final(out.data(), &ctx));
  return out;
}

}  // namespace

digest sha256(std::initializer_list<byte_view> parts) {
  // Most messages hashed here are one short part (a room id, a pass id): one block,
  // without OpenSSL's buffering and finalisation.
  if (parts.size() == 1 && parts.begin()->size() < short_limit) return sha256_short(*parts.begin());
  SHA256_CTX ctx;
  check(SHA256_Init(&ctx));
  for (auto part : parts) check(SHA256_Update(&ctx, part.data(), part.size()));
  return finish(ctx);
}

static_assert(sizeof(SHA256_CTX) <= sizeof(std::array<std::uint8_t, 112>) && alignof(SHA256_CTX) <= 8);

sha256_stream::sha256_stream() { check(SHA256_Init(reinterpret_cast<SHA256_CTX*>(state_.data()))); }

void sha256_stream::update(byte_view part) {
  check(SHA256_Update(reinterpret_cast<SHA256_CTX*>(state_.data()), part.data(), part.size()));
}

digest sha256_stream::finish() { return ::foyer::finish(*reinterpret_cast<SHA256_CTX*>(state_.data())); }

digest sha256_short(byte_view message) {
  if (message.size() >= short_limit) throw std::invalid_argument("sha256_short: message too long");
  // A proof of work checks eight of these per join: whole words in and out, not bytes.
  std::uint8_t block[block_size] = {};
  if (!message.empty()) std::memcpy(block, message.data(), message.size());
  block[message.size()] = 0x80;
  put_be64(block + block_size - length_bytes, std::uint64_t{message.size()} * 8);
  SHA256_CTX ctx;
  check(SHA256_Init(&ctx));
  SHA256_Transform(&ctx, block);
  digest out;
  for (std::size_t i = 0; i < 8; ++i) {
    std::uint32_t word = ctx.h[i];
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap32(word);
    std::memcpy(out.data() + 4 * i, &word, sizeof word);
  }
  return out;
}

struct hmac_key::state {
  SHA256_CTX inner;  // absorbed key ^ ipad
  SHA256_CTX outer;  // absorbed key ^ opad
  ~state() { OPENSSL_cleanse(this, sizeof *this); }
};

hmac_key::hmac_key(byte_view key) : state_(std::make_unique<state>()) {
  std::uint8_t block[block_size] = {};
  if (key.size() > block_size) {
    auto d = sha256(key);
    std::memcpy(block, d.data(), d.size());
  } else {
    std::memcpy(block, key.data(), key.size());
  }
  std::uint8_t pad[block_size];
  for (std::size_t i = 0; i < block_size; ++i) pad[i] = block[i] ^ 0x36;
  check(SHA256_Init(&state_->inner));
  check(SHA256_Update(&state_->inner, pad, block_size));
  for (std::size_t i = 0; i < block_size; ++i) pad[i] = block[i] ^ 0x5c;
  check(SHA256_Init(&state_->outer));
  check(SHA256_Update(&state_->outer, pad, block_size));
  OPENSSL_cleanse(block, sizeof block);
  OPENSSL_cleanse(pad, sizeof pad);
}

hmac_key::hmac_key(const hmac_key& other) : state_(std::make_unique<state>(*other.state_)) {}

hmac_key& hmac_key::operator=(const hmac_key& other) {
  if (this != &other) *this = hmac_key(other);
  return *this;
}

hmac_key::hmac_key(hmac_key&&) noexcept = default;
hmac_key& hmac_key::operator=(hmac_key&&) noexcept = default;
hmac_key::~hmac_key() = default;

digest hmac_key::mac(std::initializer_list<byte_view> parts) const {
  SHA256_CTX ctx = state_->inner;
  for (auto part : parts) check(SHA256_Update(&ctx, part.data(), part.size()));
  digest inner = finish(ctx);
  ctx = state_->outer;
  check(SHA256_Update(&ctx, inner.data(), inner.size()));
  return finish(ctx);
}

digest hmac_sha256(byte_view key, std::initializer_list<byte_view> parts) {
  return hmac_key(key).mac(parts);
}

bool equal_constant_time(byte_view a, byte_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace foyer
