#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "core/base/codec.hpp"
#include "core/rooms/room_front.hpp"
#include "core/rooms/status.hpp"
#include "support/encoding.hpp"
#include "support/room_fixture.hpp"

using namespace foyer;
using foyer::test::first_difference;
using foyer::test::room_fixture;

namespace {

lane_config lane(std::string id, std::uint32_t share, lane_entry entry = lane_entry::code, bool priority = false) {
  return {std::move(id), "", share, priority, entry};
}

// A presale: members 0.3 with codes, residents 0.2 with codes, the general lane the rest.
room_config presale_config(std::uint32_t rate_per_minute = 600) {
  auto c = room_fixture::fifo_config(rate_per_minute);
  c.lanes = {lane("members", 300'000), lane("residents", 200'000)};
  REQUIRE_FALSE(check_room(c));
  return c;
}

struct lanes_fixture : room_fixture {
  join_outcome join_lane(room& r, std::string_view id) {
    ++visitors;
    visitor_joined e{"r", id16{visitors, 0x1a}, entrant_of(visitors), now_ms, std::nullopt};
    e.lane = *r.lanes().index_of(id);
    std::vector<merkle::stored_node> completed;
    return r.apply(e, completed);
  }
};

}  // namespace

TEST_CASE_METHOD(lanes_fixture, "each lane numbers its own places and keeps its own frontier", "[lanes]") {
  room r = make(presale_config());
  REQUIRE(r.lanes().size() == 3);
  CHECK(r.lanes().at(0).config.id == "general");
  CHECK(r.lanes().at(0).config.share == 500'000);
  auto g = join_lane(r, "general");
  auto m1 = join_lane(r, "members");
  auto m2 = join_lane(r, "members");
  REQUIRE(g.place == 0u);
  REQUIRE(m1.place);
  CHECK(lane_of(*m1.place) == *r.lanes().index_of("members"));
  CHECK(place_in_lane(*m1.place) == 0);
  CHECK(place_in_lane(*m2.place) == 1);
  auto st = status_of(r, *m2.place, now_ms, 0.5);
  CHECK(st.lane == "members");
  CHECK(st.place == 1u);
  CHECK(st.position == 1u);
  // 600 a minute: 10 a second, far more than the three waiting.
  now_ms += 1000;
  step(r);
  CHECK(r.served(now_ms) == 3);
  CHECK(r.lanes().at(*r.lanes().index_of("members")).served == 2);
  CHECK(status_of(r, *m2.place, now_ms, 0.5).state == "admitted");
}

TEST_CASE_METHOD(lanes_fixture, "the ticker's steps split admission by share, the unused share flowing on", "[lanes]") {
  room r = make(presale_config(60));  // one a second
  for (int i = 0; i < 50; ++i) {
    join_lane(r, "general");
    join_lane(r, "members");
  }
  for (int s = 0; s < 2; ++s) {
    now_ms += 10'000;
    step(r);
  }
  // Residents have nobody: general and members share 0.5 : 0.3 of the 20.
  auto general = r.lanes().at(0).served, members = r.lanes().at(*r.lanes().index_of("members")).served;
  CHECK(general + members == 20);
  CHECK(general == Approx(12.5).margin(1));
  CHECK(r.lane_rate(*r.lanes().index_of("members")) == 22);  // 60 × 0.3 / 0.8
  // Nobody waits in residents: its next visitor's rate, 60 × 0.2 with every lane waiting.
  CHECK(r.lane_rate(*r.lanes().index_of("residents")) == 12);
}

TEST_CASE_METHOD(lanes_fixture, "a visitor's position never goes backwards, whatever the other lanes and share changes do", "[lanes]") {
  std::mt19937_64 rng(3);
  room r = make(presale_config(120));
  const std::array<std::string_view, 3> ids{"general", "members", "residents"};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;  // (place, last position)
  for (int round = 0; round < 300; ++round) {
    switch (rng() % 4) {
      case 0:
      case 1: {
        auto joined = join_lane(r, ids[rng() % 3]);
        seen.emplace_back(*joined.place, ~std::uint64_t{0});
        break;
      }
      case 2: {
        now_ms += static_cast<std::int64_t>(rng() % 3000);
        step(r);
        break;
      }
      default: {
        auto c = r.config();
        c.lanes[rng() % 2].share = static_cast<std::uint32_t>(rng() % 400'000);
        REQUIRE_FALSE(check_room(c));
        r.apply(room_configured{"r", c, room_owner::api, std::nullopt, now_ms});
        break;
      }
    }
    for (auto& [place, last] : seen) {
      auto position = status_of(r, place, now_ms, 0.5).position.value();
      REQUIRE(position <= last);
      last = position;
    }
  }
  CHECK(r.lanes().totals() == std::pair{r.joined(), r.served(now_ms)});
}

TEST_CASE_METHOD(lanes_fixture, "a state of format 8, before lane lobbies and resume links, keeps its lanes", "[lanes]") {
  room r = make(presale_config());
  join_lane(r, "general");
  join_lane(r, "members");
  join_lane(r, "members");
  // Today's bytes less what format 8 did not have: each lane's count of places told "it's
  // your turn" (none), the lane lobbies' count (none in a FIFO room) and the resume links
  // (none), between the witnessing byte and the seat ledger.
  auto bytes = r.encode_state();
  std::vector<std::size_t> counts;
  for (std::uint8_t lane = 0; lane < r.lanes().size(); ++lane) {
    room told = r;
    told.apply(turn_notified{"r", lane_place(lane, 0), now_ms});
    counts.push_back(first_difference(bytes, told.encode_state()) - 7);
  }
  for (auto at = counts.rbegin(); at != counts.rend(); ++at) bytes.erase(*at, 8);
  writer seats, absent;
  r.seats().encode(seats);
  absent.u64(0);
  r.resume_links().encode(absent);
  auto tail = absent.take() + seats.take();
  REQUIRE(bytes.ends_with(tail));
  bytes = bytes.substr(0, bytes.size() - tail.size());
  writer seats_again;
  r.seats().encode(seats_again);
  bytes += seats_again.take();
  bytes[0] = 8;
  room back = make(presale_config());
  REQUIRE(back.decode_state(bytes));
  CHECK(back.lanes().at(*back.lanes().index_of("members")).joined == 2);
  CHECK(back.lanes().at(0).joined == 1);
  CHECK(back.encode_state() == r.encode_state());
}

TEST_CASE_METHOD(lanes_fixture, "lanes, their places and their passes survive the state's encoding", "[lanes]") {
  room r = make(presale_config());
  join_lane(r, "general");
  auto m = join_lane(r, "members");
  now_ms += 1000;
  step(r);
  r.apply(pass_claimed{"r", *m.place, id16{9}, now_ms});
  room back = make(presale_config());
  REQUIRE(back.decode_state(r.encode_state()));
  CHECK(back.encode_state() == r.encode_state());
  CHECK(back.place_of_pass(id16{9}) == m.place);
  CHECK(back.lanes().at(*back.lanes().index_of("members")).served == 1);
}

TEST_CASE_METHOD(lanes_fixture, "a lane with visitors waiting is not removed; given a share of 0 it still ends its queue", "[lanes]") {
  room r = make(presale_config(60));
  join_lane(r, "general");
  join_lane(r, "residents");
  auto without = r.config();
  without.lanes.pop_back();  // residents
  auto problem = r.refuses(without, 0);
  REQUIRE(problem);
  CHECK(problem->field == "lanes");
  auto zero = r.config();
  zero.lanes.back().share = 0;
  REQUIRE_FALSE(r.refuses(zero, 0));
  r.apply(room_configured{"r", zero, room_owner::api, std::nullopt, now_ms});
  now_ms += 2000;
  step(r);
  CHECK(r.lanes().at(*r.lanes().index_of("residents")).served == 1);
  // Once nobody waits there, it may go; a join decided before that is refused by the log.
  REQUIRE_FALSE(r.refuses(without, 0));
  r.apply(room_configured{"r", without, room_owner::api, std::nullopt, now_ms});
  CHECK(join_lane(r, "residents").refused);
}

TEST_CASE_METHOD(lanes_fixture, "a lane's own claim window: its admitted visitors lapse later than the others", "[lanes]") {
  auto c = presale_config();
  c.claim_window_seconds = 60;
  c.lanes[0].claim_window_seconds = 600;  // members
  room r = make(c);
  auto general = join_lane(r, "general");
  auto member = join_lane(r, "members");
  now_ms += 1000;
  step(r);
  REQUIRE(r.lanes().totals().second == 2);
  // Two minutes on, neither claimed: the general visitor lapsed, the member has time.
  for (int s = 0; s < 120; ++s) {
    now_ms += 1000;
    step(r);
  }
  CHECK(r.lapsed(*general.place, now_ms));
  CHECK_FALSE(r.lapsed(*member.place, now_ms));
  CHECK(r.no_shows() == 1);
}

TEST_CASE_METHOD(lanes_fixture, "each lane of a lottery room draws its own places from its own lobby", "[lanes]") {
  auto config = lobby_config();
  config.lanes = {lane("members", 300'000)};
  REQUIRE_FALSE(check_room(config));
  room r = make(config);
  REQUIRE(r.draw_lanes() == 2);
  auto members = *r.lanes().index_of("members");
  // The general lane's draw is the room's as before lanes; the lane's has its own seed.
  CHECK(r.commitment(0) == lottery::commitment(seed_of(1)));
  CHECK(r.commitment(members) == lottery::commitment(lane_seed(seed_of(1), "members")));
  CHECK(r.commitment(members) != r.commitment(0));

  std::vector<std::uint64_t> general_indexes, member_indexes;
  for (int i = 0; i < 12; ++i) {
    auto outcome = join_lane(r, i % 3 == 0 ? "members" : "general");
    REQUIRE(outcome.lobby_index);
    CHECK_FALSE(outcome.place);
    (i % 3 == 0 ? member_indexes : general_indexes).push_back(*outcome.lobby_index);
  }
  CHECK(r.lobby_size(0) == 8);
  CHECK(r.lobby_size(members) == 4);
  CHECK(lane_of(member_indexes[2]) == members);
  CHECK(place_in_lane(member_indexes[2]) == 2);
  CHECK(general_indexes[7] == 7);
  CHECK(status_of(r, std::nullopt, now_ms, 0.5, {}, member_indexes[0]).lane == "members");
  CHECK_FALSE(r.place_of(member_indexes[0]));

  close_lobby(r);
  REQUIRE(r.state() == room_state::open);
  // Each lane's places are a permutation of its own lobby, keyed by its own seed and root.
  for (auto [lane, indexes] : {std::pair{std::uint8_t{0}, general_indexes}, std::pair{members, member_indexes}}) {
    CHECK(r.lottery_key(lane) == lottery::derive_key(*r.revealed_seed(lane), *r.lobby_root(lane), byte_view{}));
    lottery::permutation expected(*r.lottery_key(lane), indexes.size());
    std::set<std::uint64_t> places;
    for (auto index : indexes) {
      auto place = r.place_of(index);
      REQUIRE(place);
      CHECK(lane_of(*place) == lane);
      CHECK(place_in_lane(*place) == expected.place(place_in_lane(index)));
      places.insert(place_in_lane(*place));
    }
    CHECK(places.size() == indexes.size());
    CHECK(*places.rbegin() == indexes.size() - 1);
    CHECK(r.places_hash(lane) == ledger::places_hash(expected));
  }
  CHECK(r.revealed_seed(members) == lane_seed(seed_of(1), "members"));
  // Lanes admit from their own frontiers after the draw; joins after it take the next places.
  auto late = join_lane(r, "members");
  CHECK(late.place == lane_place(members, 4));

  room back = make(config);
  REQUIRE(back.decode_state(r.encode_state()));
  CHECK(back.encode_state() == r.encode_state());
  CHECK(back.place_of(member_indexes[1]) == r.place_of(member_indexes[1]));
  CHECK(back.lobby_root(members) == r.lobby_root(members));
}

TEST_CASE_METHOD(lanes_fixture, "a lane declared after the lobby closed has no draw: its visitors take places as they come", "[lanes]") {
  room r = make(lobby_config());
  join_lane(r, "general");
  close_lobby(r);
  auto config = lobby_config();
  config.lanes = {lane("members", 300'000)};
  r.apply(room_configured{"r", config, room_owner::file, std::nullopt, now_ms});
  CHECK(r.draw_lanes() == 1);
  auto m = join_lane(r, "members");
  CHECK(m.place == lane_place(*r.lanes().index_of("members"), 0));
  CHECK_FALSE(m.lobby_index);
}

TEST_CASE_METHOD(lanes_fixture, "a published front answers a far-back visitor in their own lane, named", "[lanes]") {
  room r = make(presale_config(60));
  std::optional<std::uint64_t> last;
  for (int i = 0; i < 40; ++i) last = join_lane(r, "members").place;
  for (int i = 0; i < 5; ++i) join_lane(r, "general");
  auto front = room_front_of(r, now_ms);
  // r's config goes away: the front keeps its lane ids.
  r = make(fifo_config());
  auto far = far_status(front, now_ms, *last, 0.5, {10, 1});
  REQUIRE(far);
  CHECK(far->lane == "members");
  CHECK(far->place == 39u);
  CHECK(far->position == 39u);
  // The general lane's five are near its front.
  CHECK_FALSE(far_status(front, now_ms, lane_place(0, 4), 0.5, {10, 1}));
}
