#include <catch2/catch.hpp>

#include <foyer/clock.hpp>

#include "support/journal_fixture.hpp"

using namespace foyer;

namespace {

std::int64_t fake_wall = 0;
std::int64_t fake_steady = 0;
std::int64_t wall() { return fake_wall; }
std::int64_t steady() { return fake_steady; }

}  // namespace

TEST_CASE("the rooms' clock starts at the wall clock and runs on when the wall clock steps back") {
  fake_wall = 1'800'000'000'000;
  fake_steady = 5'000;
  system_clock c(wall, steady);
  CHECK(c.steady_ms() == 1'800'000'000'000);
  fake_wall += 1'000;
  fake_steady += 1'000;
  CHECK(c.steady_ms() == 1'800'000'001'000);
  fake_wall -= 3'600'000;  // set back an hour by hand
  fake_steady += 1'000;
  CHECK(c.now_ms() == 1'799'996'401'000);
  CHECK(c.steady_ms() == 1'800'000'002'000);
  // After a restart on a clock that went back while down: never behind the log.
  system_clock restarted(wall, steady);
  CHECK(restarted.steady_ms() == 1'799'996'401'000);
  restarted.not_before(1'800'000'002'000);
  CHECK(restarted.steady_ms() == 1'800'000'002'000);
  restarted.not_before(1'000);
  CHECK(restarted.steady_ms() == 1'800'000'002'000);
}

TEST_CASE_METHOD(foyer::test::journal_fixture, "admission on the rooms' clock neither freezes nor reverses when the wall clock steps back") {
  start({foyer::test::test_room("a", 60)});
  for (int i = 0; i < 100; ++i) join("a");
  clock.advance_ms(10'000);
  REQUIRE(tick("a"));
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 10);
  clock.step_wall_ms(-3'600'000);
  clock.advance_ms(5'000);
  REQUIRE(tick("a"));
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 15);
  restart();
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 15);
  CHECK(rooms->latest_ms() == clock.steady_ms());
}
