#include <catch2/catch.hpp>

#include "core/fairness/lottery.hpp"
#include "core/ops/audit.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;

TEST_CASE("audit records carry seq, UTC time and type, and nothing secret") {
  digest seed{1, 2, 3};
  CHECK(audit_record(1, room_created{"r", seed, 1'796'099'400'250}) ==
        R"({"seq":1,"at":"2026-12-01T04:30:00.250Z","type":"room_created","commitment":")" +
            to_hex(lottery::commitment(seed)) + R"("})");
  CHECK(audit_record(1, room_created{"r", seed, 0}).find(to_hex(seed)) == std::string::npos);
  visitor_joined j{"r", id16{0xab}, id16{0xcd}, 0, id16{0xee}};
  CHECK(audit_record(2, j) ==
        R"({"seq":2,"at":"1970-01-01T00:00:00.000Z","type":"visitor_joined","visitor_id":"ab000000000000000000000000000000",)"
        R"("entrant_id":"cd000000000000000000000000000000","account":true,"lane":"general"})");
  CHECK(audit_record(3, visitors_admitted{"r", 42, 1'000, 7}) ==
        R"({"seq":3,"at":"1970-01-01T00:00:01.000Z","type":"visitors_admitted","served":42})");
  CHECK(audit_record(4, state_changed{"r", room_state::paused, 0}).ends_with(R"("type":"state_changed","state":"paused"})"));
  auto configured = audit_record(5, room_configured{"r", test::test_room("r", 60), room_owner::api, std::nullopt, 0});
  CHECK_THAT(configured, Catch::Contains(R"("type":"room_configured","source":"api","config":{"id":"r",)"));
  CHECK(audit_record(6, room_removed{"r", 0}).ends_with(R"("type":"room_removed"})"));
  CHECK(audit_record(6, seats_recounted{"r", 0}).ends_with(R"("type":"seats_recounted"})"));
  CHECK(audit_record(7, lobby_closed{"r", 0}).ends_with(R"("type":"lobby_closed"})"));
  CHECK(audit_record(8, beacon_supplied{"r", "\x01\xff", 0}).ends_with(R"("type":"beacon_supplied","value":"01ff"})"));
}

TEST_CASE("a hold event's audit record carries what applying it did") {
  hold_placed placed{"r", id16{1}, id16{2}, std::nullopt, 2, "k1", 0};
  CHECK_THAT(audit_record(9, placed, hold_outcome::sold_out),
             Catch::EndsWith(R"("seats":2,"idempotency_key":"k1","outcome":"sold_out"})"));
  CHECK_THAT(audit_record(10, hold_confirmed{"r", id16{1}, "c1", 0}, hold_outcome::refund_required),
             Catch::EndsWith(R"("idempotency_key":"c1","outcome":"refund_required"})"));
  CHECK_THAT(audit_record(11, holds_expired{"r", {id16{1}}, 0}, hold_outcome::expired),
             Catch::EndsWith(R"("outcome":"expired"})"));
  // Not known (its side record not written yet): said, not guessed.
  CHECK_THAT(audit_record(12, placed), Catch::EndsWith(R"("outcome":null})"));
}

TEST_CASE("a join's audit record names its lane by the room's id for it") {
  test::journal_fixture f;
  auto c = test::test_room("r", 60);
  c.lanes = {lane_config{"members", "Members", share_scale / 2, false, lane_entry::code}};
  f.start({c});
  visitor_joined j{"r", id16{0xab}, id16{0xcd}, 0, std::nullopt};
  j.lane = 1;
  CHECK_THAT(audit_record(2, j, std::nullopt, f.rooms->find("r")), Catch::EndsWith(R"("account":false,"lane":"members"})"));
  j.lane = 0;
  CHECK_THAT(audit_record(2, j, std::nullopt, f.rooms->find("r")), Catch::EndsWith(R"("lane":"general"})"));
  // A room gone: its lane by number.
  j.lane = 1;
  CHECK_THAT(audit_record(2, j), Catch::EndsWith(R"("lane":"1"})"));
}
