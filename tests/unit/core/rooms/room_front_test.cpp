#include <catch2/catch.hpp>

#include "core/lanes/lane_place.hpp"
#include "core/rooms/room_front.hpp"
#include "support/room_fixture.hpp"

using namespace foyer;
using foyer::test::room_fixture;

namespace {

constexpr double mid_jitter = 0.5;
// Visitors more than 20 places back are far.
constexpr status_window window{20, 5};

void check_same(const visitor_status& a, const visitor_status& b) {
  CHECK(a.state == b.state);
  CHECK(a.lane == b.lane);
  CHECK(a.place == b.place);
  CHECK(a.served == b.served);
  CHECK(a.position == b.position);
  CHECK(a.eta_seconds == b.eta_seconds);
  CHECK(a.held == b.held);
  CHECK(a.poll_after_ms == b.poll_after_ms);
  CHECK(a.frontier_above == b.frontier_above);
}

}  // namespace

TEST_CASE_METHOD(room_fixture, "from a published front, a far-back visitor hears what the room said when it was taken") {
  room r = make(fifo_config(120));  // two a second
  join_many(r, 300);
  now_ms += 5'000;
  step(r);
  now_ms += 1'500;  // between steps: the frontier at now, not at the last step
  REQUIRE(r.served(now_ms) == 13);
  auto taken = now_ms;
  auto front = room_front_of(r, taken);
  for (std::uint64_t place : {34u, 100u, 299u}) {
    auto far = far_status(front, taken, place, mid_jitter, window);
    REQUIRE(far);
    check_same(*far, status_of(r, place, taken, mid_jitter, window));
  }
  // Later joins and admissions change the room, not the front: it answers as of its time.
  join_many(r, 10);
  now_ms += 3'000;
  auto later = far_status(front, taken, 100, mid_jitter, window);
  REQUIRE(later);
  CHECK(later->served == 13);
  CHECK(later->position == 87u);
}

TEST_CASE_METHOD(room_fixture, "the front leaves to the room the visitors near the front, the admitted and the stopped") {
  room r = make(fifo_config(120));
  join_many(r, 300);
  now_ms += 5'000;
  step(r);
  REQUIRE(r.served(now_ms) == 10);
  auto front = room_front_of(r, now_ms);
  CHECK(far_status(front, now_ms, 31, mid_jitter, window));
  // 20 places back or nearer: their status may carry a pass any moment.
  CHECK_FALSE(far_status(front, now_ms, 30, mid_jitter, window));
  CHECK_FALSE(far_status(front, now_ms, 12, mid_jitter, window));
  // Admitted: the pass is claimed and signed on the loop.
  CHECK_FALSE(far_status(front, now_ms, 3, mid_jitter, window));
  // A lane the room doesn't have.
  CHECK_FALSE(far_status(front, now_ms, lane_place(1, 100), mid_jitter, window));
  for (auto state : {room_state::paused, room_state::sold_out, room_state::closed}) {
    room stopped = make(fifo_config(120));
    join_many(stopped, 300);
    change(stopped, state);
    CHECK_FALSE(far_status(room_front_of(stopped, now_ms), now_ms, 200, mid_jitter, window));
  }
}

TEST_CASE_METHOD(room_fixture, "a room holds only the places and lobby indexes its log gave: past them, a restore lost the ticket") {
  auto gave = [](const room& in, std::optional<std::uint64_t> place, std::optional<std::uint64_t> lobby_index) {
    return in.gave(ticket{"r", {}, place, lobby_index, {}, 0});
  };
  room r = make(fifo_config(120));
  join_many(r, 300);
  CHECK(gave(r, 299, std::nullopt));
  // A log restored from an older copy lacks the joins after it: their places are not its.
  CHECK_FALSE(gave(r, 300, std::nullopt));
  CHECK_FALSE(gave(r, lane_place(1, 0), std::nullopt));  // a lane the room never had
  // The poll path leaves such a place to the room, which refuses it, at the cost of a comparison.
  auto front = room_front_of(r, now_ms);
  CHECK(far_status(front, now_ms, 299, mid_jitter, window));
  CHECK_FALSE(far_status(front, now_ms, 300, mid_jitter, window));
  CHECK_FALSE(far_status(front, now_ms, 5'000, mid_jitter, window));

  room lobby = make(lobby_config());
  join_many(lobby, 10);
  CHECK(gave(lobby, std::nullopt, 9));
  CHECK_FALSE(gave(lobby, std::nullopt, 10));
}
