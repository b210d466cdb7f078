#pragma once
// One room driven directly by hand-built events, without a journal: the events are
// applied as the journal would apply them once durable, at the fixture's `now_ms`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rooms/room.hpp"
#include "support/journal_fixture.hpp"

namespace foyer::test {

struct room_fixture {
  static constexpr std::int64_t created_ms = 1'800'000'000'000;
  // A lobby room opens a minute after its creation and its lobby stays open 10 s more.
  static constexpr std::int64_t opens_at_ms = created_ms + 60'000;
  static constexpr std::int64_t lobby_closes_ms = opens_at_ms + 10'000;
  static constexpr room_state every_state[] = {room_state::lobby,  room_state::drawing,  room_state::open,
                                               room_state::paused, room_state::sold_out, room_state::closed};

  std::int64_t now_ms = created_ms;
  std::uint8_t visitors = 0;  // joins made so far, to give each its own ids

  static digest seed_of(std::uint8_t n) {
    digest d{};
    d[0] = n;
    return d;
  }

  static room_config fifo_config(std::uint32_t rate_per_minute = 60) { return test_room("r", rate_per_minute); }

  static room_config lobby_config(std::string beacon_rule = "") {
    auto c = test_room("r", 600);
    c.opens_at_ms = opens_at_ms;
    c.lobby_window_seconds = 10;
    c.beacon_rule = std::move(beacon_rule);
    return c;
  }

  static room make(room_config config, std::uint8_t seed = 1) {
    return room(std::move(config), room_created{"r", seed_of(seed), created_ms});
  }

  // The entrant id of the `n`-th join (from 1), whose hash is its lobby leaf.
  static id16 entrant_of(std::uint8_t n) { return id16{n, 0xe0}; }

  join_outcome join(room& r, std::optional<id16> account = std::nullopt) {
    std::vector<merkle::stored_node> completed;
    return join(r, completed, account);
  }

  join_outcome join(room& r, std::vector<merkle::stored_node>& completed, std::optional<id16> account = std::nullopt) {
    ++visitors;
    visitor_joined e{"r", id16{visitors}, entrant_of(visitors), now_ms, account};
    return r.apply(e, completed);
  }

  void join_many(room& r, int count) {
    for (int i = 0; i < count; ++i) join(r);
  }

  void change(room& r, room_state target) { r.apply(state_changed{"r", target, now_ms}); }

  // The ticker's durable step at now.
  void step(room& r) { r.apply(r.checkpoint(now_ms)); }

  void close_lobby(room& r) {
    now_ms = lobby_closes_ms;
    r.apply(lobby_closed{"r", now_ms});
  }

  // A room brought to `state` by events: ten joins, and where it was open, three
  // admitted at 60 a minute before the operator's change. Leaves now_ms at the last event.
  room in_state(room_state state) {
    now_ms = created_ms;
    if (state == room_state::lobby || state == room_state::drawing) {
      room r = make(lobby_config(state == room_state::drawing ? "the first beacon round after the close" : ""));
      join_many(r, 10);
      if (state == room_state::drawing) close_lobby(r);
      return r;
    }
    room r = make(fifo_config());
    join_many(r, 10);
    now_ms = created_ms + 3'000;
    step(r);
    if (state == room_state::paused || state == room_state::sold_out || state == room_state::closed) change(r, state);
    return r;
  }
};

}  // namespace foyer::test
