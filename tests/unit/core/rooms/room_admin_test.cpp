#include <catch2/catch.hpp>

#include "core/rooms/room_admin.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::journal_fixture;
using foyer::test::test_room;

namespace {

const desk_refusal& refusal(const admin_decision& d) {
  REQUIRE(std::holds_alternative<desk_refusal>(d));
  return std::get<desk_refusal>(d);
}

const std::vector<event>& events(const admin_decision& d) {
  REQUIRE(std::holds_alternative<std::vector<event>>(d));
  return std::get<std::vector<event>>(d);
}

}  // namespace

TEST_CASE_METHOD(journal_fixture, "a room whose creation is being written is not created again, by the API or a reload") {
  start({test_room("file", 60)});
  bool written = false;
  rooms->submit(events(create_room(*rooms, test_room("new", 60), digest{9}, clock.steady_ms())),
                [&](std::error_code ec, const join_outcome&) { written = !ec; });
  CHECK(refusal(create_room(*rooms, test_room("new", 60), digest{8}, clock.steady_ms())).code == errc::room_exists);
  auto reload = plan_reconcile(*rooms, {test_room("file", 60), test_room("new", 60)}, clock.steady_ms());
  REQUIRE(std::holds_alternative<field_problem>(reload));
  CHECK(std::get<field_problem>(reload).message == "room 'new' is being created; reload again");
  drain();
  CHECK(written);
  CHECK(rooms->find("new")->owner() == room_owner::api);
}

TEST_CASE_METHOD(journal_fixture, "a room created through the API is the API's; taken or used ids are refused") {
  start({test_room("file", 60)});
  auto created = events(create_room(*rooms, test_room("new", 60), digest{9}, clock.steady_ms()));
  REQUIRE_FALSE(commit(created).first);
  CHECK(rooms->find("new")->owner() == room_owner::api);
  CHECK(refusal(create_room(*rooms, test_room("new", 60), digest{9}, clock.steady_ms())).code == errc::room_exists);
  CHECK(refusal(create_room(*rooms, test_room("file", 60), digest{9}, clock.steady_ms())).field == "id");
  auto no_target = test_room("x", 60);
  no_target.target_url.clear();
  auto invalid = refusal(create_room(*rooms, no_target, digest{9}, clock.steady_ms()));
  CHECK(invalid.code == errc::invalid_room);
  CHECK(invalid.field == "target_url");
  REQUIRE_FALSE(commit(events(remove_room(*rooms, "new", false, clock.steady_ms()))).first);
  auto reused = refusal(create_room(*rooms, test_room("new", 60), digest{9}, clock.steady_ms()));
  CHECK(reused.code == errc::room_id_used);
  restart();
  CHECK(refusal(create_room(*rooms, test_room("new", 60), digest{9}, clock.steady_ms())).code == errc::room_id_used);
}

TEST_CASE_METHOD(journal_fixture, "a change is refused when it would alter what visitors hold, and is nothing when equal") {
  start({test_room("a", 60)});
  join("a");
  auto next = test_room("a", 60);
  CHECK(events(change_room(*rooms, "a", next, clock.steady_ms())).empty());
  next.opens_at_ms = start_ms + 3'600'000;
  auto refused = refusal(change_room(*rooms, "a", next, clock.steady_ms()));
  CHECK(refused.code == errc::change_refused);
  CHECK(refused.field == "opens_at");
  next = test_room("a", 90);
  auto changed = events(change_room(*rooms, "a", next, clock.steady_ms()));
  REQUIRE(changed.size() == 1);
  REQUIRE_FALSE(commit(changed).first);
  CHECK(rooms->find("a")->config().rate_per_minute == 90);
  CHECK(refusal(change_room(*rooms, "gone", test_room("gone", 60), clock.steady_ms())).code == errc::unknown_room);
  auto renamed = refusal(change_room(*rooms, "a", test_room("b", 90), clock.steady_ms()));
  CHECK(renamed.code == errc::change_refused);
  CHECK(renamed.field == "id");
}

TEST_CASE_METHOD(journal_fixture, "a room people wait in is removed only when forced, closed first") {
  start({test_room("a", 60)});
  for (int i = 0; i < 3; ++i) join("a");
  auto waiting = refusal(remove_room(*rooms, "a", false, clock.steady_ms()));
  CHECK(waiting.code == errc::visitors_waiting);
  CHECK(waiting.waiting == 3);
  auto forced = events(remove_room(*rooms, "a", true, clock.steady_ms()));
  REQUIRE(forced.size() == 2);
  CHECK(std::get<state_changed>(forced[0]).state == room_state::closed);
  REQUIRE_FALSE(commit(forced).first);
  CHECK_FALSE(rooms->find("a"));
  CHECK(rooms->retired("a"));
  CHECK(refusal(remove_room(*rooms, "a", true, clock.steady_ms())).code == errc::unknown_room);
}
