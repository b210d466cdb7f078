#include <catch2/catch.hpp>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/base/bytes.hpp"
#include "core/passes/pass.hpp"
#include "foyer/pass_verifier.hpp"

using namespace foyer;
using pass::keyring;

namespace {

// RFC 8032 §7.1, test 1.
constexpr std::string_view rfc8032_seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
constexpr std::string_view rfc8032_public = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

pass::seed_bytes seed_of(std::uint8_t fill) {
  pass::seed_bytes seed;
  seed.fill(fill);
  return seed;
}

pass::signing_key rfc8032_key(std::int64_t created_at) {
  return pass::key_from_seed(*from_hex_fixed<32>(rfc8032_seed), created_at);
}

std::string segment(const std::string& token, int index) {
  std::size_t begin = 0;
  for (int i = 0; i < index; ++i) begin = token.find('.', begin) + 1;
  std::size_t end = token.find('.', begin);
  auto bytes = base64url_decode(std::string_view(token).substr(begin, end - begin));
  REQUIRE(bytes);
  return std::string(as_chars(*bytes));
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

TEST_CASE("keys derive from the seed as RFC 8032 says, and the kid from the public key") {
  auto key = rfc8032_key(1'700'000'000);
  CHECK(to_hex(key.public_key) == rfc8032_public);
  CHECK(to_hex(byte_view(key.secret.data(), 32)) == rfc8032_seed);
  CHECK(to_hex(byte_view(key.secret.data() + 32, 32)) == rfc8032_public);
  // base64url(SHA-256(public key)[0..12]), computed independently.
  CHECK(key.kid == "If4x36FUomFia_hU");
  CHECK(key.kid == pass::key_id(key.public_key));
  CHECK(key.created_at == 1'700'000'000);
  CHECK_FALSE(key.retired);

  auto fresh = pass::generate_key(5);
  CHECK(fresh.kid.size() == 16);
  CHECK(pass::generate_key(5).kid != fresh.kid);
  CHECK(pass::key_from_seed(seed_of(7), 0).kid == pass::key_from_seed(seed_of(7), 9).kid);
}

TEST_CASE("the active key is the newest one not retired") {
  keyring ring(pass::key_from_seed(seed_of(1), 100));
  auto first = ring.active().kid;
  ring.add(pass::key_from_seed(seed_of(2), 200));
  auto second = ring.active().kid;
  CHECK(second != first);
  ring.add(pass::key_from_seed(seed_of(3), 300));
  auto third = ring.active().kid;
  REQUIRE(ring.keys().size() == 3);

  ring.retire(third);
  CHECK(ring.active().kid == second);
  ring.retire(first);
  CHECK(ring.active().kid == second);
  CHECK(ring.keys().size() == 3);  // retired keys stay in the file, unpublished
}

TEST_CASE("key ring mutations refuse what would break it, leaving it unchanged") {
  keyring ring(pass::key_from_seed(seed_of(1), 100));
  auto only = ring.active().kid;
  CHECK_THROWS_WITH(ring.retire(only), Catch::Contains("only active Ed25519 key"));
  CHECK_THROWS_WITH(ring.retire("nope"), Catch::Contains("no key with kid nope"));
  CHECK_THROWS_WITH(ring.add(pass::key_from_seed(seed_of(1), 999)), Catch::Contains("already"));
  auto retired = pass::key_from_seed(seed_of(2), 200);
  retired.retired = true;
  CHECK_THROWS_AS(ring.add(retired), std::invalid_argument);
  CHECK(ring.keys().size() == 1);
  CHECK_FALSE(ring.keys()[0].retired);

  ring.add(pass::key_from_seed(seed_of(2), 200));
  ring.retire(only);
  CHECK_THROWS_WITH(ring.retire(only), Catch::Contains("already retired"));
}

TEST_CASE("the key file round-trips every key, in order") {
  keyring ring(pass::key_from_seed(seed_of(1), 100));
  ring.add(pass::key_from_seed(seed_of(2), 200));
  ring.add(pass::key_from_seed(seed_of(3), 300));
  ring.retire(ring.keys()[1].kid);

  auto text = ring.encode();
  auto back = keyring::decode(text);
  REQUIRE(back.keys().size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(back.keys()[i].kid == ring.keys()[i].kid);
    CHECK(back.keys()[i].secret == ring.keys()[i].secret);
    CHECK(back.keys()[i].public_key == ring.keys()[i].public_key);
    CHECK(back.keys()[i].created_at == ring.keys()[i].created_at);
    CHECK(back.keys()[i].retired == ring.keys()[i].retired);
  }
  CHECK(back.active().kid == ring.keys()[2].kid);
  CHECK(back.encode() == text);
}

TEST_CASE("a damaged key file is refused with a reason") {
  keyring ring(rfc8032_key(100));
  const std::string good = ring.encode();
  const std::string seed_text = base64url_encode(*from_hex(rfc8032_seed));
  REQUIRE(good.find(seed_text) != std::string::npos);
  REQUIRE_NOTHROW(keyring::decode(good));

  auto refused = [](const std::string& text, const std::string& reason) {
    INFO(text);
    CHECK_THROWS_WITH(keyring::decode(text), Catch::Contains(reason));
  };
  refused("", "not a JSON object");
  refused(good.substr(0, good.size() / 2), "not a JSON object");
  refused("[]", "not a JSON object");
  refused(replace_all(good, "foyer-keyring-1", "foyer-keyring-2"), "format");
  refused(replace_all(good, "\"keys\":[", "\"extra\":1,\"keys\":["), "unexpected top-level");
  refused(R"({"format":"foyer-keyring-1","keys":[]})", "no active Ed25519 key");
  refused(replace_all(good, "\"retired\":false", "\"retired\":true"), "no active Ed25519 key");
  refused(replace_all(good, "\"retired\":false", "\"retired\":0"), "wrong type");
  refused(replace_all(good, "\"created_at\":100", "\"created_at\":\"100\""), "wrong type");
  refused(replace_all(good, "\"retired\":false", "\"retired\":false,\"retired\":false"), "twice");
  refused(replace_all(good, "\"retired\":false", "\"retired\":false,\"comment\":\"x\""), "unknown key field");
  refused(replace_all(good, ",\"retired\":false", ""), "lacks");
  refused(replace_all(good, "\"alg\":\"EdDSA\"", "\"alg\":\"HS256\""), "unknown key algorithm \"HS256\"");
  refused(replace_all(good, "\"alg\":\"EdDSA\"", "\"alg\":\"ES256\""), "kid does not match");
  refused(replace_all(good, seed_text, seed_text.substr(1)), "bad seed");
  refused(replace_all(good, seed_text, base64url_encode(seed_of(9))), "does not match");
  auto key_begin = good.find("{\"kid\"");
  auto key_object = good.substr(key_begin, good.find('}') - key_begin + 1);
  refused(replace_all(good, key_object, key_object + ",\n" + key_object), "already in the key ring");
}

TEST_CASE("a key file written before ES256 existed, without alg, holds Ed25519 keys") {
  keyring ring(rfc8032_key(100));
  auto text = ring.encode();
  REQUIRE(text.find("\"alg\":\"EdDSA\",") != std::string::npos);
  auto back = keyring::decode(replace_all(text, "\"alg\":\"EdDSA\",", ""));
  REQUIRE(back.keys().size() == 1);
  CHECK(back.keys()[0].type == pass::key_type::ed25519);
  CHECK(back.keys()[0].kid == "If4x36FUomFia_hU");
  CHECK(back.encode() == text);
}

TEST_CASE("the JWKS publishes every key that is not retired, as OKP/Ed25519") {
  keyring ring(rfc8032_key(100));
  CHECK(ring.jwks_json() ==
        R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",)"
        R"("kid":"If4x36FUomFia_hU","alg":"EdDSA","use":"sig"}]})");

  ring.add(pass::key_from_seed(seed_of(2), 200));
  ring.add(pass::key_from_seed(seed_of(3), 300));
  ring.retire(ring.keys()[1].kid);
  pass_verifier verifier(ring.jwks_json(), {"iss", "aud", 0});
  CHECK(verifier.key_ids() == (std::vector<std::string>{ring.keys()[0].kid, ring.keys()[2].kid}));
}

TEST_CASE("a pass is a compact JWT with the standard header and claims") {
  auto key = rfc8032_key(100);
  pass::claims c{"https://queue.example", "spring-sale", "v-123", 1'700'000'000, 1'700'000'000,
                 1'700'000'600, "p-1"};
  auto token = pass::sign_pass(key, c);
  CHECK(segment(token, 0) == R"({"alg":"EdDSA","typ":"JWT","kid":"If4x36FUomFia_hU"})");
  CHECK(segment(token, 1) ==
        R"({"iss":"https://queue.example","aud":"spring-sale","sub":"v-123","iat":1700000000,)"
        R"("nbf":1700000000,"exp":1700000600,"jti":"p-1"})");
  CHECK(segment(token, 2).size() == 64);
  // Ed25519 is deterministic: the same key and claims give the same pass.
  CHECK(pass::sign_pass(key, c) == token);
}

TEST_CASE("claims are escaped as JSON strings") {
  auto key = rfc8032_key(100);
  pass::claims c{"iss", "room", std::string("a\"b\\c\n\x01") + "\xc3\xa9", 0, 0, 10, "j"};
  auto token = pass::sign_pass(key, c);
  CHECK(segment(token, 1).find(R"("sub":"a\"b\\c\n\u0001)" "\xc3\xa9\"") != std::string::npos);
  auto result = pass_verifier(keyring(key).jwks_json(), {"iss", "room", 0}).verify(token, 5);
  REQUIRE(result.ok);
  CHECK(result.subject == c.subject);
}

// tests/js/pass.test.js checks this pass with Node's own crypto: C++ signs, another
// implementation verifies with the JWKS alone. Ed25519 being deterministic, the fixture is
// exactly what this code produces; if the format changes on purpose, update the fixture
// with the values this test prints.
TEST_CASE("the Node fixture is what sign_pass produces") {
  auto path = std::filesystem::path(FOYER_VECTORS).parent_path() / "pass-fixture.json";
  simdjson::dom::parser parser;
  simdjson::dom::element fixture;
  REQUIRE(parser.load(path.string()).get(fixture) == simdjson::SUCCESS);
  std::string_view seed_hex, issuer, audience, subject, jti, token;
  std::int64_t iat = 0, exp = 0;
  REQUIRE(fixture["seed_hex"].get(seed_hex) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["iss"].get(issuer) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["aud"].get(audience) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["sub"].get(subject) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["jti"].get(jti) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["iat"].get(iat) == simdjson::SUCCESS);
  REQUIRE(fixture["claims"]["exp"].get(exp) == simdjson::SUCCESS);
  REQUIRE(fixture["token"].get(token) == simdjson::SUCCESS);

  auto seed = from_hex_fixed<32>(seed_hex);
  REQUIRE(seed);
  keyring ring(pass::key_from_seed(*seed, iat));
  pass::claims c{std::string(issuer), std::string(audience), std::string(subject), iat, iat, exp,
                 std::string(jti)};
  CHECK(pass::sign_pass(ring.active(), c) == token);
  CHECK(simdjson::minify(fixture["jwks"]) == ring.jwks_json());
}
