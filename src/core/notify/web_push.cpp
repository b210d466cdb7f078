#include "core/notify/web_push.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/base/crypto.hpp"
#include "core/base/json.hpp"
#include "core/base/openssl_ptr.hpp"

namespace foyer::notify {
namespace {

using cipher_ctx_ptr = openssl_ptr<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>;

constexpr std::size_t auth_secret_bytes = 16;
constexpr std::size_t cek_bytes = 16;
constexpr std::size_t nonce_bytes = 12;
constexpr std::size_t tag_bytes = 16;
constexpr std::uint8_t last_record_delimiter = 0x02;
constexpr std::size_t max_subject_bytes = 256;

// Browsers hand the keys out with or without base64 padding.
std::string_view unpadded(std::string_view text) {
  while (text.ends_with('=')) text.remove_suffix(1);
  return text;
}

// HKDF-Expand (RFC 5869) for one block, cut to `n` bytes: T(1) = HMAC(prk, info || 0x01).
template <std::size_t N>
std::array<std::uint8_t, N> expand(const digest& prk, std::string_view info) {
  static_assert(N <= std::tuple_size_v<digest>);
  constexpr std::uint8_t one = 0x01;
  auto block = hmac_sha256(prk, {as_bytes(info), byte_view(&one, 1)});
  std::array<std::uint8_t, N> out{};
  std::copy_n(block.begin(), N, out.begin());
  return out;
}

byte_vector aes128gcm_seal(const std::array<std::uint8_t, cek_bytes>& key,
                           const std::array<std::uint8_t, nonce_bytes>& nonce, byte_view plaintext) {
  cipher_ctx_ptr ctx(EVP_CIPHER_CTX_new());
  byte_vector out(plaintext.size() + tag_bytes);
  int written = 0;
  int last = 0;
  openssl_check(ctx && EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, key.data(), nonce.data()) == 1 &&
                    EVP_EncryptUpdate(ctx.get(), out.data(), &written, plaintext.data(),
                                      static_cast<int>(plaintext.size())) == 1 &&
                    EVP_EncryptFinal_ex(ctx.get(), out.data() + written, &last) == 1 &&
                    static_cast<std::size_t>(written + last) == plaintext.size() &&
                    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, tag_bytes, out.data() + plaintext.size()) == 1,
                "AES-128-GCM");
  return out;
}

}  // namespace

byte_vector encrypt(std::string_view p256dh, std::string_view auth, std::string_view payload) {
  for (;;) {
    auto sender_private = random_array<p256_coordinate_bytes>();
    try {
      return encrypt(p256dh, auth, payload, sender_private, random_array<16>());
    } catch (const std::out_of_range&) {
      // A scalar beyond the group order: about one draw in 2^32; draw again.
    }
  }
}

byte_vector encrypt(std::string_view p256dh, std::string_view auth, std::string_view payload,
                    const p256_scalar& sender_private, const push_salt& salt) {
  if (payload.size() > max_push_payload_bytes) {
    throw std::invalid_argument("a push payload holds at most " + std::to_string(max_push_payload_bytes) + " bytes");
  }
  p256_point ua_public{};
  if (!base64url_decode_into(unpadded(p256dh), ua_public) || ua_public[0] != 0x04) {
    throw std::invalid_argument("p256dh must be an uncompressed P-256 public key (65 bytes) in base64url");
  }
  std::array<std::uint8_t, auth_secret_bytes> auth_secret{};
  if (!base64url_decode_into(unpadded(auth), auth_secret)) {
    throw std::invalid_argument("auth must be 16 bytes in base64url");
  }
  p256_point as_public{};
  try {
    as_public = p256_public_point(sender_private);
  } catch (const std::invalid_argument& e) {
    throw std::out_of_range(e.what());
  }
  auto ecdh_secret = p256_ecdh(sender_private, as_public, ua_public);
  if (!ecdh_secret) throw std::invalid_argument("p256dh is not a point on P-256");

  // RFC 8291 §3.4: the input keying material binds both public keys and the auth secret.
  auto prk_key = hmac_sha256(auth_secret, {*ecdh_secret});
  constexpr std::string_view key_label = "WebPush: info";
  byte_vector key_info(as_bytes(key_label).begin(), as_bytes(key_label).end());
  key_info.push_back(0x00);
  append(key_info, ua_public);
  append(key_info, as_public);
  auto ikm = expand<32>(prk_key, as_chars(key_info));
  // RFC 8188 §2.2 and §2.3, with the salt as HKDF's.
  auto prk = hmac_sha256(salt, {ikm});
  using namespace std::string_view_literals;
  auto cek = expand<cek_bytes>(prk, "Content-Encoding: aes128gcm\0"sv);
  auto nonce = expand<nonce_bytes>(prk, "Content-Encoding: nonce\0"sv);  // record 0: XOR with 0

  byte_vector plaintext(as_bytes(payload).begin(), as_bytes(payload).end());
  plaintext.push_back(last_record_delimiter);
  byte_vector body(salt.begin(), salt.end());
  for (int shift = 24; shift >= 0; shift -= 8) body.push_back(static_cast<std::uint8_t>(push_record_size >> shift));
  body.push_back(static_cast<std::uint8_t>(as_public.size()));
  append(body, as_public);
  append(body, aes128gcm_seal(cek, nonce, plaintext));
  return body;
}

std::string push_origin(const http_url& endpoint) {
  std::string host = endpoint.host;
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  auto origin = "https://" + host;
  if (endpoint.port != "443") origin += ":" + endpoint.port;
  return origin;
}

bool valid_vapid_subject(std::string_view subject) {
  bool uri = subject.starts_with("mailto:") || subject.starts_with("https://");
  bool plain = std::none_of(subject.begin(), subject.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
  return uri && plain && subject.size() <= max_subject_bytes;
}

std::string vapid_authorization(std::string_view origin, std::string_view subject, std::int64_t expires_at,
                                const pass::signing_key& key) {
  if (key.type != pass::key_type::es256) throw std::invalid_argument("a VAPID key must be ES256");
  if (!valid_vapid_subject(subject)) {
    throw std::invalid_argument("the VAPID subject must be a mailto: or https:// URI of at most 256 bytes");
  }
  auto header = json_object().str("typ", "JWT").str("alg", "ES256").done();
  auto claims = json_object().str("aud", origin).num("exp", expires_at).str("sub", subject).done();
  return "vapid t=" + pass::sign_jws(key, header, claims) + ", k=" + vapid_public_key(key);
}

std::string vapid_public_key(const pass::signing_key& key) {
  return base64url_encode(pass::es256_public_point(key));
}

}  // namespace foyer::notify
