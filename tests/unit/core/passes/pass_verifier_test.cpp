#include "foyer/pass_verifier.hpp"  // first: the public header must compile on its own

#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/passes/pass.hpp"

using namespace foyer;

namespace {

constexpr std::int64_t t0 = 1'700'000'000;
constexpr std::int64_t lifetime = 600;

pass::seed_bytes seed_of(std::uint8_t fill) {
  pass::seed_bytes seed;
  seed.fill(fill);
  return seed;
}

std::string b64(std::string_view text) { return base64url_encode(as_bytes(text)); }

// Replaces segment `index` (0 header, 1 payload, 2 signature) of a compact token.
std::string with_segment(const std::string& token, int index, const std::string& value) {
  auto dot1 = token.find('.');
  auto dot2 = token.find('.', dot1 + 1);
  std::string parts[3] = {token.substr(0, dot1), token.substr(dot1 + 1, dot2 - dot1 - 1),
                          token.substr(dot2 + 1)};
  parts[index] = value;
  return parts[0] + "." + parts[1] + "." + parts[2];
}

std::string signature_segment(const std::string& token) { return token.substr(token.rfind('.') + 1); }

using members = std::vector<std::pair<std::string, std::string>>;

struct verifier_fixture {
  pass::signing_key key = pass::key_from_seed(seed_of(1), t0);
  pass::signing_key stranger = pass::key_from_seed(seed_of(2), t0);
  pass::keyring ring{key};
  pass_expectations expect{"https://queue.example", "spring-sale", 0};

  std::string good_pass() const {
    return pass::sign_pass(key, {"https://queue.example", "spring-sale", "visitor-7", t0, t0,
                                 t0 + lifetime, "pass-7"});
  }

  std::string header(std::string_view alg, std::string_view extra = "") const {
    return R"({"alg":")" + std::string(alg) + R"(","typ":"JWT","kid":")" + key.kid + "\"" +
           std::string(extra) + "}";
  }

  // The good pass's claims as raw JSON members; a change replaces a member, adds it, or
  // drops it when its value is empty.
  static std::string claims_json(const members& changes = {}) {
    members m = {{"iss", R"("https://queue.example")"}, {"aud", R"("spring-sale")"},
                 {"sub", R"("visitor-7")"},            {"iat", std::to_string(t0)},
                 {"nbf", std::to_string(t0)},          {"exp", std::to_string(t0 + lifetime)},
                 {"jti", R"("pass-7")"}};
    for (const auto& change : changes) {
      auto it = std::find_if(m.begin(), m.end(), [&](const auto& p) { return p.first == change.first; });
      if (it == m.end()) {
        m.push_back(change);
      } else {
        it->second = change.second;
      }
    }
    std::string out = "{";
    for (const auto& [name, value] : m) {
      if (value.empty()) continue;
      if (out.size() > 1) out += ",";
      out += "\"" + name + "\":" + value;
    }
    return out + "}";
  }

  std::string signed_claims(const members& changes) const {
    return pass::sign_jws(key, header("EdDSA"), claims_json(changes));
  }

  pass_verify_result verify(const std::string& token, std::int64_t now = t0 + 1) const {
    return pass_verifier(ring.jwks_json(), expect).verify(token, now);
  }
  std::string refusal(const std::string& token, std::int64_t now = t0 + 1) const {
    auto result = verify(token, now);
    CHECK_FALSE(result.ok);
    return result.error_code;
  }
};

}  // namespace

TEST_CASE_METHOD(verifier_fixture, "a pass signed by Foyer verifies with the JWKS alone") {
  auto token = good_pass();
  REQUIRE(pass::sign_jws(key, header("EdDSA"), claims_json()) == token);  // the helpers match
  for (auto now : {t0, t0 + 1, t0 + lifetime - 1}) {
    auto result = verify(token, now);
    CHECK(result.ok);
    CHECK(result.error_code.empty());
    CHECK(result.subject == "visitor-7");
    CHECK(result.jti == "pass-7");
    CHECK(result.exp == t0 + lifetime);
  }
}

TEST_CASE_METHOD(verifier_fixture, "a forged signature is refused") {
  auto token = good_pass();
  auto signature = *base64url_decode(signature_segment(token));
  signature[10] ^= 0x01;
  CHECK(refusal(with_segment(token, 2, base64url_encode(signature))) == "bad_signature");

  // Another key claiming this key's kid.
  CHECK(refusal(pass::sign_jws(stranger, header("EdDSA"), claims_json())) == "bad_signature");

  // Claims swapped under a genuine signature.
  auto other = signed_claims({{"sub", R"("visitor-8")"}});
  CHECK(refusal(with_segment(token, 1, b64(claims_json({{"sub", R"("visitor-8")"}})))) == "bad_signature");
  CHECK(refusal(with_segment(other, 2, signature_segment(token))) == "bad_signature");
}

TEST_CASE_METHOD(verifier_fixture, "a kid that is not in the key set is refused") {
  auto by_stranger = pass::sign_pass(stranger, {"https://queue.example", "spring-sale", "v", t0, t0,
                                                t0 + lifetime, "j"});
  CHECK(refusal(by_stranger) == "unknown_kid");
  CHECK(refusal(pass::sign_jws(key, R"({"alg":"EdDSA"})", claims_json())) == "unknown_kid");
  CHECK(refusal(pass::sign_jws(key, R"({"alg":"EdDSA","kid":7})", claims_json())) == "unknown_kid");
  CHECK(refusal(pass::sign_jws(key, R"({"alg":"EdDSA","kid":""})", claims_json())) == "unknown_kid");
}

TEST_CASE_METHOD(verifier_fixture, "only alg EdDSA is accepted, whatever the signature") {
  for (std::string alg : {"none", "None", "NONE", "HS256", "HS512", "RS256", "PS256", "ES256",
                          "ES256K", "eddsa", "EDDSA", "Ed25519", "EdDSA ", ""}) {
    INFO(alg);
    auto unsigned_token = b64(header(alg)) + "." + b64(claims_json()) + ".";
    CHECK(refusal(unsigned_token) == "unsupported_alg");
    CHECK(refusal(pass::sign_jws(key, header(alg), claims_json())) == "unsupported_alg");
  }
  auto no_alg = R"({"typ":"JWT","kid":")" + key.kid + "\"}";
  CHECK(refusal(pass::sign_jws(key, no_alg, claims_json())) == "unsupported_alg");
  auto numeric_alg = R"({"alg":1,"kid":")" + key.kid + "\"}";
  CHECK(refusal(pass::sign_jws(key, numeric_alg, claims_json())) == "unsupported_alg");
}

TEST_CASE_METHOD(verifier_fixture, "HS256 MACed with the public key as the secret is refused") {
  auto input = b64(header("HS256")) + "." + b64(claims_json());
  auto x = base64url_encode(key.public_key);
  auto jwks = ring.jwks_json();
  for (byte_view secret : {byte_view(key.public_key), as_bytes(x), as_bytes(jwks)}) {
    auto mac = hmac_sha256(secret, {as_bytes(input)});
    CHECK(refusal(input + "." + base64url_encode(mac)) == "unsupported_alg");
  }
  // The same MAC under a header that claims EdDSA is no Ed25519 signature either.
  auto eddsa_input = b64(header("EdDSA")) + "." + b64(claims_json());
  auto mac = hmac_sha256(key.public_key, {as_bytes(eddsa_input)});
  CHECK(refusal(eddsa_input + "." + base64url_encode(mac)) == "malformed");
  byte_vector doubled(mac.begin(), mac.end());
  doubled.insert(doubled.end(), mac.begin(), mac.end());
  CHECK(refusal(eddsa_input + "." + base64url_encode(doubled)) == "bad_signature");
}

TEST_CASE_METHOD(verifier_fixture, "headers that bring their own key are refused, even validly signed") {
  auto stranger_jwk = R"({"kty":"OKP","crv":"Ed25519","x":")" + base64url_encode(stranger.public_key) + "\"}";
  for (std::string extra : {",\"jwk\":" + stranger_jwk, std::string(R"(,"jku":"https://evil.example/jwks")"),
                            std::string(R"(,"x5u":"https://evil.example/cert.pem")"),
                            std::string(R"(,"x5c":["MIIBszCCAVmgAwIBAgIU"])"), std::string(R"(,"crit":["exp"])")}) {
    INFO(extra);
    CHECK(refusal(pass::sign_jws(key, header("EdDSA", extra), claims_json())) == "forbidden_header");
    CHECK(refusal(pass::sign_jws(stranger, header("EdDSA", extra), claims_json())) == "forbidden_header");
  }
}

TEST_CASE_METHOD(verifier_fixture, "expiry, with and without leeway") {
  auto token = good_pass();
  CHECK(verify(token, t0 + lifetime - 1).ok);
  CHECK(refusal(token, t0 + lifetime) == "expired");
  CHECK(refusal(token, t0 + 100 * lifetime) == "expired");

  expect.leeway_seconds = 30;
  CHECK(verify(token, t0 + lifetime + 29).ok);
  CHECK(refusal(token, t0 + lifetime + 30) == "expired");
}

TEST_CASE_METHOD(verifier_fixture, "not yet valid, with and without leeway") {
  auto token = signed_claims({{"nbf", std::to_string(t0 + 100)}});
  CHECK(refusal(token, t0 + 99) == "not_yet_valid");
  CHECK(verify(token, t0 + 100).ok);

  expect.leeway_seconds = 30;
  CHECK(verify(token, t0 + 70).ok);
  CHECK(refusal(token, t0 + 69) == "not_yet_valid");

  // nbf is optional; exp is not.
  CHECK(verify(signed_claims({{"nbf", ""}}), t0 - 1000).ok);
  CHECK(refusal(signed_claims({{"exp", ""}})) == "invalid_claims");
}

TEST_CASE_METHOD(verifier_fixture, "the audience must name the expected room") {
  CHECK(refusal(signed_claims({{"aud", R"("other-room")"}})) == "wrong_audience");
  CHECK(refusal(signed_claims({{"aud", R"("Spring-Sale")"}})) == "wrong_audience");
  CHECK(refusal(signed_claims({{"aud", R"("spring-sale ")"}})) == "wrong_audience");
  CHECK(verify(signed_claims({{"aud", R"(["other-room","spring-sale"])"}})).ok);
  CHECK(refusal(signed_claims({{"aud", R"(["other-room"])"}})) == "wrong_audience");
  CHECK(refusal(signed_claims({{"aud", "[]"}})) == "wrong_audience");
  CHECK(refusal(signed_claims({{"aud", R"(["spring-sale",1])"}})) == "invalid_claims");
  CHECK(refusal(signed_claims({{"aud", "7"}})) == "invalid_claims");
  CHECK(refusal(signed_claims({{"aud", ""}})) == "invalid_claims");

  auto token = good_pass();
  expect.audience = "other-room";
  CHECK(refusal(token) == "wrong_audience");
}

TEST_CASE_METHOD(verifier_fixture, "the issuer must be the expected one") {
  CHECK(refusal(signed_claims({{"iss", R"("https://evil.example")"}})) == "wrong_issuer");
  CHECK(refusal(signed_claims({{"iss", R"("https://queue.example/")"}})) == "wrong_issuer");
  CHECK(refusal(signed_claims({{"iss", "1"}})) == "invalid_claims");
  CHECK(refusal(signed_claims({{"iss", ""}})) == "invalid_claims");
}

TEST_CASE_METHOD(verifier_fixture, "claims of the wrong type are refused") {
  for (const members& change :
       {members{{"exp", "\"1700000600\""}}, members{{"exp", "1.7006e9"}}, members{{"exp", "1700000600.5"}},
        members{{"exp", "-1"}}, members{{"exp", "253402300800"}}, members{{"exp", "99999999999999999999"}},
        members{{"exp", "null"}}, members{{"nbf", "true"}}, members{{"iat", "\"now\""}}, members{{"sub", ""}},
        members{{"sub", "7"}}, members{{"jti", ""}}, members{{"jti", "{}"}}}) {
    INFO(claims_json(change));
    CHECK(refusal(signed_claims(change)) == "invalid_claims");
  }
}

TEST_CASE_METHOD(verifier_fixture, "every truncation of a pass is refused") {
  auto token = good_pass();
  for (std::size_t n = 0; n < token.size(); ++n) {
    INFO(n);
    CHECK_FALSE(verify(token.substr(0, n)).ok);
  }
}

TEST_CASE_METHOD(verifier_fixture, "garbage is refused as malformed") {
  auto token = good_pass();
  for (std::string garbage : {std::string(""), std::string("."), std::string(".."), std::string("..."),
                              std::string("a.b.c"), std::string("not a token"), std::string(64, '\0'),
                              token + ".", token + ".x", "." + token, " " + token, token + " ",
                              token + "\n", std::string(pass_verifier::max_token_size, 'A')}) {
    INFO(garbage);
    CHECK(refusal(garbage) == "malformed");
  }
  // A header that decodes but is not a JSON object.
  CHECK(refusal(b64("[\"EdDSA\"]") + "." + b64(claims_json()) + ".") == "malformed");
  CHECK(refusal(b64("{\"alg\":\"EdDSA\"") + "." + b64(claims_json()) + ".") == "malformed");
}

TEST_CASE_METHOD(verifier_fixture, "base64url is decoded strictly") {
  auto token = good_pass();
  for (int index = 0; index < 3; ++index) {
    INFO(index);
    auto dot1 = token.find('.');
    auto dot2 = token.find('.', dot1 + 1);
    std::string parts[3] = {token.substr(0, dot1), token.substr(dot1 + 1, dot2 - dot1 - 1),
                            token.substr(dot2 + 1)};
    for (std::string changed : {"+" + parts[index].substr(1), "/" + parts[index].substr(1),
                                parts[index] + "=", parts[index] + "=="}) {
      CHECK(refusal(with_segment(token, index, changed)) == "malformed");
    }
    CHECK_FALSE(verify(with_segment(token, index, parts[index] + "A")).ok);
  }
  // 64 signature bytes take 86 characters; the last one carries 2 unused bits, which must be
  // zero, or one signature would have four spellings.
  auto signature = signature_segment(token);
  REQUIRE(signature.size() == 86);
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  auto last = alphabet.find(signature.back());
  REQUIRE(last % 4 == 0);
  for (std::size_t low = 1; low < 4; ++low) {
    signature.back() = alphabet[last + low];
    CHECK(refusal(with_segment(token, 2, signature)) == "malformed");
  }
}

TEST_CASE_METHOD(verifier_fixture, "oversized passes are refused before any work") {
  auto big = signed_claims({{"sub", "\"" + std::string(5000, 'v') + "\""}});
  REQUIRE(big.size() < pass_verifier::max_token_size);
  CHECK(verify(big).ok);
  auto huge = signed_claims({{"sub", "\"" + std::string(pass_verifier::max_token_size, 'v') + "\""}});
  CHECK(refusal(huge) == "too_large");
  CHECK(refusal(std::string(1 << 20, 'A')) == "too_large");
}

TEST_CASE_METHOD(verifier_fixture, "header and claims must be strict JSON") {
  auto signed_payload = [&](const std::string& payload) { return pass::sign_jws(key, header("EdDSA"), payload); };
  auto good = claims_json();
  auto with_member = [&](const std::string& member) { return good.substr(0, good.size() - 1) + "," + member + "}"; };

  CHECK(refusal(signed_payload(with_member(R"("sub":"intruder")"))) == "malformed");
  CHECK(refusal(pass::sign_jws(key, header("EdDSA", R"(,"alg":"none")"), good)) == "malformed");
  CHECK(verify(signed_payload(with_member(R"("x":[[[[[1]]]]])"))).ok);
  CHECK(refusal(signed_payload(with_member(R"("x":[[[[[[[[[[1]]]]]]]]]])"))) == "malformed");
  CHECK(refusal(signed_payload(good + "x")) == "malformed");
  CHECK(verify(signed_payload(" \n" + good + "\t\r ")).ok);
  CHECK(refusal(signed_payload(R"("just a string")")) == "malformed");
  CHECK(refusal(signed_payload(claims_json({{"exp", "01700000600"}}))) == "malformed");
  CHECK(refusal(signed_payload(claims_json({{"exp", "+1700000600"}}))) == "malformed");
  CHECK(refusal(signed_payload(claims_json({{"x", "tru"}}))) == "malformed");
  CHECK(refusal(signed_payload(claims_json({{"x", "1."}}))) == "malformed");
  CHECK(verify(signed_payload(claims_json({{"x", "[-0.5e+3,null,true,false,{}]"}}))).ok);

  std::string many = good.substr(0, good.size() - 1);
  for (int i = 0; i < 60; ++i) many += ",\"m" + std::to_string(i) + "\":0";
  CHECK(refusal(signed_payload(many + "}")) == "malformed");

  // Strings: escapes decode to UTF-8; raw bytes must be well-formed UTF-8.
  auto sub = [&](const std::string& literal) { return signed_payload(claims_json({{"sub", "\"" + literal + "\""}})); };
  auto accepted = verify(sub(R"(\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t)"));
  REQUIRE(accepted.ok);
  CHECK(accepted.subject == "\xc3\xa9\xf0\x9f\x98\x80\"\\/\b\f\n\r\t");
  CHECK(verify(sub("\xc3\xa9\xf0\x9f\x98\x80")).subject == "\xc3\xa9\xf0\x9f\x98\x80");
  for (std::string bad : {std::string("\xff"), std::string("\xc3"), std::string("\xc0\xaf"),
                          std::string("\xe0\x80\xaf"), std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80"),
                          std::string("\x01"), std::string(R"(\ud800)"), std::string(R"(\udc00)"),
                          std::string(R"(\ud800\u0041)"), std::string(R"(\u00g0)"), std::string(R"(\x)")}) {
    INFO(bad);
    CHECK(refusal(sub(bad)) == "malformed");
  }
  // Names compare after unescaping, as JSON defines them.
  CHECK(verify(pass::sign_jws(key, R"({"\u0061lg":"\u0045dDSA","kid":")" + key.kid + "\"}", good)).ok);
}

TEST_CASE_METHOD(verifier_fixture, "rotation: old and new passes verify until the old key is retired") {
  auto old_pass = good_pass();
  ring.add(pass::key_from_seed(seed_of(3), t0 + 60));
  REQUIRE(ring.active().kid != key.kid);
  auto new_pass = pass::sign_pass(ring.active(), {"https://queue.example", "spring-sale", "visitor-9",
                                                  t0, t0, t0 + lifetime, "pass-9"});
  CHECK(verify(old_pass).ok);
  CHECK(verify(new_pass).ok);

  ring.retire(key.kid);
  CHECK(refusal(old_pass) == "unknown_kid");
  CHECK(verify(new_pass).ok);
}

TEST_CASE("a JWKS that cannot be trusted or used is refused at construction") {
  auto key = pass::key_from_seed(seed_of(1), t0);
  auto x = base64url_encode(key.public_key);
  auto ed_key = [&](const std::string& kid, const std::string& extra = "") {
    return R"({"kty":"OKP","crv":"Ed25519","x":")" + x + R"(","kid":")" + kid + "\"" + extra + "}";
  };
  const pass_expectations expect{"iss", "aud", 0};
  for (const std::string& jwks : std::vector<std::string>{
           "", "[]", "{}", R"({"keys":{}})", R"({"keys":[]})", "{\"keys\":[" + ed_key("a") + "]} x",
        "{\"keys\":[" + ed_key("a", R"(,"d":"c2VjcmV0")") + "]}",
        "{\"keys\":[" + ed_key("a") + "," + ed_key("a") + "]}", "{\"keys\":[" + ed_key("") + "]}",
        R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":")" + x + "\"}]}",
        R"({"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a"}]})",
        R"({"keys":[{"kty":"OKP","crv":"Ed25519","kid":"a","x":")" + x.substr(0, 40) + "\"}]}",
        "{\"keys\":[" + ed_key("a", R"(,"alg":"RS256")") + "]}",
        R"({"keys":[{"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB"}]})", R"({"keys":[1]})",
        "{\"keys\":[" + ed_key("a") + "]" + std::string(pass_verifier::max_jwks_size, ' ') + "}"}) {
    INFO(jwks.substr(0, 200));
    CHECK_THROWS_AS(pass_verifier(jwks, expect), jwks_error);
  }

  // Keys of other types or uses are skipped: a token naming them finds no key.
  auto mixed = "{\"keys\":[" + std::string(R"({"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB","alg":"RS256"},)") +
               R"({"kty":"OKP","crv":"X25519","kid":"x","x":")" + x + "\"}," + ed_key("e", R"(,"use":"enc")") +
               "," + ed_key(key.kid, R"(,"use":"sig","alg":"EdDSA","key_ops":["verify"])") + "]}";
  pass_verifier verifier(mixed, expect);
  CHECK(verifier.key_ids() == std::vector<std::string>(1, key.kid));
  auto claims = R"({"iss":"iss","aud":"aud","sub":"s","exp":)" + std::to_string(t0 + 1) + R"(,"jti":"j"})";
  CHECK(verifier.verify(pass::sign_jws(key, R"({"alg":"EdDSA","kid":")" + key.kid + "\"}", claims), t0).ok);
  CHECK(verifier.verify(pass::sign_jws(key, R"({"alg":"EdDSA","kid":"r"})", claims), t0).error_code == "unknown_kid");
  CHECK(verifier.verify(pass::sign_jws(key, R"({"alg":"RS256","kid":"r"})", claims), t0).error_code == "unsupported_alg");
  CHECK(verifier.verify(pass::sign_jws(key, R"({"alg":"EdDSA","kid":"e"})", claims), t0).error_code == "unknown_kid");

  auto jwks = "{\"keys\":[" + ed_key("a") + "]}";
  CHECK_THROWS_AS((pass_verifier(jwks, {"", "aud", 0})), std::invalid_argument);
  CHECK_THROWS_AS((pass_verifier(jwks, {"iss", "", 0})), std::invalid_argument);
  CHECK_THROWS_AS((pass_verifier(jwks, {"iss", "aud", -1})), std::invalid_argument);
  CHECK_THROWS_AS((pass_verifier(jwks, {"iss", "aud", pass_verifier::max_leeway_seconds + 1})), std::invalid_argument);
  CHECK_NOTHROW((pass_verifier(jwks, {"iss", "aud", pass_verifier::max_leeway_seconds})));
}
