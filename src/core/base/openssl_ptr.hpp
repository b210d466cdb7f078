#pragma once
// OpenSSL objects owned by unique_ptr, each freed by its own function.

#include <memory>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

namespace foyer {

template <typename T, void (*Free)(T*)>
struct openssl_free {
  void operator()(T* p) const { Free(p); }
};
template <typename T, void (*Free)(T*)>
using openssl_ptr = std::unique_ptr<T, openssl_free<T, Free>>;
using bignum_ptr = openssl_ptr<BIGNUM, BN_free>;
using pkey_ptr = openssl_ptr<EVP_PKEY, EVP_PKEY_free>;
using pkey_ctx_ptr = openssl_ptr<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;
using md_ctx_ptr = openssl_ptr<EVP_MD_CTX, EVP_MD_CTX_free>;
using ecdsa_sig_ptr = openssl_ptr<ECDSA_SIG, ECDSA_SIG_free>;
using param_bld_ptr = openssl_ptr<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>;
using param_ptr = openssl_ptr<OSSL_PARAM, OSSL_PARAM_free>;

}  // namespace foyer
