#include <catch2/catch.hpp>

#include <string>

#include "core/base/bytes.hpp"
#include "core/base/url.hpp"
#include "core/gate/network.hpp"
#include "core/notify/web_push.hpp"
#include "core/passes/pass.hpp"

using namespace foyer;

namespace {

// RFC 8291 Appendix A.
constexpr std::string_view plaintext = "When I grow up, I want to be a watermelon";
constexpr std::string_view as_private = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
constexpr std::string_view as_public = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
constexpr std::string_view ua_public = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
constexpr std::string_view auth_secret = "BTBZMqHH6r4Tts7J_aSIgg";
constexpr std::string_view salt_text = "DGv6ra1nlYgDCS1FRnbzlw";
constexpr std::string_view message =
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
    "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
    "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

template <std::size_t N>
std::array<std::uint8_t, N> decoded(std::string_view text) {
  std::array<std::uint8_t, N> out{};
  REQUIRE(base64url_decode_into(text, out));
  return out;
}

std::string invalid_reason(std::string_view p256dh, std::string_view auth, std::string_view payload) {
  try {
    notify::encrypt(p256dh, auth, payload);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

pass::signing_key vapid_key() {
  pass::seed_bytes seed{};
  seed[31] = 7;
  return pass::key_from_seed(seed, 100, pass::key_type::es256);
}

}  // namespace

TEST_CASE("web push: RFC 8291 Appendix A is reproduced byte for byte") {
  auto body = notify::encrypt(ua_public, auth_secret, plaintext, decoded<32>(as_private), decoded<16>(salt_text));
  CHECK(base64url_encode(body) == message);
  // The sender's public key, derived from its private one, is the key id of the header.
  CHECK(base64url_encode(byte_view(body).subspan(21, 65)) == as_public);
}

TEST_CASE("web push: each message has its own key pair and salt, in one 4096-byte record at most") {
  auto a = notify::encrypt(ua_public, auth_secret, plaintext);
  auto b = notify::encrypt(ua_public, auth_secret, plaintext);
  CHECK(a.size() == 86 + plaintext.size() + 1 + 16);
  CHECK(a != b);
  CHECK(!std::equal(a.begin(), a.begin() + 16, b.begin()));  // the salts differ
  CHECK(base64url_encode(byte_view(a).subspan(16, 5)) == "AAAQAEE");  // rs 4096, idlen 65

  std::string largest(notify::max_push_payload_bytes, 'x');
  CHECK(notify::encrypt(ua_public, auth_secret, largest).size() == notify::push_record_size);
  CHECK_THAT(invalid_reason(ua_public, auth_secret, largest + "x"), Catch::Contains("at most 3993 bytes"));
}

TEST_CASE("web push: keys that are not a P-256 point and a 16-byte secret are refused") {
  // Browsers may pad the base64url: that is accepted.
  CHECK(invalid_reason(std::string(ua_public) + "=", std::string(auth_secret) + "==", "hi") == "accepted");
  CHECK_THAT(invalid_reason(ua_public.substr(0, 86), auth_secret, "hi"), Catch::Contains("65 bytes"));
  CHECK_THAT(invalid_reason("", auth_secret, "hi"), Catch::Contains("65 bytes"));
  CHECK_THAT(invalid_reason(std::string(ua_public) + "AA", auth_secret, "hi"), Catch::Contains("65 bytes"));
  auto off_curve = std::string(ua_public);
  off_curve[40] = off_curve[40] == 'A' ? 'B' : 'A';  // y no longer fits x
  CHECK_THAT(invalid_reason(off_curve, auth_secret, "hi"), Catch::Contains("not a point on P-256"));
  // A compressed point (02 || x) is not what a browser sends.
  auto compressed = decoded<65>(ua_public);
  compressed[0] = 0x02;
  CHECK_THAT(invalid_reason(base64url_encode(compressed), auth_secret, "hi"), Catch::Contains("uncompressed"));
  CHECK_THAT(invalid_reason(ua_public, auth_secret.substr(0, 20), "hi"), Catch::Contains("16 bytes"));
  CHECK_THAT(invalid_reason(ua_public, "BTBZMqHH6r4Tts7J_aSIg!", "hi"), Catch::Contains("16 bytes"));
}

TEST_CASE("web push: the VAPID authorization names the origin, the expiry and the subject") {
  auto key = vapid_key();
  auto value = notify::vapid_authorization("https://push.example.net", "mailto:ops@example.com", 1'700'000'000, key);
  REQUIRE(value.starts_with("vapid t="));
  auto comma = value.find(", k=");
  REQUIRE(comma != std::string::npos);
  CHECK(value.substr(comma + 4) == notify::vapid_public_key(key));
  CHECK(notify::vapid_public_key(key).size() == 87);  // 65 bytes
  auto jwt = value.substr(8, comma - 8);
  auto first = jwt.find('.');
  auto second = jwt.find('.', first + 1);
  CHECK(as_chars(*base64url_decode(jwt.substr(0, first))) == R"({"typ":"JWT","alg":"ES256"})");
  CHECK(as_chars(*base64url_decode(jwt.substr(first + 1, second - first - 1))) ==
        R"({"aud":"https://push.example.net","exp":1700000000,"sub":"mailto:ops@example.com"})");
  CHECK(base64url_decode(jwt.substr(second + 1))->size() == 64);  // r || s
  // The signature checks under the key's public point (the ES256 verifier of passes).
  auto x = base64url_encode(key.public_key);
  auto y = base64url_encode(key.public_y);
  std::string kid = "v";
  auto public_key = pass::es256_key_kind().load([&](std::string_view name) -> const std::string* {
    return name == "x" ? &x : name == "y" ? &y : name == "kid" ? &kid : nullptr;
  });
  auto signature = *base64url_decode(jwt.substr(second + 1));
  CHECK(public_key->verify(jwt.substr(0, second), as_chars(signature)));
  signature[5] ^= 1;
  CHECK_FALSE(public_key->verify(jwt.substr(0, second), as_chars(signature)));
}

TEST_CASE("web push: the VAPID subject is a mailto: or https: URI, the key ES256") {
  auto key = vapid_key();
  for (std::string_view subject : {"", "ops@example.com", "http://example.com", "mailto:a\r\nb", "javascript:x"}) {
    INFO(subject);
    CHECK_THROWS_AS(notify::vapid_authorization("https://p.example", subject, 1, key), std::invalid_argument);
  }
  CHECK_THROWS_AS(notify::vapid_authorization("https://p.example", "mailto:" + std::string(250, 'a'), 1, key),
                  std::invalid_argument);
  CHECK_NOTHROW(notify::vapid_authorization("https://p.example", "https://shop.example.com/contact", 1, key));
  auto ed25519 = pass::key_from_seed(pass::seed_bytes{1}, 100);
  CHECK_THROWS_AS(notify::vapid_authorization("https://p.example", "mailto:a@b.c", 1, ed25519), std::invalid_argument);
}

TEST_CASE("web push: the audience is the endpoint's origin") {
  CHECK(notify::push_origin(*parse_url("https://fcm.googleapis.com/fcm/send/abc")) == "https://fcm.googleapis.com");
  CHECK(notify::push_origin(*parse_url("https://Push.Example.NET:443/x")) == "https://push.example.net");
  CHECK(notify::push_origin(*parse_url("https://127.0.0.1:8443/x?y")) == "https://127.0.0.1:8443");
  CHECK(notify::push_origin(*parse_url("https://[2001:db8::1]:9/x")) == "https://[2001:db8::1]:9");
}

TEST_CASE("web push: the key file keeps the VAPID key apart from the pass keys") {
  pass::keyring ring(pass::key_from_seed(pass::seed_bytes{1}, 100));
  CHECK(ring.vapid() == nullptr);
  auto old_text = ring.encode();
  CHECK(pass::keyring::decode(old_text).vapid() == nullptr);  // a ring from before Web Push
  ring.set_vapid(vapid_key());
  auto text = ring.encode();
  auto back = pass::keyring::decode(text);
  REQUIRE(back.vapid() != nullptr);
  CHECK(back.vapid()->kid == vapid_key().kid);
  CHECK(back.vapid()->secret == vapid_key().secret);
  CHECK(back.encode() == text);
  // Neither published nor signing passes.
  CHECK(back.keys().size() == 1);
  CHECK(back.jwks_json().find(back.vapid()->kid) == std::string::npos);
  CHECK(back.pass_signer().type == pass::key_type::ed25519);
  CHECK_THROWS_AS(ring.set_vapid(pass::key_from_seed(pass::seed_bytes{2}, 100)), std::invalid_argument);
  auto retired_vapid = text;
  auto at = retired_vapid.find("\"retired\":false", retired_vapid.find("\"vapid\""));
  REQUIRE(at != std::string::npos);
  retired_vapid.replace(at, 15, "\"retired\":true");
  CHECK_THROWS_WITH(pass::keyring::decode(retired_vapid), Catch::Contains("vapid: a VAPID key must be an active ES256 key"));
}

TEST_CASE("web push: only public addresses are reachable by a push endpoint") {
  for (std::string_view text : {"8.8.8.8", "203.0.112.255", "100.128.0.1", "172.32.0.1", "2606:4700::1111",
                                "2a00:1450:4001::200e"}) {
    INFO(text);
    CHECK(public_address(*parse_ip(text)));
  }
  for (std::string_view text :
       {"127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1", "192.0.2.1", "::", "::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "fe80::1%eth0", "fd00::1", "fc12::1", "ff02::1",
        "64:ff9b::a00:1", "2002:a00:1::1", "2001:0:4136:e378::1", "2001:db8::1"}) {
    INFO(text);
    CHECK_FALSE(public_address(*parse_ip(text)));
  }
}
