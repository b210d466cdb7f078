// The seat ledger with the admin's operations, against a small reference model: random
// interleavings (seeded) of holds, extensions, confirms on time and late, releases,
// expiries, seat totals and legs changed while holds are in flight, recounts, deletes with
// and without force, and restarts. On every step the invariant holds on every leg, nothing
// is frozen (so a recount writes nothing), the totals are the settings in force, and every
// hold the site paid for ends confirmed or refund_required. After a forced delete, the
// removed room answers confirms through its late grace as its holds stood: a ticket stays
// a ticket, anything else is a refund. FOYER_LEDGER_SEEDS=n runs n seeds (default 200).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include <fmt/format.h>

#include "core/rooms/room_admin.hpp"
#include "support/holds_fixture.hpp"

using namespace foyer;
using namespace foyer::test;

namespace {

constexpr unsigned default_seeds = 200;
constexpr int steps_per_seed = 300;

unsigned seeds() {
  const char* text = std::getenv("FOYER_LEDGER_SEEDS");
  return text ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : default_seeds;
}

struct ledger_model : holds_fixture {
  std::mt19937 rng;
  std::uint32_t placed = 0;
  // The model: what the site heard of each hold it paid for.
  std::map<std::uint32_t, hold_state> paid;

  int roll(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

  room_config config_with(std::uint64_t total, bool legs) {
    auto c = legs ? legged_room(total, {}) : seat_room(total, second_hold::release_first);
    c.inventory->max_seats_per_pass = 8;
    return c;
  }

  // A change decided now and written with the holds decided before it was: the log applies
  // the holds first, as a batch would.
  void change_racing_holds(const room_config& next) {
    std::vector<event> batch;
    for (int i = 0; i < roll(3); ++i) {
      auto v = static_cast<std::uint32_t>(roll(12));
      auto d = decide_hold(r(), fmt::format("race-{}", ++placed), {hold_action::place, hold_id(placed), visitor(v), v, 1 + v % 3},
                           clock.steady_ms());
      if (auto* e = std::get_if<event>(&d)) batch.push_back(*e);
    }
    auto decided = change_room(*rooms, "r", next, clock.steady_ms());
    if (auto* events = std::get_if<std::vector<event>>(&decided)) {
      batch.insert(batch.begin() + roll(static_cast<int>(batch.size()) + 1), events->begin(), events->end());
    }
    if (!batch.empty()) commit(batch);
    // What applied is the setting in force, or the seats were kept as they were.
    const auto& now = *r().config().inventory;
    CHECK((now == *next.inventory || r().refuses_seats(next, clock.steady_ms())));
  }

  void step() {
    auto pick = roll(100);
    auto h = static_cast<std::uint32_t>(roll(static_cast<int>(placed) + 1));
    auto key = fmt::format("k{}", roll(10'000));
    if (pick < 4) {
      restart();
    } else if (pick < 12) {
      advance_s(roll(250));
      REQUIRE(sweep());
    } else if (pick < 22) {
      bool legs = r().config().inventory->legs.size() > 1;
      change_racing_holds(config_with(static_cast<std::uint64_t>(1 + roll(30)), roll(4) == 0 ? !legs : legs));
    } else if (pick < 23) {
      // No delete without force while seats are taken.
      auto d = remove_room(*rooms, "r", /*force=*/false, clock.steady_ms());
      if (seats().held() + seats().confirmed() > 0) CHECK(std::holds_alternative<desk_refusal>(d));
    } else if (pick < 24) {
      // Never frozen: the recount finds the counts right and writes nothing.
      auto d = recount_seats(*rooms, "r", clock.steady_ms());
      REQUIRE(std::holds_alternative<std::vector<event>>(d));
      CHECK(std::get<std::vector<event>>(d).empty());
    } else if (pick < 55) {
      auto v = static_cast<std::uint32_t>(roll(12));
      ++placed;
      hold_request request{hold_action::place, hold_id(placed), visitor(v), v, 1 + v % 3};
      if (r().config().inventory->legs.size() > 1) {
        request.from = "A";
        request.to = roll(2) ? "C" : "D";
      }
      ask(key, request);
    } else if (pick < 80) {
      auto d = ask(key, {hold_action::confirm, hold_id(h), std::nullopt, 0, 0});
      if (auto* got = std::get_if<hold_receipt>(&d)) paid[h] = got->state;
    } else if (pick < 92) {
      ask(key, {hold_action::release, hold_id(h), std::nullopt, 0, 0});
    } else {
      ask(key, {hold_action::extend, hold_id(h), std::nullopt, 0, 0});
    }
  }

  void check_model() {
    const auto& s = seats();
    REQUIRE_FALSE(s.frozen());
    const auto& settings = *r().config().inventory;
    REQUIRE(s.total() == settings.total);
    for (std::size_t i = 0; i < s.legs().size(); ++i) {
      const auto& leg = s.legs()[i];
      REQUIRE(leg.total == settings.leg_total(i));
      REQUIRE(leg.confirmed + leg.held + leg.available == leg.total);
    }
    // A payment ends in a ticket or a refund, and what the site heard stands (a refund is
    // forgotten after the hold's retention; a ticket never).
    for (const auto& [h, state] : paid) {
      const hold* found = seats().find(hold_id(h));
      if (!found) {
        REQUIRE(state == hold_state::refund_required);
        continue;
      }
      REQUIRE((found->state == hold_state::confirmed || found->state == hold_state::refund_required));
      REQUIRE(found->state == state);
    }
  }

  // Removes the room by force, then confirms and restarts within its late grace: each
  // hold answers as it stood at the removal, and the room is gone after the grace.
  void remove_and_confirm() {
    std::map<std::uint32_t, std::optional<hold_state>> before;
    for (std::uint32_t h = 0; h <= placed; ++h) {
      const hold* found = seats().find(hold_id(h));
      before[h] = found ? std::optional(found->state) : std::nullopt;
    }
    auto confirmed = seats().confirmed();
    auto removal = remove_room(*rooms, "r", /*force=*/true, clock.steady_ms());
    REQUIRE(std::holds_alternative<std::vector<event>>(removal));
    REQUIRE_FALSE(commit(std::get<std::vector<event>>(removal)).first);
    REQUIRE_FALSE(rooms->find("r"));
    std::int64_t waited_s = 0;
    for (int i = 0; i < 20; ++i) {
      if (roll(8) == 0) restart();
      auto h = static_cast<std::uint32_t>(roll(static_cast<int>(placed) + 1));
      auto d = ask(fmt::format("late-{}", i), {hold_action::confirm, hold_id(h), std::nullopt, 0, 0});
      const auto& was = before[h];
      // A hold that ended is forgotten after its retention, as in a live room; a ticket never.
      if (!was || std::holds_alternative<desk_refusal>(d)) {
        CHECK(refusal(d) == errc::unknown_hold);
        CHECK((!was || *was != hold_state::confirmed));
        continue;
      }
      auto got = receipt(d);
      if (*was == hold_state::confirmed) {
        CHECK(got.state == hold_state::confirmed);
      } else {
        CHECK(got.state == hold_state::refund_required);
        if (*was != hold_state::refund_required) CHECK(got.reason == refund_reason::room_removed);
      }
      if (paid.contains(h)) CHECK(got.state == paid[h]);
      REQUIRE(seats().held() == 0);
      REQUIRE(seats().confirmed() == confirmed);
      auto step_s = roll(10);  // 20 steps stay within the late grace
      advance_s(step_s);
      waited_s += step_s;
    }
    advance_s(inventory_settings{}.late_grace_seconds + 1 - waited_s);
    CHECK_FALSE(rooms->find_for_holds("r", clock.steady_ms()));
  }
};

}  // namespace

TEST_CASE("the seat ledger under holds and the admin's changes keeps to its model, seed by seed") {
  for (unsigned seed = 1; seed <= seeds(); ++seed) {
    CAPTURE(seed);
    ledger_model m;
    m.rng.seed(seed);
    m.start({m.config_with(20, seed % 2 == 0)});
    for (int i = 0; i < steps_per_seed; ++i) {
      m.step();
      m.check_model();
    }
    // Removing the room takes force while seats are taken.
    auto taken = m.seats().held() + m.seats().confirmed();
    auto unforced = remove_room(*m.rooms, "r", /*force=*/false, m.clock.steady_ms());
    CHECK(std::holds_alternative<desk_refusal>(unforced) == (taken > 0));
    m.remove_and_confirm();
  }
}
