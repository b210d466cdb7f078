#include <catch2/catch.hpp>

#include "core/rooms/room_admin.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::journal_fixture;
using foyer::test::test_room;

namespace {

room_config with_opens_at(room_config c, std::int64_t opens_at_ms) {
  c.opens_at_ms = opens_at_ms;
  c.lobby_window_seconds = 10;
  return c;
}

}  // namespace

TEST_CASE_METHOD(journal_fixture, "a room's settings come from the log, not from today's file") {
  start({test_room("a", 60)});
  REQUIRE_FALSE(reconcile({test_room("a", 120)}));
  restart();  // no file at all: the log alone
  REQUIRE(rooms->find("a"));
  CHECK(rooms->find("a")->config().rate_per_minute == 120);
  CHECK(rooms->find("a")->owner() == room_owner::file);
}

TEST_CASE_METHOD(journal_fixture, "opens_at added once FIFO visitors hold places is refused, naming the field") {
  start({test_room("a", 60)});
  for (int i = 0; i < 50; ++i) join("a");
  auto refused = reconcile({with_opens_at(test_room("a", 60), start_ms + 2 * 3'600'000)});
  REQUIRE(refused);
  CHECK(refused->field == "rooms[0].opens_at");
  CHECK_THAT(refused->message, Catch::Contains("50 joined"));
  restart();
  const room& r = *rooms->find("a");
  CHECK(r.state() == room_state::open);
  CHECK_FALSE(r.config().opens_at_ms);
  CHECK(join("a").place == 50u);
}

TEST_CASE_METHOD(journal_fixture, "the schedule of an untouched room may change; of a lobby, only move") {
  start({test_room("a", 60)});
  REQUIRE_FALSE(reconcile({with_opens_at(test_room("a", 60), start_ms + 60'000)}));
  CHECK(rooms->find("a")->state() == room_state::lobby);
  join("a");
  REQUIRE_FALSE(reconcile({with_opens_at(test_room("a", 60), start_ms + 120'000)}));
  CHECK(rooms->find("a")->lobby_closes_at_ms() == start_ms + 130'000);
  auto removed = reconcile({test_room("a", 60)});
  REQUIRE(removed);
  CHECK(removed->field == "rooms[0].opens_at");
  auto beacon = with_opens_at(test_room("a", 60), start_ms + 120'000);
  beacon.beacon_rule = "a drand round";
  auto refused = reconcile({beacon});
  REQUIRE(refused);
  CHECK(refused->field == "rooms[0].beacon_rule");
  clock.advance_ms(130'000);
  REQUIRE(tick("a"));
  auto after_draw = reconcile({with_opens_at(test_room("a", 60), start_ms + 200'000)});
  REQUIRE(after_draw);
  CHECK_THAT(after_draw->message, Catch::Contains("draw is done"));
}

TEST_CASE_METHOD(journal_fixture, "a rate change counts from its moment, with the frontier continuous") {
  start({test_room("a", 60)});
  for (int i = 0; i < 1'000; ++i) join("a");
  clock.advance_ms(10'500);
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 10);
  REQUIRE_FALSE(reconcile({test_room("a", 600)}));
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 10);
  clock.advance_ms(1'000);  // 0.5 s of the old rate's carry plus 1 s at 10 a second
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 20);
  restart();
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 20);
}

TEST_CASE_METHOD(journal_fixture, "a rate change in flight holds the frontier, then continues from it") {
  start({test_room("a", 600)});
  for (int i = 0; i < 1'000; ++i) join("a");
  clock.advance_ms(1'000);
  auto change = test_room("a", 60);
  rooms->submit(room_configured{"a", change, room_owner::api, std::nullopt, clock.steady_ms()},
                [](std::error_code, const join_outcome&) {});
  clock.advance_ms(500);
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 10);  // held at the change while it is written
  drain();
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 10);
  clock.advance_ms(500);
  CHECK(rooms->find("a")->served(clock.steady_ms()) == 11);  // one a second from the change on
}

TEST_CASE_METHOD(journal_fixture, "a reload applies what changed in the file and keeps live changes") {
  start({test_room("a", 60)});
  auto live = test_room("a", 300);
  REQUIRE_FALSE(commit(room_configured{"a", live, room_owner::api, std::nullopt, clock.steady_ms()}).first);
  // The file is unchanged: the live rate stands, and the plan says so.
  auto planned = plan_reconcile(*rooms, {test_room("a", 60)}, clock.steady_ms());
  const auto& plan = std::get<reconcile_plan>(planned);
  CHECK(plan.empty());
  REQUIRE(plan.kept.size() == 1);
  CHECK(plan.kept[0].changed == std::vector<std::string_view>{"rate_per_minute"});
  CHECK(describe(plan) == std::vector<std::string>{
                              "room 'a': the live change to rate_per_minute stands (made through the admin API or the "
                              "console; the file's value applies once it changes in the file)"});
  REQUIRE_FALSE(reconcile({test_room("a", 60)}));
  CHECK(rooms->find("a")->config().rate_per_minute == 300);
  auto renamed = test_room("a", 60);
  renamed.name = "Renamed";
  REQUIRE_FALSE(reconcile({renamed}));
  CHECK(rooms->find("a")->config().name == "Renamed");
  CHECK(rooms->find("a")->config().rate_per_minute == 300);
  renamed.rate_per_minute = 90;
  REQUIRE_FALSE(reconcile({renamed}));
  CHECK(rooms->find("a")->config().rate_per_minute == 90);
  restart();
  CHECK(rooms->find("a")->config().rate_per_minute == 90);
  CHECK(rooms->find("a")->declared().rate_per_minute == 90);
}

TEST_CASE_METHOD(journal_fixture, "rooms dropped from the file are removed when nobody waits, and never come back") {
  start({test_room("a", 60), test_room("b", 60)});
  join("b");
  auto refused = reconcile({test_room("a", 60)});
  REQUIRE(refused);
  CHECK(refused->field == "rooms");
  CHECK_THAT(refused->message, Catch::Contains("'b'") && Catch::Contains("1 visitors are waiting"));
  CHECK(rooms->find("b"));
  clock.advance_ms(2'000);  // b's one visitor is admitted
  REQUIRE_FALSE(reconcile({test_room("a", 60)}));
  CHECK_FALSE(rooms->find("b"));
  CHECK(rooms->retired("b"));
  auto again = reconcile({test_room("a", 60), test_room("b", 60)});
  REQUIRE(again);
  CHECK(again->field == "rooms[1].id");
  for (int i = 0; i < 1'100; ++i) join("a");  // a snapshot keeps the retired ids too
  drain();
  restart();
  CHECK(rooms->retired("b"));
  CHECK_FALSE(rooms->find("b"));
}

TEST_CASE_METHOD(journal_fixture, "the file may not declare a room created through the admin API") {
  start({test_room("a", 60)});
  digest seed{7};
  REQUIRE_FALSE(commit({room_created{"api", seed, clock.steady_ms()},
                        room_configured{"api", test_room("api", 60), room_owner::api, std::nullopt, clock.steady_ms()}})
                    .first);
  REQUIRE_FALSE(reconcile({test_room("a", 60)}));  // not dropped: the file does not own it
  CHECK(rooms->find("api"));
  auto refused = reconcile({test_room("a", 60), test_room("api", 60)});
  REQUIRE(refused);
  CHECK(refused->field == "rooms[1].id");
  restart();
  CHECK(rooms->find("api")->owner() == room_owner::api);
}

TEST_CASE_METHOD(journal_fixture, "a log from before settings were history takes the file once, then keeps it") {
  // As the server wrote it before room_configured existed: room_created alone.
  configs = {test_room("old", 60)};
  rooms = std::make_unique<journal>(store, journal_options{1000});
  rooms->recover(store.recover(), configs);
  REQUIRE_FALSE(commit(room_created{"old", digest{3}, clock.steady_ms()}).first);
  for (int i = 0; i < 5; ++i) join("old");
  rooms = std::make_unique<journal>(store, journal_options{1000});
  rooms->recover(store.recover(), {test_room("old", 120)});
  CHECK_FALSE(rooms->find("old")->configured());
  REQUIRE_FALSE(reconcile({test_room("old", 120)}));
  CHECK(rooms->find("old")->configured());
  restart();  // no file: the recorded settings
  CHECK(rooms->find("old")->config().rate_per_minute == 120);
  CHECK(rooms->find("old")->joined() == 5);
}

TEST_CASE_METHOD(journal_fixture, "an opening in the past or within a minute is refused unless the file means it") {
  start({test_room("a", 60)});
  for (std::int64_t opens_at : {start_ms - 3'600'000, start_ms, start_ms + 59'000}) {
    auto refused = reconcile({test_room("a", 60), with_opens_at(test_room("b", 60), opens_at)});
    REQUIRE(refused);
    CHECK(refused->field == "rooms[1].opens_at");
    CHECK_THAT(refused->message, Catch::Contains("opens_at_in_past = \"accept\""));
    // A change to an existing room's opening is checked as a new room's is.
    refused = reconcile({with_opens_at(test_room("a", 60), opens_at)});
    REQUIRE(refused);
    CHECK(refused->field == "rooms[0].opens_at");
  }
  CHECK_FALSE(rooms->find("b"));
  auto accepted = plan_reconcile(*rooms, {test_room("a", 60), with_opens_at(test_room("b", 60), start_ms - 1'000)},
                                 clock.steady_ms(), {"b"});
  CHECK(std::holds_alternative<reconcile_plan>(accepted));
}

TEST_CASE_METHOD(journal_fixture, "a room whose opening has since passed loads and reloads unchanged") {
  auto lobby = with_opens_at(test_room("a", 60), start_ms + 120'000);
  start({lobby});
  join("a");
  clock.advance_ms(3'600'000);
  restart();
  CHECK_FALSE(reconcile({lobby}));
  // Another setting may change; the opening that passed stays as it was.
  auto faster = lobby;
  faster.rate_per_minute = 120;
  CHECK_FALSE(reconcile({faster}));
  CHECK(rooms->find("a")->config().opens_at_ms == start_ms + 120'000);
}

TEST_CASE_METHOD(journal_fixture, "through the admin API an opening in the past is refused unless the call means it") {
  start({test_room("a", 60)});
  auto past = with_opens_at(test_room("b", 60), start_ms - 1'000);
  auto refused = create_room(*rooms, past, digest{9}, clock.steady_ms());
  REQUIRE(std::holds_alternative<desk_refusal>(refused));
  CHECK(std::get<desk_refusal>(refused).code == errc::invalid_room);
  CHECK(std::get<desk_refusal>(refused).field == "opens_at");
  CHECK(std::holds_alternative<std::vector<event>>(
      create_room(*rooms, past, digest{9}, clock.steady_ms(), past_opening::accept)));
  auto soon = with_opens_at(test_room("a", 60), start_ms + 30'000);
  auto changed = change_room(*rooms, "a", soon, clock.steady_ms());
  REQUIRE(std::holds_alternative<desk_refusal>(changed));
  CHECK(std::get<desk_refusal>(changed).field == "opens_at");
  CHECK(std::holds_alternative<std::vector<event>>(
      change_room(*rooms, "a", with_opens_at(test_room("a", 60), start_ms + 61'000), clock.steady_ms())));
}
