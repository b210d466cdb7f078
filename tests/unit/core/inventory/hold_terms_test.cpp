// What a hold is held to: a lane's own hold time and seats per pass, and an event's cap
// on the seats of one account across its rooms.

#include <map>

#include <catch2/catch.hpp>

#include "support/holds_fixture.hpp"

using namespace foyer;
using namespace foyer::test;

namespace {

// Seats with an access lane whose holds last 15 minutes and take up to 6 seats per pass.
room_config access_room() {
  auto c = seat_room(20);
  lane_config access{"access", "Access", 200'000, false, lane_entry::code};
  access.hold_seconds = 900;
  access.max_seats_per_pass = 6;
  c.lanes = {access};
  REQUIRE_FALSE(check_room(c));
  return c;
}

// One date of the tour: an account takes at most 5 seats across the tour's rooms.
room_config tour_date(std::string id) {
  auto c = test_room(std::move(id), 6000);
  c.require_account = true;
  c.event = "tour";
  c.inventory = inventory_settings{};
  c.inventory->total = 20;
  c.inventory->max_seats_per_account = 5;
  c.inventory->max_seats_per_pass = 8;
  REQUIRE_FALSE(check_room(c));
  return c;
}

id16 account(std::uint8_t n) {
  id16 a{};
  a[0] = 0xac;
  a[1] = n;
  return a;
}

struct terms_fixture : holds_fixture {
  std::map<std::uint32_t, std::uint64_t> places;  // by visitor

  // Joins visitor `v` into the room's lane (or with an account), as a committed join does.
  std::uint64_t join_as(const std::string& room_id, std::uint32_t v, std::string_view lane = general_lane,
                        std::optional<id16> acc = std::nullopt) {
    visitor_joined e;
    e.room = room_id;
    e.visitor = visitor(v);
    e.entrant = id_of(3, v);
    e.at_ms = clock.now_ms();
    e.account = acc;
    e.lane = *rooms->find(room_id)->lanes().index_of(lane);
    auto [ec, outcome] = commit(e);
    REQUIRE_FALSE(ec);
    REQUIRE(outcome.place);
    places[v] = *outcome.place;
    return *outcome.place;
  }
  // As the handler asks: with what the account may still hold in the room.
  hold_decision place_in(const std::string& room_id, std::string key, std::uint32_t v, std::uint32_t h,
                         std::uint32_t n) {
    hold_request request{hold_action::place, hold_id(h), visitor(v), places.at(v), n};
    auto decide = [&] { return decide_hold(*rooms->find(room_id), key, request, clock.steady_ms(),
                                           rooms->account_seats(*rooms->find(room_id), visitor(v))); };
    auto decision = decide();
    if (auto* e = std::get_if<event>(&decision)) {
      REQUIRE_FALSE(commit(*e).first);
      decision = decide();
    }
    return decision;
  }
  hold_decision act_in(const std::string& room_id, std::string key, hold_action action, std::uint32_t h) {
    hold_request request{action, hold_id(h), std::nullopt, std::nullopt, 0};
    auto decision = decide_hold(*rooms->find(room_id), key, request, clock.steady_ms());
    if (auto* e = std::get_if<event>(&decision)) {
      REQUIRE_FALSE(commit(*e).first);
      decision = decide_hold(*rooms->find(room_id), key, request, clock.steady_ms());
    }
    return decision;
  }
  std::uint64_t held_in(const std::string& room_id) { return rooms->find(room_id)->seats().held(); }
};

}  // namespace

TEST_CASE_METHOD(terms_fixture, "a hold by a pass of a lane with its own hold time lasts that long", "[holds][lanes]") {
  start({access_room()});
  join_as("r", 1);
  join_as("r", 2, "access");
  CHECK(receipt(place_in("r", "k1", 1, 1, 2)).expires_ms == clock.steady_ms() + 180'000);
  auto held = receipt(place_in("r", "k2", 2, 2, 2));
  CHECK(held.expires_ms == clock.steady_ms() + 900'000);
  // Extended, it gets the room's extension on top of its own time.
  CHECK(receipt(act("e2", hold_action::extend, 2)).expires_ms == clock.steady_ms() + 990'000);
  advance_s(200);
  REQUIRE(sweep());
  CHECK(seats().find(hold_id(1))->state == hold_state::expired);
  CHECK(seats().find(hold_id(2))->state == hold_state::held);
  // The key of the longer hold is kept as long as it may live (past the room's retention,
  // which another request's apply prunes by): a retry still gets its hold.
  advance_s(700);
  REQUIRE(receipt(place_in("r", "k9", 1, 9, 1)).state == hold_state::held);
  CHECK(receipt(place_in("r", "k2", 2, 2, 2)).hold == hold_id(2));
  // Replayed and restored from a snapshot alike.
  restart();
  CHECK(seats().find(hold_id(2))->expires_ms == held.expires_ms + 90'000);
  advance_s(100);
  REQUIRE(sweep());
  CHECK(seats().find(hold_id(2))->state == hold_state::expired);
  check_invariant();
}

TEST_CASE_METHOD(terms_fixture, "a pass of a lane with its own max_seats_per_pass takes that many", "[holds][lanes]") {
  start({access_room()});
  join_as("r", 1);
  join_as("r", 2, "access");
  // The general lane: the room's, max_seats_per_hold (4).
  REQUIRE(receipt(place_in("r", "k1", 1, 1, 4)).state == hold_state::held);
  REQUIRE(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  CHECK(refusal(place_in("r", "k2", 1, 2, 1)) == errc::seats_per_pass_exceeded);
  // The access lane: 6, over two holds.
  auto place_access = [&](std::string key, std::uint32_t h, std::uint32_t n) { return place_in("r", std::move(key), 2, h, n); };
  REQUIRE(receipt(place_access("k3", 3, 4)).state == hold_state::held);
  REQUIRE(receipt(act("c3", hold_action::confirm, 3)).state == hold_state::confirmed);
  REQUIRE(receipt(place_access("k4", 4, 2)).state == hold_state::held);
  REQUIRE(receipt(act("c4", hold_action::confirm, 4)).state == hold_state::confirmed);
  CHECK(refusal(place_access("k5", 5, 1)) == errc::seats_per_pass_exceeded);
  restart();
  CHECK(refusal(place_access("k5", 5, 1)) == errc::seats_per_pass_exceeded);
  CHECK(seats().confirmed_of(visitor(2)) == 6);
}

TEST_CASE_METHOD(terms_fixture, "an account takes at most the event's max_seats_per_account across its rooms", "[holds]") {
  start({tour_date("a"), tour_date("b")});
  join_as("a", 1, general_lane, account(1));
  join_as("b", 2, general_lane, account(1));
  join_as("b", 3, general_lane, account(2));
  REQUIRE(receipt(place_in("a", "a1", 1, 1, 4)).state == hold_state::held);
  CHECK(rooms->account_seats(*rooms->find("b"), visitor(2)) == 1u);
  CHECK(refusal(place_in("b", "b1", 2, 2, 2)) == errc::seats_per_account_exceeded);
  // Another account is not counted with it.
  CHECK(receipt(place_in("b", "b3", 3, 3, 4)).state == hold_state::held);
  REQUIRE(receipt(place_in("b", "b2", 2, 4, 1)).state == hold_state::held);
  REQUIRE(receipt(act_in("b", "c4", hold_action::confirm, 4)).state == hold_state::confirmed);
  // Releasing the hold in the other room frees its seats for the account.
  REQUIRE(receipt(act_in("a", "r1", hold_action::release, 1)).state == hold_state::released);
  CHECK(receipt(place_in("b", "b5", 2, 5, 4)).state == hold_state::held);
  CHECK(held_in("b") == 8);
  CHECK(rooms->account_seats(*rooms->find("a"), visitor(1)) == 0u);
  // Expired, the same.
  advance_s(200);
  auto due = rooms->find("b")->expired_holds(clock.steady_ms());
  REQUIRE(due);
  REQUIRE_FALSE(commit(*due).first);
  CHECK(rooms->account_seats(*rooms->find("a"), visitor(1)) == 4u);
}

TEST_CASE_METHOD(terms_fixture, "the event's cap is decided when a placement applies, and replay decides the same", "[holds]") {
  start({tour_date("a"), tour_date("b")});
  join_as("a", 1, general_lane, account(1));
  join_as("b", 2, general_lane, account(1));
  // Both decided while the account holds nothing, written together: the second applied is refused.
  auto decide = [&](const std::string& id, std::uint32_t v, std::uint32_t h) {
    const room& in = *rooms->find(id);
    return std::get<event>(decide_hold(in, "k" + id, {hold_action::place, hold_id(h), visitor(v), places.at(v), 3},
                                       clock.steady_ms(), rooms->account_seats(in, visitor(v))));
  };
  auto first = decide("a", 1, 1);
  auto second = decide("b", 2, 2);
  REQUIRE_FALSE(commit({first, second}).first);
  CHECK(held_in("a") == 3);
  CHECK(held_in("b") == 0);
  auto refused = decide_hold(*rooms->find("b"), "kb", {hold_action::place, hold_id(2), visitor(2), places.at(2), 3},
                             clock.steady_ms());
  CHECK(refusal(refused) == errc::seats_per_account_exceeded);
  // A restart replays the log and decides the same; its retry is answered the same.
  restart();
  CHECK(held_in("a") == 3);
  CHECK(held_in("b") == 0);
  CHECK(refusal(decide_hold(*rooms->find("b"), "kb", {hold_action::place, hold_id(2), visitor(2), places.at(2), 3},
                            clock.steady_ms())) == errc::seats_per_account_exceeded);
  CHECK(rooms->account_seats(*rooms->find("b"), visitor(2)) == 2u);
}

TEST_CASE("a lane's hold settings and an event's cap are checked, shown and encoded", "[holds][lanes]") {
  auto c = access_room();
  // A lane's hold settings need seats; max_seats_per_account an event and accounts.
  auto no_seats = c;
  no_seats.inventory.reset();
  auto p = check_room(no_seats);
  REQUIRE(p);
  CHECK(p->field == "lanes.access.hold_seconds");
  CHECK(set_room_setting(c, "lanes.access.hold_seconds", std::int64_t{5})->message == "must be a whole number from 10 to 3600");
  CHECK(set_room_setting(c, "lanes.access.max_seats_per_pass", std::int64_t{0}));
  auto capped = c;
  capped.inventory->max_seats_per_account = 4;
  CHECK(check_room(capped)->message.starts_with("needs event"));
  REQUIRE_FALSE(set_room_setting(capped, "event", std::string("tour-2026")));
  CHECK(check_room(capped)->message.starts_with("needs require_account"));
  capped.require_account = true;
  REQUIRE_FALSE(check_room(capped));
  CHECK(set_room_setting(capped, "event", std::string("Tour 2026")));
  CHECK(account_scope(capped) == "event:tour-2026");
  CHECK(account_scope(c) == "r");
  auto json = to_json(capped);
  CHECK(json.find(R"("hold_seconds":900,"max_seats_per_pass":6)") != std::string::npos);
  CHECK(json.find(R"("max_seats_per_account":4)") != std::string::npos);
  CHECK(json.find(R"("event":"tour-2026")") != std::string::npos);
  writer w;
  write_room_config(w, capped);
  reader r(w.bytes());
  CHECK(read_room_config(r) == capped);
}
