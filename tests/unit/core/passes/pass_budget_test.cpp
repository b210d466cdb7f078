#include <catch2/catch.hpp>

#include "core/passes/pass_budget.hpp"

using namespace foyer;

namespace {

id16 pass_of(std::uint32_t n) {
  id16 id{};
  for (int i = 0; i < 4; ++i) id[i] = static_cast<std::uint8_t>(n >> (8 * i));
  return id;
}

}  // namespace

TEST_CASE("a pass spends its budget at once, then one request per 60/n seconds, with the wait to the next") {
  pass::pass_budget budget(30);
  std::int64_t now = 1'000'000;
  for (int i = 0; i < 30; ++i) CHECK_FALSE(budget.spend(pass_of(1), now));
  auto wait = budget.spend(pass_of(1), now);
  REQUIRE(wait);
  CHECK(*wait == 2'000);
  // Another pass has its own.
  CHECK_FALSE(budget.spend(pass_of(2), now));
  now += 2'000;
  CHECK_FALSE(budget.spend(pass_of(1), now));
  CHECK(budget.spend(pass_of(1), now));
  // A clock that steps back refills nothing.
  CHECK(budget.spend(pass_of(1), now - 60'000));
  // A minute later the budget is whole again, never more.
  now += 120'000;
  for (int i = 0; i < 30; ++i) CHECK_FALSE(budget.spend(pass_of(1), now));
  CHECK(budget.spend(pass_of(1), now));
}

TEST_CASE("the budget remembers a bounded number of passes, forgetting the one that asked longest ago") {
  pass::pass_budget budget(1, /*max_passes=*/3);
  for (std::uint32_t p = 1; p <= 3; ++p) CHECK_FALSE(budget.spend(pass_of(p), 0));
  CHECK(budget.spend(pass_of(1), 0));  // pass 1 asked last now
  CHECK_FALSE(budget.spend(pass_of(4), 0));  // pass 2 is forgotten
  CHECK(budget.remembered() == 3);
  CHECK_FALSE(budget.spend(pass_of(2), 0));  // a fresh budget; pass 3 is forgotten
  CHECK(budget.spend(pass_of(1), 0));
  CHECK(budget.remembered() == 3);
}

TEST_CASE("a budget of 0 is none, and keeps nothing") {
  pass::pass_budget budget(0);
  for (int i = 0; i < 1000; ++i) CHECK_FALSE(budget.spend(pass_of(1), 0));
  CHECK(budget.remembered() == 0);
}
