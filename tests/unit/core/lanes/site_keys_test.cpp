#include <catch2/catch.hpp>
#include <sodium.h>

#include <array>
#include <string>

#include <fmt/format.h>

#include "core/base/bytes.hpp"
#include "core/lanes/site_keys.hpp"

using namespace foyer;
using namespace foyer::invite;

namespace {

constexpr std::int64_t refresh_ms = 300'000;
constexpr std::int64_t start_ms = 1'000'000;

// A JWKS of one fresh Ed25519 key under `kid`.
std::string one_key_jwks(std::string_view kid) {
  std::array<std::uint8_t, crypto_sign_PUBLICKEYBYTES> pk{};
  std::array<std::uint8_t, crypto_sign_SECRETKEYBYTES> sk{};
  crypto_sign_keypair(pk.data(), sk.data());
  return fmt::format(R"({{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"{}"}}]}})", base64url_encode(pk), kid);
}

std::uint64_t count(const site_keys& k, fetch_outcome o) { return k.fetches()[static_cast<std::size_t>(o)]; }

}  // namespace

TEST_CASE("max-age is read from a Cache-Control value, or nothing is", "[site_keys]") {
  CHECK(max_age_seconds("max-age=600") == 600);
  CHECK(max_age_seconds("public, MAX-AGE = 60 , must-revalidate") == 60);
  CHECK(max_age_seconds("max-age=\"30\"") == 30);
  CHECK(max_age_seconds("s-maxage=10, max-age=0") == 0);
  CHECK_FALSE(max_age_seconds(""));
  CHECK_FALSE(max_age_seconds("no-store"));
  CHECK_FALSE(max_age_seconds("max-age=-1"));
  CHECK_FALSE(max_age_seconds("max-age=1e3"));
  CHECK_FALSE(max_age_seconds("max-age=99999999999"));
}

TEST_CASE("inline keys are always in use and never fetched; no keys, nothing is", "[site_keys]") {
  site_keys fixed(jwk_set::parse(one_key_jwks("a")));
  REQUIRE(fixed.keys());
  CHECK_FALSE(fixed.awaiting_first());
  bool asked = false;
  fixed.on_key_missed([&] { asked = true; });
  fixed.key_missed();
  CHECK_FALSE(asked);
  site_keys none;
  CHECK_FALSE(none.keys());
  CHECK_FALSE(none.awaiting_first());
}

TEST_CASE("fetched keys: due at once, retried with back-off until one is good, then refreshed", "[site_keys]") {
  auto k = site_keys::fetched(refresh_ms, start_ms);
  CHECK(k.awaiting_first());
  CHECK_FALSE(k.keys());
  CHECK(k.next_fetch_ms() == start_ms);

  // Failures back off 1 s, 2 s, 4 s... and never past the refresh interval.
  std::int64_t now = start_ms;
  std::int64_t expected_wait = first_retry_ms;
  for (int i = 0; i < 12; ++i) {
    k.fetch_started(now);
    k.failed(now);
    CHECK(k.next_fetch_ms() == now + std::min(expected_wait, refresh_ms));
    now = k.next_fetch_ms();
    expected_wait *= 2;
  }
  CHECK(k.awaiting_first());
  CHECK(count(k, fetch_outcome::failed) == 12);

  // An answer that is not a key set is no better.
  k.fetch_started(now);
  auto problem = k.answered(R"({"keys":"none"})", "", now);
  REQUIRE(problem);
  CHECK_THAT(*problem, Catch::Contains("invalid JWKS"));
  CHECK(k.awaiting_first());
  CHECK(k.next_fetch_ms() == now + refresh_ms);  // the back-off is at the interval by now

  // A good one is in use at once; the next fetch comes a refresh later, the back-off forgotten.
  auto first = one_key_jwks("a");
  k.fetch_started(now);
  CHECK_FALSE(k.answered(first, "", now));
  REQUIRE(k.keys());
  CHECK(k.keys()->find(std::string_view("a")));
  CHECK(k.changed());
  CHECK(k.next_fetch_ms() == now + refresh_ms);
  CHECK(count(k, fetch_outcome::ok) == 1);
  CHECK(count(k, fetch_outcome::invalid) == 1);

  // The same set again is no change; a failure then keeps it, and retries after 1 s.
  now += refresh_ms;
  k.fetch_started(now);
  CHECK_FALSE(k.answered(first, "", now));
  CHECK_FALSE(k.changed());
  k.fetch_started(now + refresh_ms);
  k.failed(now + refresh_ms);
  CHECK(k.next_fetch_ms() == now + refresh_ms + first_retry_ms);
  k.fetch_started(k.next_fetch_ms());
  CHECK(k.answered(std::string(max_jwks_bytes + 1, ' '), "", k.next_fetch_ms()));
  REQUIRE(k.keys());
  CHECK(k.keys()->find(std::string_view("a")));
}

TEST_CASE("a Cache-Control max-age shortens the wait to the next refresh, within bounds", "[site_keys]") {
  auto k = site_keys::fetched(refresh_ms, start_ms);
  auto jwks = one_key_jwks("a");
  auto wait_after = [&](std::string_view cache_control) {
    k.fetch_started(k.next_fetch_ms());
    auto at = k.next_fetch_ms();
    REQUIRE_FALSE(k.answered(jwks, cache_control, at));
    return k.next_fetch_ms() - at;
  };
  CHECK(wait_after("max-age=120") == 120'000);
  CHECK(wait_after("max-age=0") == min_max_age_ms);
  CHECK(wait_after("max-age=86400") == refresh_ms);
  CHECK(wait_after("no-cache") == refresh_ms);
  // An interval under the floor is kept as it is.
  auto quick = site_keys::fetched(5'000, start_ms);
  quick.fetch_started(start_ms);
  REQUIRE_FALSE(quick.answered(jwks, "max-age=0", start_ms));
  CHECK(quick.next_fetch_ms() == start_ms + 5'000);
}

TEST_CASE("a missed kid asks for an early fetch: the first at once, then one per gap", "[site_keys]") {
  auto k = site_keys::fetched(refresh_ms, start_ms);
  std::size_t asked = 0;
  k.on_key_missed([&] { ++asked; });
  k.fetch_started(start_ms);
  REQUIRE_FALSE(k.answered(one_key_jwks("a"), "", start_ms));
  auto scheduled = start_ms + refresh_ms;

  std::int64_t now = start_ms + 1'000;
  k.key_missed();
  CHECK(asked == 1);
  CHECK(k.next_fetch_ms() <= now);
  k.fetch_started(now);
  REQUIRE_FALSE(k.answered(one_key_jwks("b"), "", now));
  scheduled = now + refresh_ms;
  CHECK(k.next_fetch_ms() == scheduled);

  // Another miss soon after: the next early fetch waits out the gap.
  k.key_missed();
  k.key_missed();
  CHECK(asked == 3);
  CHECK(k.next_fetch_ms() == now + early_fetch_gap_ms);
  auto early = k.next_fetch_ms();
  k.fetch_started(early);
  k.failed(early);
  // The failure's retry, not another early fetch; no miss since, no early fetch either.
  CHECK(k.next_fetch_ms() == early + first_retry_ms);
  k.fetch_started(early + first_retry_ms);
  REQUIRE_FALSE(k.answered(one_key_jwks("c"), "", early + first_retry_ms));
  CHECK(k.next_fetch_ms() == early + first_retry_ms + refresh_ms);
  // The gap counts from the last early fetch, whatever came between.
  k.key_missed();
  CHECK(k.next_fetch_ms() == early + early_fetch_gap_ms);
}
