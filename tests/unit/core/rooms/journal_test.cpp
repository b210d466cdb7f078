#include <catch2/catch.hpp>

#include "core/rooms/status.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::journal_fixture;
using foyer::test::memory_store;
using foyer::test::test_room;

namespace {

room_config lobby_room(std::int64_t opens_at_ms, std::string beacon_rule = "") {
  auto c = test_room("lobby", 600);
  c.opens_at_ms = opens_at_ms;
  c.lobby_window_seconds = 10;
  c.beacon_rule = std::move(beacon_rule);
  return c;
}

}  // namespace

TEST_CASE_METHOD(journal_fixture, "FIFO joins get consecutive places that survive restarts") {
  start({test_room("a", 60), test_room("b", 60)});
  for (std::uint64_t i = 0; i < 10; ++i) {
    CHECK(join("a").place == i);
    CHECK(join("b").place == i);
  }
  restart();
  CHECK(rooms->find("a")->joined() == 10);
  CHECK(join("a").place == 10u);
}

TEST_CASE_METHOD(journal_fixture, "a failed write applies nothing and leaves no gap") {
  start({test_room("a", 60)});
  join("a");
  store.fail_next_writes(1);
  visitor_joined e;
  e.room = "a";
  auto [ec, outcome] = commit(e);
  CHECK(ec);
  CHECK_FALSE(outcome.place);
  CHECK(rooms->find("a")->joined() == 1);
  CHECK(join("a").place == 1u);
  restart();
  CHECK(rooms->find("a")->joined() == 2);
}

TEST_CASE_METHOD(journal_fixture, "snapshots and tail replay rebuild the same state") {
  start({test_room("a", 60), lobby_room(start_ms + 60'000)});
  // journal_fixture snapshots every 1000 events.
  for (int i = 0; i < 2'345; ++i) {
    join("a");
    join("lobby", static_cast<std::uint8_t>(i));
  }
  clock.advance_ms(30'000);
  tick("a");
  drain();
  auto before_a = rooms->find("a")->encode_state();
  auto before_lobby = rooms->find("lobby")->encode_state();
  REQUIRE(store.recover().snapshot);
  CHECK(store.recover().events.size() < 1'000 + 10);
  restart();
  CHECK(rooms->find("a")->encode_state() == before_a);
  CHECK(rooms->find("lobby")->encode_state() == before_lobby);
}

TEST_CASE_METHOD(journal_fixture, "the lobby closes on schedule, draws, then queues late arrivals") {
  start({lobby_room(start_ms + 60'000)});
  room* r = rooms->find("lobby");
  REQUIRE(r->state() == room_state::lobby);
  CHECK_FALSE(r->revealed_seed());
  for (std::uint64_t i = 0; i < 50; ++i) CHECK(join("lobby", 1).lobby_index == i);
  auto st = status_of(*r, std::nullopt, clock.now_ms(), 0.5);
  CHECK(st.state == "lobby");

  clock.set_ms(start_ms + 69'999);  // the window is still open: a lobby join
  CHECK_FALSE(tick("lobby"));
  CHECK(join("lobby", 2).lobby_index == 50u);
  clock.set_ms(start_ms + 70'000);
  CHECK(tick("lobby"));
  r = rooms->find("lobby");
  CHECK(r->state() == room_state::open);
  CHECK(r->lobby_size() == 51);
  REQUIRE(r->revealed_seed());
  REQUIRE(r->lobby_root());

  // Places are a permutation of [0, 51); the next arrival queues behind them.
  std::vector<bool> seen(51);
  for (std::uint64_t i = 0; i < 51; ++i) {
    auto p = r->place_of(i);
    REQUIRE(p);
    REQUIRE(*p < 51);
    CHECK_FALSE(seen[*p]);
    seen[*p] = true;
  }
  CHECK(join("lobby").place == 51u);

  // A restart keeps the same root and places.
  auto root = *r->lobby_root();
  auto place7 = *r->place_of(7);
  restart();
  CHECK(*rooms->find("lobby")->lobby_root() == root);
  CHECK(*rooms->find("lobby")->place_of(7) == place7);
}

TEST_CASE_METHOD(journal_fixture, "a beacon room waits for the beacon before the draw") {
  start({lobby_room(start_ms + 60'000, "the first drand quicknet round after the close")});
  for (int i = 0; i < 5; ++i) join("lobby");
  clock.advance_ms(80'000);
  REQUIRE(tick("lobby"));
  room* r = rooms->find("lobby");
  CHECK(r->state() == room_state::drawing);
  CHECK_FALSE(r->revealed_seed());
  CHECK_FALSE(r->place_of(0));
  CHECK_FALSE(tick("lobby"));  // no admission while drawing
  restart();
  REQUIRE_FALSE(commit(beacon_supplied{"lobby", "\x01\x02", clock.now_ms()}).first);
  r = rooms->find("lobby");
  CHECK(r->state() == room_state::open);
  CHECK(r->revealed_seed());
  CHECK(r->place_of(4));
}

TEST_CASE_METHOD(journal_fixture, "status is arithmetic on the counters") {
  start({test_room("a", 60)});
  for (int i = 0; i < 20; ++i) join("a");
  clock.advance_ms(5'000);
  tick("a");
  const room& r = *rooms->find("a");
  REQUIRE(r.served(clock.now_ms()) == 5);
  auto waiting = status_of(r, 12, clock.now_ms(), 0.0);
  CHECK(waiting.state == "waiting");
  CHECK(waiting.position == 7u);
  CHECK(waiting.eta_seconds == 8u);  // 8 more admissions at one a second
  CHECK(waiting.poll_after_ms >= 800);
  auto admitted = status_of(r, 4, clock.now_ms(), 0.0);
  CHECK(admitted.state == "admitted");
  // Far back polls rarely; near the front, often; jitter spreads them.
  auto far = status_of(r, 100'000, clock.now_ms(), 0.0);
  auto near = status_of(r, 6, clock.now_ms(), 0.0);
  CHECK(far.poll_after_ms > near.poll_after_ms);
  CHECK(status_of(r, 100'000, clock.now_ms(), 0.99).poll_after_ms > far.poll_after_ms);
}

TEST_CASE_METHOD(journal_fixture, "a join written after a close is refused, live and on replay") {
  start({test_room("a", 60)});
  join("a");
  // The close is decided first; the join is decided while the close is in flight.
  std::optional<std::pair<std::error_code, join_outcome>> closed, joined;
  rooms->submit(state_changed{"a", room_state::closed, clock.steady_ms()},
                [&](std::error_code ec, const join_outcome& o) { closed.emplace(ec, o); });
  visitor_joined late;
  late.room = "a";
  late.visitor[0] = 7;
  rooms->submit(late, [&](std::error_code ec, const join_outcome& o) { joined.emplace(ec, o); });
  drain();
  REQUIRE(closed);
  REQUIRE(joined);
  CHECK_FALSE(joined->first);
  CHECK(joined->second.refused);
  CHECK_FALSE(joined->second.place);
  CHECK(rooms->find("a")->joined() == 1);
  restart();
  CHECK(rooms->find("a")->joined() == 1);
  CHECK(rooms->find("a")->state() == room_state::closed);
}

TEST_CASE_METHOD(journal_fixture, "one account, one entry, from the log's own index across restarts and snapshots") {
  start({test_room("a", 60)});
  visitor_joined first;
  first.room = "a";
  first.visitor[0] = 1;
  first.account = id16{42};
  auto [ec, outcome] = commit(first);
  REQUIRE_FALSE(ec);
  REQUIRE(outcome.place == 0u);
  // No side record stands between the join and the next one: the entry is known at once.
  const joined_entry* entry = rooms->find("a")->account_entry(id16{42});
  REQUIRE(entry);
  CHECK(entry->visitor == first.visitor);
  CHECK(entry->outcome.place == 0u);

  auto second = first;
  second.visitor[0] = 2;
  CHECK(commit(second).second.refused);
  restart();
  CHECK(commit(second).second.refused);
  for (int i = 0; i < 1'100; ++i) join("a");  // past the fixture's snapshot interval
  drain();
  REQUIRE(store.recover().snapshot);
  restart();
  REQUIRE(rooms->find("a")->account_entry(id16{42}));
  CHECK(rooms->find("a")->account_entry(id16{42})->visitor == first.visitor);
  CHECK(commit(second).second.refused);
  CHECK_FALSE(rooms->find("a")->account_entry(id16{43}));
}

TEST_CASE_METHOD(journal_fixture, "the observer sees each applied event with its seq, live only, never a failed write") {
  start({test_room("a", 60)});
  join("a");
  std::vector<std::pair<std::uint64_t, std::string>> seen;
  auto watch = [&] {
    rooms->on_applied([&](std::uint64_t seq, const event& e, const applied_effect&) {
      CHECK(rooms->applied_seq() < seq);  // called as each is applied, before the batch is counted
      seen.emplace_back(seq, room_of(e));
    });
  };
  watch();
  auto before = rooms->applied_seq();
  join("a");
  REQUIRE_FALSE(commit({state_changed{"a", room_state::paused, clock.steady_ms()},
                        state_changed{"a", room_state::open, clock.steady_ms()}})
                    .first);
  store.fail_next_writes(1);
  CHECK(commit(state_changed{"a", room_state::paused, clock.steady_ms()}).first);
  // Every event written and applied is seen, the frontiers written with the changes too.
  CHECK(seen.size() >= 4);
  CHECK(seen.size() == rooms->applied_seq() - before);
  for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i].first == before + 1 + i);
  CHECK(seen.back().first == rooms->applied_seq());

  seen.clear();
  drain();
  rooms = std::make_unique<journal>(store, journal_options{1000});
  watch();
  rooms->recover(store.recover());
  CHECK(seen.empty());  // recovery replays without it
  join("a");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].first == rooms->applied_seq());
}

TEST_CASE_METHOD(journal_fixture, "a standby follows the leader's entries in memory, and its side records are the leader's") {
  start({test_room("a", 60), lobby_room(start_ms + 60'000)});
  for (int i = 0; i < 40; ++i) {
    join("a");
    join("lobby", static_cast<std::uint8_t>(i));
  }
  // The last join's side records wait for the next write: written now, all of them are
  // in the leader's store.
  rooms->lead();
  drain();
  const auto& events = store.events();
  const std::vector<std::string> first(events.begin(), events.begin() + 30);
  const std::vector<std::string> rest(events.begin() + 30, events.end());
  std::vector<side_record> leader_sides;
  for (const auto& [key, value] : store.side_records()) leader_sides.push_back({key, value});
  REQUIRE_FALSE(leader_sides.empty());

  // One standby's entries carried every side record: it writes none of them again.
  std::deque<std::function<void()>> posted;
  memory_store carried([&](std::function<void()> f) { posted.push_back(std::move(f)); });
  journal with_sides(carried);
  with_sides.recover(carried.recover());
  with_sides.follow(first, {});
  with_sides.follow(rest, leader_sides);
  with_sides.lead();
  CHECK(carried.side_records().empty());
  CHECK(with_sides.find("a")->encode_state() == rooms->find("a")->encode_state());
  CHECK(with_sides.find("lobby")->encode_state() == rooms->find("lobby")->encode_state());

  // Another's carried none (the leader fell before writing them): it writes what replay
  // made, once it leads, and they are the leader's.
  memory_store lost([&](std::function<void()> f) { posted.push_back(std::move(f)); });
  journal without(lost);
  without.recover(lost.recover());
  without.follow(first, {});
  without.follow(rest, {});
  CHECK(lost.side_records().empty());
  without.lead();
  CHECK(lost.side_records() == store.side_records());
  CHECK(without.find("lobby")->joined() == 40);
}
