#include <catch2/catch.hpp>

#include "core/rooms/status.hpp"
#include "support/room_fixture.hpp"

using namespace foyer;
using foyer::test::room_fixture;

namespace {

constexpr double no_jitter = 0.0;
constexpr double mid_jitter = 0.5;  // ×1.0: the interval itself
constexpr double top_jitter = 0.999'999;
// Polls come every 1 s to 30 s, spread by ×0.8 to ×1.2.
constexpr std::uint32_t earliest_poll_ms = 800;
constexpr std::uint32_t latest_poll_ms = 36'000;

std::uint32_t poll_after(const room& r, std::uint64_t place, std::int64_t now_ms, double jitter) {
  return status_of(r, place, now_ms, jitter).poll_after_ms;
}

}  // namespace

TEST_CASE_METHOD(room_fixture, "a lobby member polls more often as the draw nears") {
  room r = make(lobby_config());
  join(r);
  auto st = status_of(r, std::nullopt, now_ms, mid_jitter);
  CHECK(st.state == "lobby");
  CHECK_FALSE(st.place);
  CHECK_FALSE(st.position);
  CHECK_FALSE(st.eta_seconds);
  CHECK(st.served == 0);
  // 70 s to the draw: polls every four tenths of the time left.
  CHECK(st.poll_after_ms == 28'000);
  CHECK(status_of(r, std::nullopt, lobby_closes_ms - 10'000, mid_jitter).poll_after_ms == 4'000);
  CHECK(status_of(r, std::nullopt, lobby_closes_ms - 1'000, mid_jitter).poll_after_ms == 1'000);
  CHECK(status_of(r, std::nullopt, lobby_closes_ms + 5'000, mid_jitter).poll_after_ms == 1'000);  // a late close
  CHECK(status_of(r, std::nullopt, created_ms - 3'600'000, mid_jitter).poll_after_ms == 30'000);
}

TEST_CASE_METHOD(room_fixture, "a lobby member waits for the draw while the beacon is due") {
  room r = in_state(room_state::drawing);
  auto st = status_of(r, std::nullopt, now_ms, mid_jitter);
  CHECK(st.state == "drawing");
  CHECK_FALSE(st.position);
  CHECK(st.poll_after_ms == 2'000);
  CHECK(status_of(r, std::nullopt, now_ms, no_jitter).poll_after_ms == 1'600);
  // Those who came after the close have places behind the lobby already.
  auto late = status_of(r, 10, now_ms, mid_jitter);
  CHECK(late.state == "waiting");
  CHECK(late.position == 10u);
}

TEST_CASE_METHOD(room_fixture, "a waiting visitor's position is place minus served, the eta follows the rate") {
  room r = make(fifo_config(120));  // two a second
  join_many(r, 50);
  now_ms += 5'000;
  step(r);
  REQUIRE(r.served(now_ms) == 10);
  auto st = status_of(r, 30, now_ms, mid_jitter);
  CHECK(st.state == "waiting");
  CHECK(st.place == 30u);
  CHECK(st.served == 10);
  CHECK(st.position == 20u);
  CHECK(st.eta_seconds == 11u);     // 21 admissions at 500 ms, rounded up
  CHECK(st.poll_after_ms == 1'050);  // a tenth of the wait

  // Next in line: its own admission is the wait.
  auto next = status_of(r, 10, now_ms, mid_jitter);
  CHECK(next.state == "waiting");
  CHECK(next.position == 0u);
  CHECK(next.eta_seconds == 1u);

  // Between steps the answer follows the frontier at now, not the last step.
  auto later = status_of(r, 30, now_ms + 1'500, mid_jitter);
  CHECK(later.served == 13);
  CHECK(later.position == 17u);

  room slow = make(fifo_config(7));
  join(slow);
  CHECK(status_of(slow, 0, now_ms, mid_jitter).eta_seconds == 9u);  // 8.57 s for one at 7 a minute
}

TEST_CASE_METHOD(room_fixture, "an admitted visitor is told so and polls rarely") {
  room r = in_state(room_state::open);
  REQUIRE(r.served(now_ms) == 3);
  for (std::uint64_t place : {0u, 2u}) {
    auto st = status_of(r, place, now_ms, mid_jitter);
    CHECK(st.state == "admitted");
    CHECK(st.position == 0u);
    CHECK(st.eta_seconds == 0u);
    CHECK(st.poll_after_ms == 30'000);
  }
  CHECK(status_of(r, 3, now_ms, mid_jitter).state == "waiting");
}

TEST_CASE_METHOD(room_fixture, "a stopped room tells those still waiting why, with no wait, and the admitted stay admitted") {
  const std::pair<room_state, std::string_view> stopped[] = {
      {room_state::paused, "paused"}, {room_state::sold_out, "sold_out"}, {room_state::closed, "closed"}};
  for (const auto& [state, name] : stopped) {
    INFO(name);
    room r = in_state(state);
    REQUIRE(r.served(now_ms + 60'000) == 3);
    auto waiting = status_of(r, 8, now_ms + 60'000, mid_jitter);
    CHECK(waiting.state == name);
    CHECK(waiting.served == 3);
    CHECK(waiting.position == 5u);
    CHECK_FALSE(waiting.eta_seconds);  // no wait is made up while nobody is admitted
    CHECK(status_of(r, 1, now_ms + 60'000, mid_jitter).state == "admitted");
  }
}

TEST_CASE_METHOD(room_fixture, "polls come every 1 s to 30 s before a jitter of 0.8 to 1.2 times") {
  room r = make(fifo_config(60));  // a wait of (position + 1) seconds
  join(r);
  // Each position's interval: a tenth of its wait, within 1 s .. 30 s.
  const std::pair<std::uint64_t, std::uint32_t> intervals[] = {
      {0, 1'000}, {9, 1'000}, {19, 2'000}, {99, 10'000}, {299, 30'000}, {10'000'000, 30'000}};
  for (const auto& [place, interval] : intervals) {
    INFO("place " << place);
    CHECK(poll_after(r, place, now_ms, mid_jitter) == interval);
    CHECK(poll_after(r, place, now_ms, no_jitter) == interval * 8 / 10);
    CHECK(poll_after(r, place, now_ms, top_jitter) == interval * 12 / 10 - 1);
  }
  for (std::uint64_t place = 0; place < 1'000'000; place = place * 3 + 1) {
    for (double jitter : {no_jitter, 0.25, mid_jitter, 0.75, top_jitter}) {
      auto poll = poll_after(r, place, now_ms, jitter);
      CHECK(poll >= earliest_poll_ms);
      CHECK(poll < latest_poll_ms);
    }
  }
}

TEST_CASE_METHOD(room_fixture, "jitter spreads a crowd's polls instead of keeping them in step") {
  room r = make(fifo_config(60));
  join(r);
  std::uint32_t previous = 0;
  for (int i = 0; i < 100; ++i) {
    auto poll = poll_after(r, 99, now_ms, i / 100.0);
    CHECK(poll > previous);
    previous = poll;
  }
  CHECK(poll_after(r, 99, now_ms, top_jitter) - poll_after(r, 99, now_ms, no_jitter) > 3'900);
}

TEST_CASE_METHOD(room_fixture, "those far back poll more rarely than those near the front") {
  room r = make(fifo_config(60));
  join(r);
  std::uint32_t previous = 0;
  for (std::uint64_t place = 0; place < 1'000; place += 7) {
    auto poll = poll_after(r, place, now_ms, mid_jitter);
    CHECK(poll >= previous);
    previous = poll;
  }
  CHECK(poll_after(r, 500, now_ms, mid_jitter) > poll_after(r, 50, now_ms, mid_jitter));
  CHECK(poll_after(r, 50, now_ms, mid_jitter) > poll_after(r, 5, now_ms, mid_jitter));
}

TEST_CASE_METHOD(room_fixture, "a lobby member of a room stopped before the draw is told it stopped") {
  const std::pair<room_state, std::string_view> stops[] = {{room_state::sold_out, "sold_out"},
                                                          {room_state::closed, "closed"}};
  for (const auto& [stop, name] : stops) {
    for (room_state phase : {room_state::lobby, room_state::drawing}) {
      INFO(to_string(phase) << " -> " << name);
      room r = in_state(phase);
      change(r, stop);
      REQUIRE(r.state() == stop);
      CHECK(status_of(r, std::nullopt, now_ms, 0.5).state == name);
    }
  }
}

TEST_CASE_METHOD(room_fixture, "far back, a visitor may poll the frontier; near the front, or at the rate's horizon, their status") {
  room r = make(fifo_config(120));  // two a second
  join_many(r, 50);
  // The places win at a slow rate: 90 s at two a second is 180 places.
  CHECK(status_of(r, 40, now_ms, mid_jitter, {200, 90}).frontier_above == 200u);
  CHECK(status_of(r, 40, now_ms, mid_jitter, {5, 90}).frontier_above == 180u);
  CHECK(status_of(r, 40, now_ms, mid_jitter, {5, 1}).frontier_above == 5u);
  // A part of a visitor a minute still counts a whole place.
  room fast = make(fifo_config(61));
  join_many(fast, 5);
  CHECK(status_of(fast, 4, now_ms, mid_jitter, {0, 1}).frontier_above == 2u);
  // Nothing to wait for: no split.
  now_ms += 60'000;
  step(r);
  REQUIRE(r.served(now_ms) > 0);
  CHECK_FALSE(status_of(r, 0, now_ms, mid_jitter).frontier_above);
  room sold = in_state(room_state::sold_out);
  CHECK_FALSE(status_of(sold, 5, now_ms, mid_jitter).frontier_above);
  room paused = in_state(room_state::paused);
  CHECK(status_of(paused, 5, now_ms, mid_jitter).frontier_above);
}
