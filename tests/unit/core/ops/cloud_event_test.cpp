#include <catch2/catch.hpp>

#include <vector>

#include "core/fairness/lottery.hpp"
#include "core/ops/cloud_event.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;

namespace {

struct stream {
  std::vector<envelope> sent;
  cloud_events events{"/foyer/test", [this](envelope e) { sent.push_back(std::move(e)); }};
};

visitor_joined join_at(std::string room, std::int64_t at_ms) {
  visitor_joined j;
  j.room = std::move(room);
  j.visitor = id16{0xab};
  j.entrant = id16{0xcd};
  j.account = id16{0xee};
  j.at_ms = at_ms;
  return j;
}

}  // namespace

TEST_CASE_METHOD(stream, "an event becomes a CloudEvents 1.0 envelope whose id is its seq") {
  events.on_applied(42, state_changed{"spring", room_state::paused, 1'796'099'400'250});
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].id == "42");
  CHECK(sent[0].type == "dev.foyer.room.state_changed");
  CHECK(sent[0].json ==
        R"({"specversion":"1.0","id":"42","source":"/foyer/test","type":"dev.foyer.room.state_changed",)"
        R"("subject":"spring","time":"2026-12-01T04:30:00.250Z","datacontenttype":"application/json",)"
        R"("data":{"state":"paused"}})");
}

// A journal whose applied events go to the stream, as the event sinks follow it.
struct followed : stream {
  test::journal_fixture f;
  void start(std::vector<room_config> rooms) {
    f.start(std::move(rooms));
    f.rooms->on_applied([this](std::uint64_t seq, const event& e, const applied_effect& effect) {
      events.on_applied(seq, e, effect);
    });
  }
  std::vector<std::string> of_type(std::string_view type) const {
    std::vector<std::string> out;
    for (const auto& e : sent) {
      if (e.type == type) out.push_back(e.json);
    }
    return out;
  }
};

TEST_CASE_METHOD(followed, "an admission carries the visitors the room admitted, not the step's frontier") {
  start({test::test_room("r", 600)});
  f.join("r", 1);
  f.join("r", 2);
  // A step that would take the frontier to 10 admits the 2 who are there.
  auto step = f.rooms->find("r")->checkpoint(f.clock.steady_ms());
  step.served = 10;
  REQUIRE_FALSE(f.commit(step).first);
  auto admitted = of_type("dev.foyer.room.visitors_admitted");
  REQUIRE(admitted.size() == 1);
  CHECK_THAT(admitted[0], Catch::EndsWith(R"("data":{"admitted":2,"served":2,"lanes":{"general":{"admitted":2,"served":2}}}})"));
  // The joins left first, by lane id.
  CHECK_THAT(sent.at(sent.size() - 2).json, Catch::EndsWith(R"("data":{"count":2,"seconds":1,"lanes":{"general":2}}})"));
  // A step that admits nobody is no event.
  step.served = 12;
  REQUIRE_FALSE(f.commit(step).first);
  f.clock.advance_ms(5000);
  REQUIRE(f.tick("r"));
  CHECK(of_type("dev.foyer.room.visitors_admitted").size() == 1);
  CHECK(f.rooms->find("r")->served(f.clock.steady_ms()) == 2);
}

TEST_CASE_METHOD(followed, "joins and admissions name each lane by its id") {
  auto c = test::test_room("r", 600);
  c.lanes = {lane_config{"members", "Members", share_scale / 2, false, lane_entry::code}};
  start({c});
  f.join("r", 1);
  visitor_joined member;
  member.room = "r";
  member.visitor[0] = 2;
  member.entrant[0] = 2;
  member.lane = 1;
  member.at_ms = f.clock.now_ms();
  REQUIRE_FALSE(f.commit(member).first);
  auto step = f.rooms->find("r")->checkpoint(f.clock.steady_ms());
  step.served = 490;
  REQUIRE_FALSE(f.commit(step).first);
  auto joins = of_type("dev.foyer.room.joins");
  REQUIRE(joins.size() == 1);
  CHECK_THAT(joins[0], Catch::EndsWith(R"("data":{"count":2,"seconds":1,"lanes":{"general":1,"members":1}}})"));
  auto admitted = of_type("dev.foyer.room.visitors_admitted");
  REQUIRE(admitted.size() == 1);
  CHECK_THAT(admitted[0], Catch::EndsWith(R"("data":{"admitted":2,"served":2,"lanes":{"general":{"admitted":1,"served":1},)"
                                          R"("members":{"admitted":1,"served":1}}}})"));
  // An empty lanes room's steps are no events.
  f.clock.advance_ms(5000);
  REQUIRE(f.tick("r"));
  CHECK(of_type("dev.foyer.room.visitors_admitted").size() == 1);
}

TEST_CASE_METHOD(stream, "every kind of event has its type, and nothing secret leaves") {
  digest seed{7, 7, 7};
  events.on_applied(1, room_created{"r", seed, 0});
  events.on_applied(2, room_configured{"r", test::test_room("r", 60), room_owner::file, std::nullopt, 0});
  events.on_applied(3, state_changed{"r", room_state::paused, 0});
  events.on_applied(4, lobby_closed{"r", 0});
  events.on_applied(5, beacon_supplied{"r", "\x01\xff", 0});
  events.on_applied(6, room_removed{"r", 0});
  events.on_applied(7, seats_recounted{"r", 0});
  std::vector<std::string> types;
  for (const auto& e : sent) types.push_back(e.type);
  CHECK(types == std::vector<std::string>{"dev.foyer.room.created", "dev.foyer.room.configured",
                                          "dev.foyer.room.state_changed", "dev.foyer.room.lobby_closed",
                                          "dev.foyer.room.beacon_supplied", "dev.foyer.room.removed",
                                          "dev.foyer.room.seats_recounted"});
  CHECK_THAT(sent[0].json, Catch::EndsWith(R"("data":{"commitment":")" + to_hex(lottery::commitment(seed)) + R"("}})"));
  CHECK(sent[0].json.find(to_hex(seed)) == std::string::npos);
  CHECK_THAT(sent[1].json, Catch::Contains(R"("data":{"source":"file","config":{"id":"r",)"));
  CHECK_THAT(sent[2].json, Catch::EndsWith(R"("data":{"state":"paused"}})"));
  CHECK_THAT(sent[4].json, Catch::EndsWith(R"("data":{"beacon":"01ff"}})"));
  CHECK_THAT(sent[5].json, Catch::EndsWith(R"("data":{}})"));
}

TEST_CASE_METHOD(stream, "joins leave as one count per room and second, with no visitor in it") {
  constexpr std::int64_t second = 1'796'099'400'000;
  for (std::uint64_t seq = 10; seq < 15; ++seq) events.on_applied(seq, join_at("a", second + 100 + seq));
  events.on_applied(15, join_at("b", second + 900));
  events.flush(second + 999);
  CHECK(sent.empty());  // the second is not over

  // A join of the next second closes the count of the one before.
  events.on_applied(16, join_at("a", second + 1'000));
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].id == "a-joins-1796099400-10");
  CHECK(sent[0].type == "dev.foyer.room.joins");
  CHECK(sent[0].json ==
        R"({"specversion":"1.0","id":"a-joins-1796099400-10","source":"/foyer/test","type":"dev.foyer.room.joins",)"
        R"("subject":"a","time":"2026-12-01T04:30:00.000Z","datacontenttype":"application/json",)"
        R"("data":{"count":5,"seconds":1,"lanes":{"general":5}}})");

  events.flush(second + 2'000);
  REQUIRE(sent.size() == 3);
  CHECK(sent[1].id == "a-joins-1796099401-16");
  CHECK_THAT(sent[1].json, Catch::Contains(R"("count":1)"));
  CHECK(sent[2].id == "b-joins-1796099400-15");
  for (const auto& e : sent) {
    CHECK(e.json.find("ab00") == std::string::npos);
    CHECK(e.json.find("cd00") == std::string::npos);
    CHECK(e.json.find("ee00") == std::string::npos);
  }
  events.flush(second + 10'000);
  CHECK(sent.size() == 3);
}

TEST_CASE_METHOD(stream, "a room's joins so far leave before its next event, in log order") {
  events.on_applied(1, join_at("a", 5'000));
  events.on_applied(2, join_at("b", 5'000));
  events.on_applied(3, state_changed{"a", room_state::paused, 5'500});
  events.on_applied(4, join_at("a", 5'600));
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].id == "a-joins-5-1");
  CHECK(sent[1].id == "3");
  // The same second, counted again after the event: another id, never a reused one.
  events.flush(6'000);
  REQUIRE(sent.size() == 4);
  CHECK(sent[2].id == "a-joins-5-4");
  CHECK(sent[3].id == "b-joins-5-2");
}

TEST_CASE("type patterns: the type itself, a prefix ending in .*, or everything") {
  CHECK(type_matches("*", "dev.foyer.room.joins"));
  CHECK(type_matches("dev.foyer.room.joins", "dev.foyer.room.joins"));
  CHECK(type_matches("dev.foyer.room.*", "dev.foyer.room.joins"));
  CHECK(type_matches("dev.foyer.*", "dev.foyer.room.joins"));
  CHECK_FALSE(type_matches("dev.foyer.room.created", "dev.foyer.room.configured"));
  CHECK_FALSE(type_matches("dev.foyer.room.*", "dev.foyer.room"));
  CHECK_FALSE(type_matches("dev.foyer.room.*", "dev.foyer.roomy.joins"));
  CHECK_FALSE(type_matches("dev.foyer.room", "dev.foyer.room.joins"));
}

TEST_CASE_METHOD(stream, "a hold event's CloudEvent carries what applying it did, as the journal tells it") {
  test::journal_fixture f;
  auto c = test::test_room("r", 60);
  c.inventory = inventory_settings{};
  c.inventory->total = 1;
  f.start({c});
  f.rooms->on_applied([&](std::uint64_t seq, const event& e, const applied_effect& effect) { events.on_applied(seq, e, effect); });
  // Both written while one seat was free: the second applied finds it taken.
  REQUIRE_FALSE(f.commit({hold_placed{"r", id16{1}, id16{11}, 0, 1, "k1", f.clock.steady_ms()},
                          hold_placed{"r", id16{2}, id16{12}, 1, 1, "k2", f.clock.steady_ms()}})
                    .first);
  REQUIRE_FALSE(f.commit(hold_confirmed{"r", id16{1}, "c1", f.clock.steady_ms()}).first);
  std::vector<std::string> holds;
  for (const auto& e : sent) {
    if (e.type.starts_with("dev.foyer.room.hold")) holds.push_back(e.json);
  }
  REQUIRE(holds.size() == 3);
  CHECK_THAT(holds[0], Catch::EndsWith(R"("idempotency_key":"k1","outcome":"placed"}})"));
  CHECK_THAT(holds[1], Catch::EndsWith(R"("idempotency_key":"k2","outcome":"sold_out"}})"));
  CHECK_THAT(holds[2], Catch::EndsWith(R"("idempotency_key":"c1","outcome":"confirmed"}})"));
}
