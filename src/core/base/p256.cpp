#include "core/base/p256.hpp"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include <stdexcept>
#include <string>

namespace foyer {
namespace {

using secret_bignum_ptr = openssl_ptr<BIGNUM, BN_clear_free>;
using group_ptr = openssl_ptr<EC_GROUP, EC_GROUP_free>;
using point_ptr = openssl_ptr<EC_POINT, EC_POINT_free>;

}  // namespace

void openssl_check(bool ok, std::string_view what) {
  if (!ok) throw std::runtime_error("OpenSSL: " + std::string(what) + " failed");
}

p256_point p256_public_point(const p256_scalar& scalar) {
  group_ptr group(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1));
  secret_bignum_ptr d(BN_bin2bn(scalar.data(), static_cast<int>(scalar.size()), nullptr));
  openssl_check(group && d, "P-256 set-up");
  if (BN_is_zero(d.get()) || BN_cmp(d.get(), EC_GROUP_get0_order(group.get())) >= 0) {
    throw std::invalid_argument("a P-256 private key must be within [1, n-1]");
  }
  point_ptr q(EC_POINT_new(group.get()));
  p256_point out{};
  openssl_check(q && EC_POINT_mul(group.get(), q.get(), d.get(), nullptr, nullptr, nullptr) == 1 &&
                    EC_POINT_point2oct(group.get(), q.get(), POINT_CONVERSION_UNCOMPRESSED, out.data(), out.size(),
                                       nullptr) == out.size(),
                "P-256 public key");
  return out;
}

pkey_ptr p256_pkey(const p256_point& point, const std::uint8_t* scalar) {
  param_bld_ptr build(OSSL_PARAM_BLD_new());
  secret_bignum_ptr d(scalar == nullptr ? nullptr : BN_bin2bn(scalar, p256_coordinate_bytes, nullptr));
  openssl_check(build && (scalar == nullptr || d), "P-256 parameters");
  openssl_check(OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0) &&
                    OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) &&
                    (!d || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get())),
                "P-256 parameters");
  param_ptr params(OSSL_PARAM_BLD_to_param(build.get()));
  pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  openssl_check(params && ctx && EVP_PKEY_fromdata_init(ctx.get()) == 1, "P-256 key set-up");
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, d ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return pkey_ptr(raw);
}

std::optional<p256_shared_secret> p256_ecdh(const p256_scalar& own_scalar, const p256_point& own_point,
                                            const p256_point& peer) {
  auto peer_key = p256_pkey(peer, nullptr);
  if (!peer_key) return std::nullopt;
  auto own_key = p256_pkey(own_point, own_scalar.data());
  openssl_check(own_key != nullptr, "P-256 own key");
  pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own_key.get(), nullptr));
  p256_shared_secret out{};
  std::size_t size = out.size();
  openssl_check(ctx && EVP_PKEY_derive_init(ctx.get()) == 1 && EVP_PKEY_derive_set_peer(ctx.get(), peer_key.get()) == 1 &&
                    EVP_PKEY_derive(ctx.get(), out.data(), &size) == 1 && size == out.size(),
                "P-256 ECDH");
  return out;
}

}  // namespace foyer
