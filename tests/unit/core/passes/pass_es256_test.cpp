// The ES256 pass profile: P-256 keys in the key ring and its file, their JWKS, ES256 signing
// with OpenSSL, and the verifier's key-kind seam that checks them with the same rules.

#include <catch2/catch.hpp>
#include <simdjson.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"
#include "core/passes/pass.hpp"
#include "foyer/pass_verifier.hpp"

using namespace foyer;
using pass::keyring;
using pass::key_type;

namespace {

// RFC 6979 A.2.5: a P-256 private key and its public point.
constexpr std::string_view rfc6979_d = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";
constexpr std::string_view rfc6979_ux = "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6";
constexpr std::string_view rfc6979_uy = "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299";
// RFC 7515 Appendix A.3: an ES256 public key and a JWS signed with it (by another implementation).
constexpr std::string_view rfc7515_x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
constexpr std::string_view rfc7515_y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
constexpr std::string_view rfc7515_jws =
    "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
    "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q";
// The order n of P-256.
constexpr std::string_view p256_order = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";

constexpr std::int64_t t0 = 1'700'000'000;

pass::seed_bytes seed_of(std::uint8_t fill) {
  pass::seed_bytes seed;
  seed.fill(fill);
  return seed;
}

pass::signing_key rfc6979_key(std::int64_t created_at) {
  return pass::key_from_seed(*from_hex_fixed<32>(rfc6979_d), created_at, key_type::es256);
}

std::string b64_hex(std::string_view hex) { return base64url_encode(*from_hex(hex)); }

std::string b64(std::string_view text) { return base64url_encode(as_bytes(text)); }

std::string ec_jwk(std::string_view kid, std::string_view x, std::string_view y, std::string_view extra = "") {
  return R"({"kty":"EC","crv":"P-256","x":")" + std::string(x) + R"(","y":")" + std::string(y) + R"(","kid":")" +
         std::string(kid) + "\"" + std::string(extra) + "}";
}

std::shared_ptr<const signature_key> load_ec(std::string_view x, std::string_view y) {
  std::string kid = "k", xs(x), ys(y);
  return pass::es256_key_kind().load([&](std::string_view name) -> const std::string* {
    if (name == "kid") return &kid;
    if (name == "x") return &xs;
    if (name == "y") return &ys;
    return nullptr;
  });
}

pass::claims claims_for(std::string_view sub) {
  return {"https://queue.example", "spring-sale", std::string(sub), t0, t0, t0 + 600, "pass-" + std::string(sub)};
}

// Both profiles in one ring: an Ed25519 key (receipts) and a newer ES256 key (passes).
struct es256_fixture {
  pass::signing_key ed = pass::key_from_seed(seed_of(1), t0);
  pass::signing_key ec = rfc6979_key(t0 + 1);
  keyring ring = [this] {
    keyring r(ed);
    r.add(ec);
    return r;
  }();
  pass_expectations expect{"https://queue.example", "spring-sale", 0};

  pass_verifier verifier() const { return pass_verifier(ring.jwks_json(), expect, {pass::es256_key_kind()}); }
  std::string refusal(const std::string& token) const {
    auto result = verifier().verify(token, t0 + 1);
    CHECK_FALSE(result.ok);
    return result.error_code;
  }
};

}  // namespace

TEST_CASE("a P-256 key derives from its scalar as RFC 6979 A.2.5 says; scalars outside [1, n-1] are refused") {
  auto key = rfc6979_key(5);
  CHECK(key.type == key_type::es256);
  CHECK(to_hex(key.public_key) == rfc6979_ux);
  CHECK(to_hex(key.public_y) == rfc6979_uy);
  CHECK(to_hex(byte_view(key.secret.data(), 32)) == rfc6979_d);
  byte_vector point{0x04};
  append(point, key.public_key);
  append(point, key.public_y);
  CHECK(key.kid == pass::key_id(point));
  CHECK(key.kid.size() == 16);

  CHECK_THROWS_WITH(pass::key_from_seed(seed_of(0), 0, key_type::es256), Catch::Contains("[1, n-1]"));
  CHECK_THROWS_WITH(pass::key_from_seed(*from_hex_fixed<32>(p256_order), 0, key_type::es256), Catch::Contains("[1, n-1]"));
  CHECK_THROWS_AS(pass::key_from_seed(seed_of(0xff), 0, key_type::es256), std::invalid_argument);
  auto below_order = *from_hex_fixed<32>(p256_order);
  below_order[31] -= 1;
  CHECK_NOTHROW(pass::key_from_seed(below_order, 0, key_type::es256));

  auto fresh = pass::generate_key(7, key_type::es256);
  CHECK(fresh.type == key_type::es256);
  CHECK(fresh.kid != pass::generate_key(7, key_type::es256).kid);
  CHECK(pass::jws_alg(key_type::es256) == "ES256");
  CHECK(pass::key_type_of("ES256") == key_type::es256);
  CHECK_THROWS_WITH(pass::key_type_of("RS256"), Catch::Contains("use EdDSA or ES256"));
}

TEST_CASE("the ES256 key kind verifies the RFC 7515 A.3 signature and refuses altered ones") {
  auto key = load_ec(rfc7515_x, rfc7515_y);
  std::string_view jws = rfc7515_jws;
  auto dot = jws.rfind('.');
  auto signature = *base64url_decode(jws.substr(dot + 1));
  REQUIRE(signature.size() == 64);
  std::string sig(as_chars(signature));
  CHECK(key->verify(jws.substr(0, dot), sig));
  CHECK_FALSE(key->verify(std::string(jws.substr(0, dot)) + "x", sig));
  for (std::size_t at : {std::size_t{0}, std::size_t{40}}) {
    auto flipped = sig;
    flipped[at] = static_cast<char>(flipped[at] ^ 1);
    CHECK_FALSE(key->verify(jws.substr(0, dot), flipped));
  }
  // r = 0 or s = 0 is never a signature (the "psychic signatures" bug, CVE-2022-21449).
  CHECK_FALSE(key->verify(jws.substr(0, dot), std::string(64, '\0')));
  CHECK_FALSE(key->verify(jws.substr(0, dot), sig.substr(0, 32) + std::string(32, '\0')));
  // s + n verifies nowhere: a signature has one spelling in 64 bytes.
  auto order = *from_hex(p256_order);
  CHECK_FALSE(key->verify(jws.substr(0, dot), sig.substr(0, 32) + std::string(as_chars(order))));

  // Not a point on the curve: y + 1.
  auto y = *base64url_decode(rfc7515_y);
  y.back() = static_cast<std::uint8_t>(y.back() + 1);
  CHECK_THROWS_WITH(load_ec(rfc7515_x, base64url_encode(y)), Catch::Contains("not a point on the curve"));
  CHECK_THROWS_WITH(load_ec(rfc7515_x, rfc7515_y.substr(1)), Catch::Contains("bad y"));
  CHECK_THROWS_WITH(load_ec("", rfc7515_y), Catch::Contains("bad x"));
}

TEST_CASE_METHOD(es256_fixture, "passes are signed with the newest key; receipts stay with Ed25519") {
  CHECK(ring.active().kid == ed.kid);
  CHECK(ring.pass_signer().kid == ec.kid);
  ring.add(pass::key_from_seed(seed_of(2), t0 + 2));
  CHECK(ring.pass_signer().kid == ring.active().kid);
  CHECK(ring.active().kid != ed.kid);
  ring.retire(ring.active().kid);
  CHECK(ring.pass_signer().kid == ec.kid);
  // The ES256 key may go (passes fall back to EdDSA); the last Ed25519 key may not.
  CHECK_THROWS_WITH(ring.retire(ed.kid), Catch::Contains("only active Ed25519 key"));
  ring.retire(ec.kid);
  CHECK(ring.pass_signer().kid == ed.kid);
  CHECK_THROWS_WITH(keyring(ec), Catch::Contains("must be Ed25519"));
}

TEST_CASE_METHOD(es256_fixture, "the key file keeps each key's type; the JWKS publishes EC keys for ES256") {
  auto text = ring.encode();
  auto back = keyring::decode(text);
  REQUIRE(back.keys().size() == 2);
  CHECK(back.keys()[1].type == key_type::es256);
  CHECK(back.keys()[1].kid == ec.kid);
  CHECK(back.keys()[1].secret == ec.secret);
  CHECK(back.encode() == text);
  auto seed_text = b64_hex(rfc6979_d);
  auto order_text = base64url_encode(*from_hex(p256_order));
  auto at = text.find(seed_text);
  REQUIRE(at != std::string::npos);
  CHECK_THROWS_WITH(keyring::decode(text.replace(at, seed_text.size(), order_text)), Catch::Contains("[1, n-1]"));

  CHECK(ring.jwks_json() == std::string("{\"keys\":[") +
                                R"({"kty":"OKP","crv":"Ed25519","x":")" + base64url_encode(ed.public_key) +
                                R"(","kid":")" + ed.kid + R"(","alg":"EdDSA","use":"sig"},)" +
                                ec_jwk(ec.kid, b64_hex(rfc6979_ux), b64_hex(rfc6979_uy), R"(,"alg":"ES256","use":"sig")") + "]}");
}

std::string segment_text(const std::string& token, int index) {
  std::size_t begin = 0;
  for (int i = 0; i < index; ++i) begin = token.find('.', begin) + 1;
  auto bytes = base64url_decode(std::string_view(token).substr(begin, token.find('.', begin) - begin));
  return bytes ? std::string(as_chars(*bytes)) : std::string();
}

TEST_CASE_METHOD(es256_fixture, "an ES256 pass verifies through the key-kind seam, by the rules of EdDSA passes") {
  auto token = pass::sign_pass(ring.pass_signer(), claims_for("v1"));
  CHECK(segment_text(token, 0) == R"({"alg":"ES256","typ":"JWT","kid":")" + ec.kid + "\"}");
  CHECK(segment_text(token, 2).size() == 64);
  auto result = verifier().verify(token, t0 + 1);
  REQUIRE(result.ok);
  CHECK(result.subject == "v1");
  CHECK(result.jti == "pass-v1");
  // ECDSA draws a fresh nonce: two signatures of one pass differ, and both verify.
  auto again = pass::sign_pass(ring.pass_signer(), claims_for("v1"));
  CHECK(again != token);
  CHECK(verifier().verify(again, t0 + 1).ok);
  // EdDSA passes of the same ring verify alongside.
  CHECK(verifier().verify(pass::sign_pass(ring.active(), claims_for("v2")), t0 + 1).ok);

  CHECK(refusal(pass::sign_pass(ring.pass_signer(), {"https://queue.example", "other-room", "v", t0, t0, t0 + 600, "j"})) ==
        "wrong_audience");
  CHECK(verifier().verify(token, t0 + 600).error_code == "expired");
  // Without the ES256 kind the EC key is skipped: a verifier that lacks it refuses the alg.
  pass_verifier eddsa_only(ring.jwks_json(), expect);
  CHECK(eddsa_only.key_ids() == std::vector<std::string>{ed.kid});
  CHECK(eddsa_only.verify(token, t0 + 1).error_code == "unsupported_alg");
}

TEST_CASE_METHOD(es256_fixture, "each kid accepts only its own key's algorithm") {
  const std::string claims = R"({"iss":"https://queue.example","aud":"spring-sale","sub":"s","exp":)" +
                             std::to_string(t0 + 600) + R"(,"jti":"j"})";
  auto header = [](std::string_view alg, std::string_view kid, std::string_view extra = "") {
    return R"({"alg":")" + std::string(alg) + R"(","kid":")" + std::string(kid) + "\"" + std::string(extra) + "}";
  };
  // A valid signature under the right key, but the header names the other algorithm.
  CHECK(refusal(pass::sign_jws(ec, header("EdDSA", ec.kid), claims)) == "unsupported_alg");
  CHECK(refusal(pass::sign_jws(ed, header("ES256", ed.kid), claims)) == "unsupported_alg");
  // A key of one kind cannot sign for the kid of the other.
  CHECK(refusal(pass::sign_jws(ec, header("ES256", ed.kid), claims)) == "unsupported_alg");
  CHECK(refusal(pass::sign_jws(pass::generate_key(t0, key_type::es256), header("ES256", ec.kid), claims)) ==
        "bad_signature");
  for (std::string_view alg : {"ES384", "ES512", "RS256", "PS256", "HS256", "none"}) {
    INFO(alg);
    CHECK(refusal(pass::sign_jws(ec, header(alg, ec.kid), claims)) == "unsupported_alg");
  }
  // HS256 MACed with the EC public key or the JWKS as the secret.
  auto input = b64(header("HS256", ec.kid)) + "." + b64(claims);
  auto jwks = ring.jwks_json();
  for (byte_view secret : {byte_view(ec.public_key), as_bytes(jwks)}) {
    CHECK(refusal(input + "." + base64url_encode(hmac_sha256(secret, {as_bytes(input)}))) == "unsupported_alg");
  }
  // Headers that bring their own key, validly signed by it.
  auto stranger = pass::generate_key(t0, key_type::es256);
  auto stranger_jwk = ec_jwk(stranger.kid, base64url_encode(stranger.public_key), base64url_encode(stranger.public_y));
  for (std::string extra : {",\"jwk\":" + stranger_jwk, std::string(R"(,"jku":"https://evil.example/jwks")"),
                            std::string(R"(,"x5u":"https://evil.example/cert.pem")")}) {
    INFO(extra);
    CHECK(refusal(pass::sign_jws(stranger, header("ES256", ec.kid, extra), claims)) == "forbidden_header");
  }
  // A signature of the wrong size is malformed, as with EdDSA.
  auto token = pass::sign_jws(ec, header("ES256", ec.kid), claims);
  auto signature = *base64url_decode(token.substr(token.rfind('.') + 1));
  signature.push_back(0);
  CHECK(refusal(token.substr(0, token.rfind('.') + 1) + base64url_encode(signature)) == "malformed");
}

TEST_CASE("JWKS and key kinds that cannot be used are refused at construction") {
  const pass_expectations expect{"iss", "aud", 0};
  const std::vector<key_kind> es256{pass::es256_key_kind()};
  std::string x(rfc7515_x), y(rfc7515_y);
  // An ES256-only JWKS is usable with the kind, and has no usable key without it.
  auto only_ec = "{\"keys\":[" + ec_jwk("e", x, y) + "]}";
  CHECK(pass_verifier(only_ec, expect, es256).key_ids() == std::vector<std::string>{"e"});
  CHECK_THROWS_AS(pass_verifier(only_ec, expect), jwks_error);
  for (const std::string& jwks : std::vector<std::string>{
           "{\"keys\":[" + ec_jwk("e", x, y, R"(,"alg":"ES384")") + "]}",
           "{\"keys\":[" + ec_jwk("e", x, y, R"(,"d":"jpsQnnGQmL-YBIffH1136cLgWbmzBjQj2YwHqcsSz8w")") + "]}",
           "{\"keys\":[" + ec_jwk("", x, y) + "]}",
           "{\"keys\":[" + ec_jwk("e", x, x) + "]}",
           "{\"keys\":[" + ec_jwk("e", x, y) + "," + ec_jwk("e", x, y) + "]}"}) {
    INFO(jwks);
    CHECK_THROWS_AS(pass_verifier(jwks, expect, es256), jwks_error);
  }
  // Other curves and encryption keys are skipped.
  auto mixed = "{\"keys\":[" + std::string(R"({"kty":"EC","crv":"P-384","kid":"p384","x":"AA","y":"AA"},)") +
               ec_jwk("enc", x, y, R"(,"use":"enc")") + "," + ec_jwk("e", x, y) + "]}";
  CHECK(pass_verifier(mixed, expect, es256).key_ids() == std::vector<std::string>{"e"});

  auto overlapping = pass::es256_key_kind();
  overlapping.kty = "OKP";
  overlapping.crv = "Ed25519";
  CHECK_THROWS_AS(pass_verifier(only_ec, expect, {overlapping}), std::invalid_argument);
  CHECK_THROWS_AS(pass_verifier(only_ec, expect, {pass::es256_key_kind(), pass::es256_key_kind()}), std::invalid_argument);
  auto incomplete = pass::es256_key_kind();
  incomplete.load = nullptr;
  CHECK_THROWS_AS(pass_verifier(only_ec, expect, {incomplete}), std::invalid_argument);
}

// tests/js/pass.test.js checks this C++-signed ES256 pass with node:crypto and jose. ECDSA
// signatures are randomised, so the fixture was signed once; here its JWKS, header and
// claims are what this code produces and its signature verifies.
TEST_CASE("the ES256 Node fixture is what sign_pass produces") {
  auto path = std::filesystem::path(FOYER_VECTORS).parent_path() / "pass-es256-fixture.json";
  simdjson::dom::parser parser;
  simdjson::dom::element fixture;
  REQUIRE(parser.load(path.string()).get(fixture) == simdjson::SUCCESS);
  std::string_view scalar_hex, issuer, audience, subject, jti, token;
  std::int64_t iat = 0, exp = 0;
  REQUIRE(fixture["scalar_hex"].get(scalar_hex) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["iss"].get(issuer) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["aud"].get(audience) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["sub"].get(subject) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["jti"].get(jti) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["iat"].get(iat) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["exp"].get(exp) == simdjson::SUCCESS);
  REQUIRE(fixture["token"].get(token) == simdjson::SUCCESS);

  keyring ring(pass::key_from_seed(seed_of(1), iat));
  ring.add(pass::key_from_seed(*from_hex_fixed<32>(scalar_hex), iat, key_type::es256));
  CHECK(simdjson::minify(fixture["jwks"]) == ring.jwks_json());
  pass::claims c{std::string(issuer), std::string(audience), std::string(subject), iat, iat, exp, std::string(jti)};
  auto fresh = pass::sign_pass(ring.pass_signer(), c);
  auto signed_part = [](std::string_view t) { return t.substr(0, t.rfind('.')); };
  CHECK(signed_part(token) == signed_part(fresh));
  pass_verifier verifier(ring.jwks_json(), {std::string(issuer), std::string(audience), 0}, {pass::es256_key_kind()});
  auto result = verifier.verify(token, iat + 1);
  CHECK(result.ok);
  CHECK(result.subject == subject);
}
