#include <catch2/catch.hpp>

#include "core/ops/overload.hpp"

using namespace foyer::ops;

namespace {

// Thresholds 100 ms lag and 500 ms commits; 3 s hot climbs, 15 s calm descends.
struct ladder_fixture {
  overload_ladder ladder{overload_settings{}};
  std::int64_t now = 1'000'000;

  // Readings every second for `seconds`, each with this lag and commit latency.
  void readings(int seconds, std::int64_t lag_ms, std::int64_t commit_ms) {
    for (int i = 0; i < seconds; ++i) {
      now += 1'000;
      ladder.observe(now, lag_ms, commit_ms);
    }
  }
};

}  // namespace

TEST_CASE_METHOD(ladder_fixture, "the ladder climbs one level per sustained hot period, loop lag or storage") {
  CHECK(ladder.level() == overload_level::normal);
  readings(3, 150, 0);  // the first hot reading starts the streak: 2 s of it so far
  CHECK(ladder.level() == overload_level::normal);
  now += 1'000;
  CHECK(ladder.observe(now, 150, 0));
  CHECK(ladder.level() == overload_level::slow_polls);
  readings(2, 0, 600);  // still hot, from the storage now: the step needs 3 s of its own
  CHECK(ladder.level() == overload_level::slow_polls);
  readings(1, 0, 600);
  CHECK(ladder.level() == overload_level::shed_far_polls);
  readings(3, 0, 600);
  CHECK(ladder.level() == overload_level::refuse_joins);
  readings(30, 1'000, 1'000);
  CHECK(ladder.level() == overload_level::refuse_joins);
}

TEST_CASE_METHOD(ladder_fixture, "a hot period that breaks off climbs nothing") {
  readings(3, 150, 0);
  readings(1, 0, 0);
  readings(3, 150, 0);
  CHECK(ladder.level() == overload_level::normal);
}

TEST_CASE_METHOD(ladder_fixture, "it descends one level per 15 s calm, and readings near a threshold hold the level") {
  readings(10, 150, 0);
  REQUIRE(ladder.level() == overload_level::refuse_joins);
  readings(60, 80, 0);  // below the threshold, above half of it: neither hot nor calm
  CHECK(ladder.level() == overload_level::refuse_joins);
  readings(15, 40, 200);  // the first calm reading starts the streak
  CHECK(ladder.level() == overload_level::refuse_joins);
  now += 1'000;
  CHECK(ladder.observe(now, 40, 200));
  CHECK(ladder.level() == overload_level::shed_far_polls);
  readings(15, 0, 0);
  CHECK(ladder.level() == overload_level::slow_polls);
  readings(15, 0, 0);
  CHECK(ladder.level() == overload_level::normal);
  readings(60, 0, 0);
  CHECK(ladder.level() == overload_level::normal);
}

TEST_CASE_METHOD(ladder_fixture, "each level sheds its own work, and counts it") {
  std::uint32_t poll_after = 1'000;
  CHECK_FALSE(ladder.sheds_poll(1'000, poll_after));
  CHECK(poll_after == 1'000);
  CHECK_FALSE(ladder.refuses_join());

  readings(4, 150, 0);
  REQUIRE(ladder.level() == overload_level::slow_polls);
  CHECK_FALSE(ladder.sheds_poll(1'000, poll_after));
  CHECK(poll_after == 3'000);
  CHECK_FALSE(ladder.refuses_join());

  readings(3, 150, 0);
  REQUIRE(ladder.level() == overload_level::shed_far_polls);
  poll_after = 1'000;
  CHECK(ladder.sheds_poll(301, poll_after));
  CHECK_FALSE(ladder.sheds_poll(300, poll_after));  // near the front: only slowed
  CHECK(poll_after == 3'000);
  CHECK_FALSE(ladder.sheds_poll(std::nullopt, poll_after));  // in a lobby: no place to be far from
  CHECK_FALSE(ladder.refuses_join());

  readings(3, 150, 0);
  REQUIRE(ladder.level() == overload_level::refuse_joins);
  CHECK(ladder.refuses_join());
  CHECK(ladder.sheds_poll(1'000, poll_after));
  CHECK_FALSE(ladder.sheds_poll(0, poll_after));  // admitted: answered, with the pass

  CHECK(ladder.shed() == std::array<std::uint64_t, overload_levels>{0, 4, 2, 1});
}

TEST_CASE_METHOD(ladder_fixture, "ready once a write succeeded within 5 s, and while not refusing joins") {
  CHECK(ladder.not_ready(now) == "storage_stalled");
  ladder.write_succeeded(now);
  CHECK(ladder.not_ready(now + 5'000).empty());
  CHECK(ladder.not_ready(now + 5'001) == "storage_stalled");
  ladder.write_succeeded(now + 5'001);
  readings(10, 150, 0);
  ladder.write_succeeded(now);
  REQUIRE(ladder.level() == overload_level::refuse_joins);
  CHECK(ladder.not_ready(now) == "shedding");
  CHECK(to_string(ladder.level()) == "refuse_joins");
}
