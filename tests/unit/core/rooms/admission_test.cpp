#include <catch2/catch.hpp>

#include "core/rooms/admission.hpp"
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
    REQUIRE(rooms->find("r")->served(clock.now_ms()) == static_cast<std::uint64_t>(37 * elapsed / 60'000));
  }
  CHECK(restarts > 50);
}

TEST_CASE_METHOD(journal_fixture, "a restart after downtime admits at most the 15 s cap") {
  start({test_room("r", 120)});
  for (int i = 0; i < 1'000; ++i) join("r");
  clock.advance_ms(10'000);
  tick("r");
  REQUIRE(rooms->find("r")->served(clock.now_ms()) == 20);
  restart();
  clock.advance_ms(300'000);  // five minutes down
  tick("r");
  CHECK(rooms->find("r")->served(clock.now_ms()) == 20 + 30);  // 120/min × 15 s, not × 300 s
}

TEST_CASE_METHOD(journal_fixture, "admission never passes the last joined visitor") {
  start({test_room("r", 6'000)});
  for (int i = 0; i < 5; ++i) join("r");
  clock.advance_ms(10'000);
  tick("r");
  CHECK(rooms->find("r")->served(clock.now_ms()) == 5);
  // Unused capacity is not hoarded: a newcomer waits for the next step's share.
  auto outcome = join("r");
  CHECK(outcome.place == 5u);
  clock.advance_ms(5);
  tick("r");
  CHECK(rooms->find("r")->served(clock.now_ms()) == 5);
  clock.advance_ms(10);
  tick("r");
  CHECK(rooms->find("r")->served(clock.now_ms()) == 6);
}

TEST_CASE_METHOD(journal_fixture, "paused rooms admit nothing and resume without a burst") {
  start({test_room("r", 60)});
  for (int i = 0; i < 100; ++i) join("r");
  clock.advance_ms(5'000);
  tick("r");
  REQUIRE(rooms->find("r")->served(clock.now_ms()) == 5);
  REQUIRE_FALSE(commit(state_changed{"r", room_state::paused, clock.now_ms()}).first);
  clock.advance_ms(60'000);
  CHECK_FALSE(tick("r"));
  REQUIRE_FALSE(commit(state_changed{"r", room_state::open, clock.now_ms()}).first);
  clock.advance_ms(2'000);
  tick("r");
  CHECK(rooms->find("r")->served(clock.now_ms()) == 7);
}

TEST_CASE_METHOD(journal_fixture, "the frontier is rate × time while a step is slow to become durable") {
  start({test_room("r", 1'200)});  // a visitor every 50 ms
  for (int i = 0; i < 1'000; ++i) join("r");
  const std::int64_t opened = start_ms;
  clock.advance_ms(1'000);
  auto step = rooms->find("r")->due(clock.now_ms());
  REQUIRE(step);
  // The step's sync takes 800 ms, as on a disk that stalls: its completion waits.
  bool durable = false;
  rooms->submit(*step, [&](std::error_code ec, const join_outcome&) { durable = !ec; });
  for (int ms = 0; ms < 800; ms += 10) {
    REQUIRE(rooms->find("r")->served(clock.now_ms()) == static_cast<std::uint64_t>((clock.now_ms() - opened) / 50));
    clock.advance_ms(10);
  }
  drain();
  REQUIRE(durable);
  CHECK(rooms->find("r")->served(clock.now_ms()) == 36);
}

TEST_CASE_METHOD(journal_fixture, "a stop keeps the frontier where it was, in flight, applied and after a restart") {
  start({test_room("r", 6'000)});  // 100 a second
  for (int i = 0; i < 1'000; ++i) join("r");
  clock.advance_ms(2'500);
  const room& r = *rooms->find("r");
  REQUIRE(r.served(clock.now_ms()) == 250);
  bool paused = false;
  rooms->submit(state_changed{"r", room_state::paused, clock.now_ms()},
                [&](std::error_code ec, const join_outcome&) { paused = !ec; });
  clock.advance_ms(700);
  CHECK(r.served(clock.now_ms()) == 250);
  // The ticker, not knowing of the pause yet, decides a step meanwhile.
  auto late = r.due(clock.now_ms());
  REQUIRE(late);
  rooms->submit(*late, [](std::error_code, const join_outcome&) {});
  drain();
  REQUIRE(paused);
  CHECK(r.state() == room_state::paused);
  CHECK(r.served(clock.now_ms()) == 250);
  clock.advance_ms(60'000);
  CHECK(r.served(clock.now_ms()) == 250);
  restart();
  CHECK(rooms->find("r")->served(clock.now_ms()) == 250);
}

TEST_CASE_METHOD(journal_fixture, "a stop that is not durable lets the frontier go on") {
  start({test_room("r", 6'000)});
  for (int i = 0; i < 1'000; ++i) join("r");
  clock.advance_ms(2'000);
  store.fail_next_writes(1);
  std::error_code failed;
  rooms->submit(state_changed{"r", room_state::paused, clock.now_ms()},
                [&](std::error_code ec, const join_outcome&) { failed = ec; });
  clock.advance_ms(300);
  CHECK(rooms->find("r")->served(clock.now_ms()) == 200);
  drain();
  REQUIRE(failed);
  CHECK(rooms->find("r")->state() == room_state::open);
  CHECK(rooms->find("r")->served(clock.now_ms()) == 230);
}

TEST_CASE_METHOD(journal_fixture, "a join durable before a step admits it at once if the rate allows") {
  start({test_room("r", 600)});  // 10 a second
  for (int i = 0; i < 5; ++i) join("r");
  clock.advance_ms(2'000);
  REQUIRE(rooms->find("r")->served(clock.now_ms()) == 5);  // the queue is empty
  auto ignore = [](std::error_code, const join_outcome&) {};
  rooms->submit(visitor_joined{"r", {}, {}, clock.now_ms(), std::nullopt}, ignore);
  // The step is decided before that join is durable, and is logged after it.
  auto step = rooms->find("r")->due(clock.now_ms());
  REQUIRE(step);
  rooms->submit(*step, ignore);
  complete_one();
  CHECK(rooms->find("r")->served(clock.now_ms()) == 6);
  complete_one();
  CHECK(rooms->find("r")->served(clock.now_ms()) == 6);
}

TEST_CASE_METHOD(journal_fixture, "no crash, stop, failed write or emptied queue takes back what was admitted") {
  start({test_room("r", 600)});  // 10 a second
  std::uint64_t lcg = 7, seen = 0, restarts = 0, emptied = 0;
  auto next = [&](std::uint64_t n) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (lcg >> 33) % n;
  };
  auto ignore = [](std::error_code, const join_outcome&) {};
  for (int i = 0; i < 20'000; ++i) {
    clock.advance_ms(static_cast<std::int64_t>(next(400)) + 1);
    room* r = rooms->find("r");
    switch (next(10)) {
      case 0: join("r"); break;  // drains whatever is in flight
      case 1: restart(); ++restarts; break;
      case 2:
      case 3:
      case 4:
        if (auto step = r->due(clock.now_ms())) {
          if (next(3) == 0) store.fail_next_writes(1);
          rooms->submit(*step, ignore);
        }
        break;
      case 5: {
        auto target = r->state() == room_state::open ? room_state::paused : room_state::open;
        if (!r->allows(target)) break;
        if (next(4) == 0) store.fail_next_writes(1);
        rooms->submit(state_changed{"r", target, clock.now_ms()}, ignore);
        break;
      }
      case 6: drain(); break;
      case 7: rooms->submit(visitor_joined{"r", {}, {}, clock.now_ms(), std::nullopt}, ignore); break;
      case 8:
        if (!queue.empty()) complete_one();
        break;
      default: break;
    }
    r = rooms->find("r");
    auto served = r->served(clock.now_ms());
    REQUIRE(served >= seen);
    REQUIRE(served <= r->joined());
    REQUIRE(served <= static_cast<std::uint64_t>((clock.now_ms() - start_ms) / 100 + 1));
    if (served == r->joined()) ++emptied;
    seen = served;
  }
  CHECK(restarts > 500);
  CHECK(emptied > 1'000);
}
