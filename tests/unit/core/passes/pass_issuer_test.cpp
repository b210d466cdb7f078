#include <catch2/catch.hpp>

#include <string>

#include "core/passes/pass.hpp"
#include "core/passes/pass_issuer.hpp"

using namespace foyer;

namespace {

constexpr std::int64_t t0 = 1'700'000'000;
constexpr std::uint32_t ttl = 600;

struct issuer_fixture {
  pass::signing_key key = pass::key_from_seed(pass::seed_bytes{7}, t0);
  pass::issuer issuer{"https://queue.example"};
  id16 visitor{1, 2, 3};

  pass_verify_result verify(const std::string& token, std::string_view room, std::int64_t now) const {
    pass_verifier verifier(pass::keyring(key).jwks_json(), {"https://queue.example", std::string(room), 0});
    return verifier.verify(token, now);
  }
};

}  // namespace

TEST_CASE_METHOD(issuer_fixture, "a pass names the room, the visitor and its expiry") {
  auto token = issuer.pass_for(key, "shop", visitor, t0 + ttl, t0);
  auto r = verify(token, "shop", t0);
  REQUIRE(r.ok);
  CHECK(r.subject == to_hex(visitor));
  CHECK(r.exp == t0 + ttl);
  CHECK(r.jti == to_hex(pass::pass_id("shop", visitor)));
  CHECK_FALSE(verify(token, "sale", t0).ok);
}

TEST_CASE_METHOD(issuer_fixture, "the same pass is given again until it expires") {
  auto first = issuer.pass_for(key, "shop", visitor, t0 + ttl, t0);
  CHECK(issuer.pass_for(key, "shop", visitor, t0 + ttl, t0 + ttl - 1) == first);
  // Another expiry is another pass, with the same id: a single-use check sees the
  // visitor's passes as one.
  auto other = issuer.pass_for(key, "shop", visitor, t0 + 2 * ttl, t0 + 1);
  CHECK(other != first);
  CHECK(verify(other, "shop", t0 + 1).jti == verify(first, "shop", t0).jti);
  CHECK(verify(other, "shop", t0 + 1).exp == t0 + 2 * ttl);
}

TEST_CASE_METHOD(issuer_fixture, "each visitor and room has its own pass, and expired ones are let go") {
  auto shop = issuer.pass_for(key, "shop", visitor, t0 + ttl, t0);
  auto sale = issuer.pass_for(key, "sale", visitor, t0 + ttl, t0);
  id16 other{9};
  auto other_pass = issuer.pass_for(key, "shop", other, t0 + ttl, t0);
  CHECK(shop != sale);
  CHECK(other_pass != shop);
  CHECK(verify(shop, "shop", t0).jti != verify(sale, "sale", t0).jti);
  CHECK(issuer.held() == 3);
  issuer.pass_for(key, "shop", visitor, t0 + 2 * ttl, t0 + ttl);
  CHECK(issuer.held() == 1);
}
