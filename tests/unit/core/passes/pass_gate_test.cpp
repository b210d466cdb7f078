#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "core/passes/pass.hpp"
#include "core/passes/pass_gate.hpp"

using namespace foyer;

namespace {

constexpr std::int64_t t0 = 1'700'000'000;
constexpr std::int64_t lifetime = 600;
constexpr std::int64_t leeway = 5;

pass::seed_bytes seed_of(std::uint8_t fill) {
  pass::seed_bytes seed;
  seed.fill(fill);
  return seed;
}

struct gate_fixture {
  pass::signing_key key = pass::key_from_seed(seed_of(1), t0);
  pass_expectations expect{"https://queue.example", "spring-sale", leeway};

  std::shared_ptr<const pass_verifier> verifier_for(const pass::keyring& ring) const {
    return std::make_shared<const pass_verifier>(ring.jwks_json(), expect);
  }
  pass::gate make_gate(pass::gate_settings settings) const { return pass::gate(verifier_for(pass::keyring(key)), settings); }

  // The server's pass ids are one per visitor and room: a re-issued pass keeps its jti.
  std::string pass_for(std::string_view visitor, std::int64_t issued_at = t0,
                       const pass::signing_key* signer = nullptr) const {
    return pass::sign_pass(signer ? *signer : key, {"https://queue.example", "spring-sale", std::string(visitor), issued_at,
                                                    issued_at, issued_at + lifetime, "jti-" + std::string(visitor)});
  }
};

}  // namespace

TEST_CASE_METHOD(gate_fixture, "a visitor's many requests cost one signature check until the pass expires") {
  auto gate = make_gate({});
  auto token = pass_for("v1");
  auto first = gate.check(token, t0 + 1, /*spend=*/true);
  REQUIRE(first.ok);
  CHECK_FALSE(first.cached);
  CHECK(first.subject == "v1");
  CHECK(first.jti == "jti-v1");
  CHECK(first.exp == t0 + lifetime);
  for (std::int64_t now : {t0 + 2, t0 + lifetime, t0 + lifetime + leeway - 1}) {
    auto again = gate.check(token, now, true);
    CHECK(again.ok);
    CHECK(again.cached);
    CHECK(again.subject == "v1");
    CHECK(again.jti == "jti-v1");
  }
  auto late = gate.check(token, t0 + lifetime + leeway, true);
  CHECK_FALSE(late.ok);
  CHECK(late.cached);
  CHECK(late.error_code == "expired");
  CHECK(gate.cached_passes() == 1);

  // A token one character off is another token: checked in full, and refused.
  auto altered = token;
  altered.back() = altered.back() == 'A' ? 'B' : 'A';
  auto refused = gate.check(altered, t0 + 1, true);
  CHECK_FALSE(refused.ok);
  CHECK_FALSE(refused.cached);
  CHECK(gate.cached_passes() == 1);  // refusals are not remembered
}

TEST_CASE_METHOD(gate_fixture, "the cache is bounded: the oldest entry makes room; size 0 turns it off") {
  pass::gate_settings settings;
  settings.cache_capacity = 2;
  auto gate = make_gate(settings);
  auto a = pass_for("a"), b = pass_for("b"), c = pass_for("c");
  for (const auto& token : {a, b, c}) REQUIRE(gate.check(token, t0 + 1, true).ok);
  CHECK(gate.cached_passes() == 2);
  CHECK(gate.check(c, t0 + 1, true).cached);
  CHECK(gate.check(b, t0 + 1, true).cached);
  auto evicted = gate.check(a, t0 + 1, true);  // back in, evicting b
  CHECK(evicted.ok);
  CHECK_FALSE(evicted.cached);
  CHECK_FALSE(gate.check(b, t0 + 1, true).cached);
  CHECK(gate.cached_passes() == 2);

  settings.cache_capacity = 0;
  auto uncached = make_gate(settings);
  for (int i = 0; i < 3; ++i) {
    auto r = uncached.check(a, t0 + 1, true);
    CHECK(r.ok);
    CHECK_FALSE(r.cached);
  }
  CHECK(uncached.cached_passes() == 0);
}

TEST_CASE_METHOD(gate_fixture, "new keys empty the cache: a retired key's passes stop passing at once") {
  pass::keyring ring(key);
  auto gate = pass::gate(verifier_for(ring), {});
  auto old_pass = pass_for("old");
  REQUIRE(gate.check(old_pass, t0 + 1, true).ok);
  REQUIRE(gate.check(old_pass, t0 + 1, true).cached);

  ring.add(pass::key_from_seed(seed_of(2), t0 + 10));
  gate.replace_verifier(verifier_for(ring));
  CHECK(gate.cached_passes() == 0);
  auto new_pass = pass_for("new", t0, &ring.pass_signer());
  CHECK(gate.check(old_pass, t0 + 11, true).ok);
  CHECK(gate.check(new_pass, t0 + 11, true).ok);
  CHECK(gate.verifier().key_ids().size() == 2);

  ring.retire(key.kid);
  gate.replace_verifier(verifier_for(ring));
  CHECK(gate.check(old_pass, t0 + 12, true).error_code == "unknown_kid");
  CHECK(gate.check(new_pass, t0 + 12, true).ok);
}

TEST_CASE_METHOD(gate_fixture, "single use: a pass id is accepted once, until its pass expires") {
  pass::gate_settings settings;
  settings.single_use = true;
  auto gate = make_gate(settings);
  auto token = pass_for("v1");
  // Looking without spending records nothing (the guard's enter step).
  CHECK(gate.check(token, t0 + 1, /*spend=*/false).ok);
  CHECK(gate.check(token, t0 + 1, false).ok);
  CHECK(gate.spent_ids() == 0);

  CHECK(gate.check(token, t0 + 2, /*spend=*/true).ok);
  CHECK(gate.spent_ids() == 1);
  CHECK(gate.check(token, t0 + 3, true).error_code == "spent");
  CHECK(gate.check(token, t0 + 3, false).error_code == "spent");
  // A pass re-issued to the same visitor carries the same id.
  auto reissued = pass_for("v1", t0 + 60);
  REQUIRE(reissued != token);
  CHECK(gate.check(reissued, t0 + 61, true).error_code == "spent");
  CHECK(gate.check(pass_for("v2"), t0 + 61, true).ok);
  CHECK(gate.spent_ids() == 2);

  // An id is forgotten once no pass spent under it can verify any more.
  CHECK(gate.check(pass_for("v3", t0 + lifetime), t0 + lifetime + leeway, true).ok);
  CHECK(gate.spent_ids() == 1);  // v1 and v2 forgotten, v3 spent
  CHECK(gate.check(token, t0 + lifetime + leeway, true).error_code == "expired");

  // Without single use, spending records nothing.
  auto reusable = make_gate({});
  for (int i = 0; i < 3; ++i) CHECK(reusable.check(token, t0 + 1, true).ok);
  CHECK(reusable.spent_ids() == 0);
}

TEST_CASE_METHOD(gate_fixture, "a full set of spent ids refuses new passes rather than forget a live id") {
  pass::gate_settings settings;
  settings.single_use = true;
  settings.single_use_capacity = 1;
  auto gate = make_gate(settings);
  CHECK(gate.check(pass_for("a"), t0 + 1, true).ok);
  CHECK(gate.check(pass_for("b"), t0 + 1, false).ok);  // looking is still fine
  CHECK(gate.check(pass_for("b"), t0 + 1, true).error_code == "single_use_full");
  CHECK(gate.check(pass_for("a"), t0 + 1, true).error_code == "spent");
  // Once a's pass has expired its id leaves, and there is room again.
  CHECK(gate.check(pass_for("b", t0 + lifetime), t0 + lifetime + leeway, true).ok);
  CHECK(gate.spent_ids() == 1);
}
