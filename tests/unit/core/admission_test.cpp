#include <catch2/catch.hpp>

#include "core/admission.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::journal_fixture;
using foyer::test::test_room;

TEST_CASE("admission_due is exact for any split of time") {
  // 37 per minute split into steps of 1..1999 ms: the sum equals floor(rate × t).
  std::uint64_t admitted = 0, carry = 0;
  std::int64_t tick = 0, now = 0;
  std::uint64_t lcg = 12345;
  for (int i = 0; i < 100'000; ++i) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    now += static_cast<std::int64_t>(lcg >> 33) % 1999 + 1;
    auto step = admission_due(37, tick, carry, now);
    admitted += step.admit;
    tick = step.tick_ms;
    carry = step.carry;
    REQUIRE(admitted == static_cast<std::uint64_t>(37 * now / 60'000));
  }
}

TEST_CASE("admission_due caps a stall at 15 seconds and ignores a clock going back") {
  auto step = admission_due(600, 0, 0, 3'600'000);  // an hour stalled
  CHECK(step.admit == 150);                         // 600/min × 15 s
  CHECK(step.tick_ms == 3'600'000);
  auto back = admission_due(600, 10'000, 5, 9'000);
  CHECK(back.admit == 0);
  CHECK(back.tick_ms == 10'000);
  CHECK(back.carry == 5);
}

TEST_CASE_METHOD(journal_fixture, "served == floor(rate × t) over a long run and across restarts") {
  start({test_room("r", 37)});
  for (int i = 0; i < 2'500; ++i) join("r");
  const std::int64_t opened = start_ms;
  std::uint64_t lcg = 99;
  std::uint64_t restarts = 0;
  for (int i = 0; i < 20'000; ++i) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    clock.advance_ms(static_cast<std::int64_t>(lcg >> 33) % 400 + 1);
    tick("r");
    if ((lcg >> 20) % 97 == 0) {
      restart();  // a kill -9: the state is what the log made durable
      ++restarts;
    }
    auto elapsed = clock.now_ms() - opened;
    REQUIRE(rooms->find("r")->served() == static_cast<std::uint64_t>(37 * elapsed / 60'000));
  }
  CHECK(restarts > 50);
}

TEST_CASE_METHOD(journal_fixture, "a restart after downtime admits at most the 15 s cap") {
  start({test_room("r", 120)});
  for (int i = 0; i < 1'000; ++i) join("r");
  clock.advance_ms(10'000);
  tick("r");
  REQUIRE(rooms->find("r")->served() == 20);
  restart();
  clock.advance_ms(300'000);  // five minutes down
  tick("r");
  CHECK(rooms->find("r")->served() == 20 + 30);  // 120/min × 15 s, not × 300 s
}

TEST_CASE_METHOD(journal_fixture, "admission never passes the last joined visitor") {
  start({test_room("r", 6'000)});
  for (int i = 0; i < 5; ++i) join("r");
  clock.advance_ms(10'000);
  tick("r");
  CHECK(rooms->find("r")->served() == 5);
  // Unused capacity is not hoarded: a newcomer waits for the next step's share.
  auto outcome = join("r");
  CHECK(outcome.place == 5u);
  clock.advance_ms(5);
  tick("r");
  CHECK(rooms->find("r")->served() == 5);
  clock.advance_ms(10);
  tick("r");
  CHECK(rooms->find("r")->served() == 6);
}

TEST_CASE_METHOD(journal_fixture, "paused rooms admit nothing and resume without a burst") {
  start({test_room("r", 60)});
  for (int i = 0; i < 100; ++i) join("r");
  clock.advance_ms(5'000);
  tick("r");
  REQUIRE(rooms->find("r")->served() == 5);
  REQUIRE_FALSE(commit(state_changed{"r", room_state::paused, clock.now_ms()}).first);
  clock.advance_ms(60'000);
  CHECK_FALSE(tick("r"));
  REQUIRE_FALSE(commit(state_changed{"r", room_state::open, clock.now_ms()}).first);
  clock.advance_ms(2'000);
  tick("r");
  CHECK(rooms->find("r")->served() == 7);
}
