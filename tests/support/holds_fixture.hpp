#pragma once
// A room with seats on a journal, and the hold desk asked as the handler asks it.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

#include "core/inventory/hold_desk.hpp"
#include "support/journal_fixture.hpp"

namespace foyer::test {

inline id16 id_of(std::uint8_t kind, std::uint32_t n) {
  id16 id{};
  id[0] = kind;
  for (int i = 0; i < 4; ++i) id[1 + i] = static_cast<std::uint8_t>(n >> (8 * i));
  return id;
}
inline id16 visitor(std::uint32_t n) { return id_of(1, n); }
inline id16 hold_id(std::uint32_t n) { return id_of(2, n); }

inline room_config seat_room(std::uint64_t total, second_hold policy = second_hold::refuse) {
  auto c = test_room("r", 6000);
  c.inventory = inventory_settings{};
  c.inventory->total = total;
  c.inventory->second = policy;
  return c;
}

inline room_config legged_room(std::uint64_t total, std::vector<std::uint64_t> leg_totals = {}) {
  auto c = seat_room(total);
  c.inventory->legs = {"A", "B", "C", "D"};
  c.inventory->leg_totals = std::move(leg_totals);
  return c;
}

struct holds_fixture : journal_fixture {
  // The room, or once it is removed with seats, its retired ledger through the late grace.
  const room& r() {
    const room* found = rooms->find_for_holds("r", clock.steady_ms());
    REQUIRE(found);
    return *found;
  }
  const seat_ledger& seats() { return r().seats(); }

  // As the handler does: decide, write what is decided, answer from the room as the log
  // left it by asking again.
  hold_decision ask(std::string key, hold_request request) {
    auto decision = decide_hold(r(), key, request, clock.steady_ms());
    if (auto* e = std::get_if<event>(&decision)) {
      if (commit(*e).first) return desk_refusal{errc::storage_unavailable, ""};
      decision = decide_hold(r(), key, request, clock.steady_ms());
      REQUIRE_FALSE(std::holds_alternative<event>(decision));
    }
    return decision;
  }
  hold_decision place(std::string key, std::uint32_t v, std::uint32_t h, std::uint32_t n = 1) {
    return ask(std::move(key), {hold_action::place, hold_id(h), visitor(v), v, n});
  }
  hold_decision act(std::string key, hold_action action, std::uint32_t h) {
    return ask(std::move(key), {action, hold_id(h), std::nullopt, 0, 0});
  }
  // The ticker's sweep; false if the write failed.
  bool sweep() {
    auto due = r().expired_holds(clock.steady_ms());
    return !due || !commit(*due).first;
  }
  void advance_s(std::int64_t s) { clock.advance_ms(s * 1000); }
  void check_invariant() {
    const auto& s = seats();
    CHECK(s.confirmed() + s.held() + s.available() == s.total());
    CHECK_FALSE(s.frozen());
  }
};

inline const hold_receipt& receipt(const hold_decision& d) {
  REQUIRE(std::holds_alternative<hold_receipt>(d));
  return std::get<hold_receipt>(d);
}
inline errc refusal(const hold_decision& d) {
  REQUIRE(std::holds_alternative<desk_refusal>(d));
  return std::get<desk_refusal>(d).code;
}

}  // namespace foyer::test
