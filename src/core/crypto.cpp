#include "core/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>
#include <stdexcept>

namespace foyer {
namespace {

constexpr std::size_t block_size = 64;

const EVP_MD* sha256_md() {
  // Fetched once: an implicit fetch per call costs more than hashing a block.
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) throw std::runtime_error("OpenSSL has no SHA-256");
  return md;
}

struct md_ctx_deleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using md_ctx = std::unique_ptr<EVP_MD_CTX, md_ctx_deleter>;

md_ctx new_ctx() {
  md_ctx ctx(EVP_MD_CTX_new());
  if (!ctx) throw std::bad_alloc();
  return ctx;
}

void check(int ok) {
  if (ok != 1) throw std::runtime_error("OpenSSL SHA-256 failed");
}

digest finish(EVP_MD_CTX* ctx) {
  digest out;
  unsigned int len = 0;
  check(EVP_DigestFinal_ex(ctx, out.data(), &len));
  return out;
}

thread_local md_ctx scratch = new_ctx();

}  // namespace

digest sha256(std::initializer_list<byte_view> parts) {
  EVP_MD_CTX* ctx = scratch.get();
  check(EVP_DigestInit_ex(ctx, sha256_md(), nullptr));
  for (auto part : parts) check(EVP_DigestUpdate(ctx, part.data(), part.size()));
  return finish(ctx);
}

struct hmac_key::state {
  md_ctx inner = new_ctx();  // absorbed key ^ ipad
  md_ctx outer = new_ctx();  // absorbed key ^ opad
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
  check(EVP_DigestInit_ex(state_->inner.get(), sha256_md(), nullptr));
  check(EVP_DigestUpdate(state_->inner.get(), pad, block_size));
  for (std::size_t i = 0; i < block_size; ++i) pad[i] = block[i] ^ 0x5c;
  check(EVP_DigestInit_ex(state_->outer.get(), sha256_md(), nullptr));
  check(EVP_DigestUpdate(state_->outer.get(), pad, block_size));
  OPENSSL_cleanse(block, sizeof block);
  OPENSSL_cleanse(pad, sizeof pad);
}

hmac_key::hmac_key(const hmac_key& other) : state_(std::make_unique<state>()) {
  check(EVP_MD_CTX_copy_ex(state_->inner.get(), other.state_->inner.get()));
  check(EVP_MD_CTX_copy_ex(state_->outer.get(), other.state_->outer.get()));
}

hmac_key& hmac_key::operator=(const hmac_key& other) {
  if (this != &other) *this = hmac_key(other);
  return *this;
}

hmac_key::hmac_key(hmac_key&&) noexcept = default;
hmac_key& hmac_key::operator=(hmac_key&&) noexcept = default;
hmac_key::~hmac_key() = default;

digest hmac_key::mac(std::initializer_list<byte_view> parts) const {
  EVP_MD_CTX* ctx = scratch.get();
  check(EVP_MD_CTX_copy_ex(ctx, state_->inner.get()));
  for (auto part : parts) check(EVP_DigestUpdate(ctx, part.data(), part.size()));
  digest inner = finish(ctx);
  check(EVP_MD_CTX_copy_ex(ctx, state_->outer.get()));
  check(EVP_DigestUpdate(ctx, inner.data(), inner.size()));
  return finish(ctx);
}

digest hmac_sha256(byte_view key, std::initializer_list<byte_view> parts) {
  return hmac_key(key).mac(parts);
}

bool equal_constant_time(byte_view a, byte_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace foyer
