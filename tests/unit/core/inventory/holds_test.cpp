#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "core/passes/pass_issuer.hpp"
#include "core/rooms/status.hpp"
#include "support/holds_fixture.hpp"

using namespace foyer;
using namespace foyer::test;


TEST_CASE_METHOD(holds_fixture, "a hold takes seats, a confirm keeps them, a release gives them back") {
  start({seat_room(10)});
  CHECK(receipt(place("k1", 1, 1, 3)).state == hold_state::held);
  CHECK(seats().held() == 3);
  CHECK(seats().available() == 7);
  CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  CHECK(seats().confirmed() == 3);
  CHECK(seats().held() == 0);
  CHECK(receipt(place("k2", 2, 2, 4)).state == hold_state::held);
  CHECK(receipt(act("r2", hold_action::release, 2)).state == hold_state::released);
  CHECK(seats().available() == 7);
  CHECK(refusal(place("k3", 3, 3, 5)) == errc::bad_body);  // more than max_seats_per_hold
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a double confirm answers the same, and a retried key its first answer") {
  start({seat_room(10)});
  auto first = receipt(place("k1", 1, 1, 2));
  advance_s(5);
  auto again = receipt(place("k1", 1, 1, 2));
  CHECK(again.hold == first.hold);
  CHECK(again.expires_ms == first.expires_ms);
  CHECK(seats().held() == 2);
  CHECK(refusal(place("k1", 1, 1, 3)) == errc::idempotency_key_reused);
  CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  // Another key for the same confirmation: the same outcome, nothing counted twice.
  CHECK(receipt(act("c2", hold_action::confirm, 1)).state == hold_state::confirmed);
  CHECK(seats().confirmed() == 2);
  CHECK(refusal(act("c1", hold_action::release, 1)) == errc::idempotency_key_reused);
  CHECK(refusal(act("r1", hold_action::release, 1)) == errc::hold_not_held);
  CHECK(confirmation_id(hold_id(1)) == confirmation_id(hold_id(1)));
  CHECK(confirmation_id(hold_id(1)) != confirmation_id(hold_id(2)));
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a hold expires by the sweep, and its seats are available again") {
  start({seat_room(2)});
  receipt(place("k1", 1, 1, 2));
  advance_s(179);
  sweep();
  CHECK(seats().held() == 2);
  advance_s(1);
  sweep();
  CHECK(seats().held() == 0);
  CHECK(seats().available() == 2);
  CHECK(seats().find(hold_id(1))->state == hold_state::expired);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a late success past the pass's seats is refunded, seats free or not") {
  start({seat_room(20)});  // 4 seats a pass
  receipt(place("k1", 1, 1, 4));
  receipt(act("r1", hold_action::release, 1));
  receipt(place("k2", 1, 2, 4));
  SECTION("the second hold confirmed") { receipt(act("c2", hold_action::confirm, 2)); }
  SECTION("the second hold still held") {}
  // The first hold's payment went through after all.
  auto late = receipt(act("c1", hold_action::confirm, 1));
  CHECK(late.state == hold_state::refund_required);
  CHECK(late.reason == refund_reason::late_success_over_limit);
  CHECK(seats().seats_of(visitor(1)) == 4);
  restart();
  CHECK(seats().find(hold_id(1))->reason == refund_reason::late_success_over_limit);
  CHECK(seats().seats_of(visitor(1)) == 4);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a confirm after expiry re-holds if seats are free, inside the grace only") {
  start({seat_room(2)});
  receipt(place("k1", 1, 1, 2));
  CHECK(refusal(place("k2", 2, 2, 1)) == errc::sold_out);
  advance_s(200);
  sweep();

  SECTION("free seats, inside the grace: confirmed") {
    CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
    CHECK(seats().confirmed() == 2);
  }
  SECTION("no free seat, inside the grace: refund, and every retry says so") {
    receipt(place("k3", 3, 3, 1));
    auto late = receipt(act("c1", hold_action::confirm, 1));
    CHECK(late.state == hold_state::refund_required);
    CHECK(late.reason == refund_reason::late_success_no_seat);
    // Seats free later change nothing: one payment, one answer.
    receipt(act("r3", hold_action::release, 3));
    CHECK(receipt(act("c2", hold_action::confirm, 1)).state == hold_state::refund_required);
    CHECK(seats().confirmed() == 0);
  }
  SECTION("outside the grace: refund, even with seats free") {
    advance_s(300);
    auto late = receipt(act("c1", hold_action::confirm, 1));
    CHECK(late.state == hold_state::refund_required);
    CHECK(late.reason == refund_reason::late_success_after_grace);
    CHECK(seats().available() == 2);
  }
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "payment-pending extends once, only from held") {
  start({seat_room(4)});
  receipt(place("k1", 1, 1, 1));
  auto extended = receipt(act("e1", hold_action::extend, 1));
  CHECK(extended.expires_ms == journal_fixture::start_ms + (180 + 90) * 1000);
  CHECK(receipt(act("e1", hold_action::extend, 1)).expires_ms == extended.expires_ms);
  CHECK(refusal(act("e2", hold_action::extend, 1)) == errc::hold_extended_already);
  receipt(place("k2", 2, 2, 1));
  receipt(act("r2", hold_action::release, 2));
  CHECK(refusal(act("e3", hold_action::extend, 2)) == errc::hold_not_held);
  advance_s(200);
  sweep();
  CHECK(seats().find(hold_id(1))->state == hold_state::held);  // extended: 270 s
  advance_s(70);
  sweep();
  CHECK(seats().find(hold_id(1))->state == hold_state::expired);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a second hold by the same visitor, under each policy") {
  SECTION("refuse (the default)") {
    start({seat_room(10)});
    receipt(place("k1", 1, 1, 2));
    CHECK(refusal(place("k2", 1, 2, 1)) == errc::live_hold_exists);
    CHECK(seats().held() == 2);
    // Once the first ended, the visitor may hold again.
    receipt(act("r1", hold_action::release, 1));
    CHECK(receipt(place("k3", 1, 3, 1)).state == hold_state::held);
  }
  SECTION("release the first") {
    start({seat_room(3, second_hold::release_first)});
    receipt(place("k1", 1, 1, 2));
    CHECK(receipt(place("k2", 1, 2, 3)).state == hold_state::held);
    CHECK(seats().find(hold_id(1))->state == hold_state::released);
    CHECK(seats().held() == 3);
    // Not enough seats even with the first back: nothing changes.
    CHECK(refusal(place("k3", 2, 3, 1)) == errc::sold_out);
    CHECK(refusal(place("k4", 1, 4, 4)) == errc::sold_out);
    CHECK(seats().find(hold_id(2))->state == hold_state::held);
  }
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a release racing a confirm: whichever the log applies first decides") {
  start({seat_room(2)});
  receipt(place("k1", 1, 1, 2));
  auto confirm = std::get<event>(decide_hold(r(), "c1", {hold_action::confirm, hold_id(1), std::nullopt, 0, 0}, clock.steady_ms()));
  auto release = std::get<event>(decide_hold(r(), "r1", {hold_action::release, hold_id(1), visitor(1), 0, 0}, clock.steady_ms()));

  SECTION("release first: the confirm re-holds the seats it finds free") {
    REQUIRE_FALSE(commit(std::vector<event>{release, confirm}).first);
    CHECK(receipt(act("r1", hold_action::release, 1)).state == hold_state::released);
    CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
    CHECK(seats().confirmed() == 2);
  }
  SECTION("confirm first: the release is refused") {
    REQUIRE_FALSE(commit(std::vector<event>{confirm, release}).first);
    CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
    CHECK(refusal(act("r1", hold_action::release, 1)) == errc::hold_not_held);
  }
  // The last seats confirmed and nothing held: sold out.
  CHECK(r().state() == room_state::sold_out);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "two placements for the last seats: the second applied places nothing, and says so") {
  start({seat_room(1)});
  std::vector<std::pair<std::uint64_t, std::optional<hold_outcome>>> seen;
  rooms->on_applied([&](std::uint64_t seq, const event&, const applied_effect& effect) { seen.emplace_back(seq, effect.hold); });
  auto a = std::get<event>(decide_hold(r(), "k1", {hold_action::place, hold_id(1), visitor(1), 1, 1}, clock.steady_ms()));
  auto b = std::get<event>(decide_hold(r(), "k2", {hold_action::place, hold_id(2), visitor(2), 2, 1}, clock.steady_ms()));
  REQUIRE_FALSE(commit(std::vector<event>{a, b}).first);
  CHECK(seats().held() == 1);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].second == hold_outcome::placed);
  CHECK(seen[1].second == hold_outcome::sold_out);
  CHECK(refusal(place("k2", 2, 2, 1)) == errc::sold_out);
  // The seat comes back: the lost request's key still answers what it did, a new key places.
  receipt(act("r1", hold_action::release, 1));
  CHECK(refusal(place("k2", 2, 2, 1)) == errc::sold_out);
  CHECK(refusal(place("k2", 2, 2, 1)) == errc::sold_out);
  CHECK(receipt(place("k3", 2, 3, 1)).state == hold_state::held);
  // Each outcome is a side record for the audit trail, written at once; it outlives a restart.
  auto stored = [&](std::uint64_t seq) {
    std::optional<hold_outcome> out;
    store.read({journal::hold_outcome_key("r", seq)},
               [&](std::error_code, std::vector<std::optional<std::string>> v) { out = journal::read_hold_outcome(v[0]); });
    drain();
    return out;
  };
  CHECK(stored(seen[0].first) == hold_outcome::placed);
  CHECK(stored(seen[1].first) == hold_outcome::sold_out);
  restart();
  CHECK(refusal(place("k2", 2, 2, 1)) == errc::sold_out);
  CHECK(stored(seen[1].first) == hold_outcome::sold_out);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "an outcome whose record a crash lost is written again at recovery, before any read") {
  start({seat_room(2)});
  auto placed = std::get<event>(decide_hold(r(), "k1", {hold_action::place, hold_id(1), visitor(1), 1, 1}, clock.steady_ms()));
  std::optional<std::uint64_t> seq;
  rooms->on_applied([&](std::uint64_t s, const event&, const applied_effect&) { seq = s; });
  rooms->submit(placed, [](std::error_code ec, const join_outcome&) { CHECK_FALSE(ec); });
  store.fail_next_writes(1);  // the outcome's own write, right after the event's
  drain();
  REQUIRE(seq);
  restart();  // as a kill -9 would: the event is in the log, its outcome's record is not
  std::optional<hold_outcome> read;
  store.read({journal::hold_outcome_key("r", *seq)},
             [&](std::error_code, std::vector<std::optional<std::string>> v) { read = journal::read_hold_outcome(v[0]); });
  drain();
  CHECK(read == hold_outcome::placed);
}

TEST_CASE_METHOD(holds_fixture, "every hold request's outcome is recorded under its key, refusals included") {
  start({seat_room(4)});
  receipt(place("k1", 1, 1, 2));
  // Decided while the hold was held, applied after it was confirmed: refused, and so on retry.
  auto extend = std::get<event>(decide_hold(r(), "e1", {hold_action::extend, hold_id(1), std::nullopt, 0, 0}, clock.steady_ms()));
  auto release = std::get<event>(decide_hold(r(), "r1", {hold_action::release, hold_id(1), visitor(1), 0, 0}, clock.steady_ms()));
  receipt(act("c1", hold_action::confirm, 1));
  std::vector<std::optional<hold_outcome>> seen;
  rooms->on_applied([&](std::uint64_t, const event&, const applied_effect& effect) { seen.push_back(effect.hold); });
  REQUIRE_FALSE(commit(std::vector<event>{extend, release}).first);
  CHECK(seen == std::vector<std::optional<hold_outcome>>{hold_outcome::not_held, hold_outcome::not_held});
  CHECK(refusal(act("e1", hold_action::extend, 1)) == errc::hold_not_held);
  CHECK(refusal(act("r1", hold_action::release, 1)) == errc::hold_not_held);
  // A key applied twice: the second does nothing.
  REQUIRE_FALSE(commit(release).first);
  CHECK(seen.back() == hold_outcome::repeated);
  // A placement applied while the visitor holds seats already.
  receipt(place("k2", 2, 2, 1));
  auto second = std::get<event>(decide_hold(r(), "k3", {hold_action::place, hold_id(3), visitor(3), 3, 1}, clock.steady_ms()));
  std::get<hold_placed>(second).visitor = visitor(2);
  REQUIRE_FALSE(commit(second).first);
  CHECK(seen.back() == hold_outcome::live_hold_exists);
  CHECK(seats().receipt("k3")->outcome == hold_outcome::live_hold_exists);
  // The sweep says whether it ended anything.
  advance_s(200);
  REQUIRE(sweep());
  CHECK(seen.back() == hold_outcome::expired);
  REQUIRE_FALSE(commit(holds_expired{"r", {hold_id(2)}, clock.steady_ms()}).first);
  CHECK(seen.back() == hold_outcome::nothing_due);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "holds whose time passed during a restart expire in the first step") {
  start({seat_room(5)});
  receipt(place("k1", 1, 1, 2));
  receipt(place("k2", 2, 2, 1));
  receipt(act("c2", hold_action::confirm, 2));
  advance_s(300);
  restart();
  check_invariant();
  CHECK(seats().held() == 2);
  auto first = r().expired_holds(clock.steady_ms());
  REQUIRE(first);
  REQUIRE_FALSE(commit(*first).first);
  CHECK(seats().held() == 0);
  CHECK(seats().confirmed() == 1);
  // The keys survive the restart: a retry still gets its first answer.
  CHECK(receipt(act("c2", hold_action::confirm, 2)).state == hold_state::confirmed);
  CHECK(refusal(place("k1", 1, 1, 3)) == errc::idempotency_key_reused);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "the seats survive a snapshot, and an older room state reads without them") {
  start({seat_room(5)});
  receipt(place("k1", 1, 1, 2));
  receipt(act("c1", hold_action::confirm, 1));
  receipt(place("k2", 2, 2, 1));
  auto bytes = r().encode_state();
  // The seed must match: take it from the state itself.
  reader seed(bytes);
  seed.u8();
  room same(seat_room(5), room_created{"r", seed.raw<32>(), journal_fixture::start_ms});
  REQUIRE(same.decode_state(bytes));
  CHECK(same.encode_state() == bytes);
  CHECK(same.seats().confirmed() == 2);
  CHECK(same.seats().held() == 1);
  CHECK_FALSE(same.seats().frozen());
}

TEST_CASE_METHOD(holds_fixture, "the inventory's total cannot go below what is held and confirmed") {
  start({seat_room(5)});
  receipt(place("k1", 1, 1, 3));
  auto smaller = seat_room(2);
  auto p = r().refuses(smaller, clock.steady_ms());
  REQUIRE(p);
  CHECK(p->field == "inventory.total");
  auto none = test_room("r", 6000);
  REQUIRE(r().refuses(none, clock.steady_ms()));
  CHECK_FALSE(r().refuses(seat_room(8), clock.steady_ms()));
}

TEST_CASE_METHOD(holds_fixture, "the inventory stays while an ended hold may still be confirmed late, and no longer") {
  start({seat_room(5)});
  receipt(place("k1", 1, 1, 3));
  receipt(act("r1", hold_action::release, 1));
  auto none = test_room("r", 6000);
  auto p = r().refuses(none, clock.steady_ms());
  REQUIRE(p);
  CHECK(p->field == "inventory");
  CHECK(p->message == "cannot be removed while 1 ended holds may still be confirmed (late_grace_seconds)");
  advance_s(300);  // the late grace's last moment: a confirm would still find its seats
  CHECK(r().refuses(none, clock.steady_ms()));
  advance_s(1);
  CHECK_FALSE(r().refuses(none, clock.steady_ms()));
}

TEST_CASE_METHOD(holds_fixture, "admission follows the seats: released seats admit the next visitors in place order") {
  start({seat_room(2)});
  for (std::uint8_t v = 0; v < 6; ++v) join("r", v);
  advance_s(5);
  tick("r");
  // Two seats: two admitted visitors count against them until they hold.
  CHECK(r().served(clock.steady_ms()) == 2);
  REQUIRE_FALSE(commit(pass_claimed{"r", 0, id_of(3, 0), clock.now_ms()}).first);
  receipt(ask("k0", {hold_action::place, hold_id(0), visitor(0), 0, 2}));
  advance_s(5);
  tick("r");
  // Everything held: admission holds where it is.
  CHECK(r().served(clock.steady_ms()) == 2);
  receipt(act("r0", hold_action::release, 0));
  advance_s(5);
  CHECK(r().served(clock.steady_ms()) == 3);
  receipt(place("k1", 1, 1, 1));
  receipt(act("c1", hold_action::confirm, 1));
  receipt(place("k2", 2, 2, 1));
  receipt(act("c2", hold_action::confirm, 2));
  // Nothing available, nothing held.
  CHECK(r().state() == room_state::sold_out);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a hold between steps takes back nothing its room showed admitted") {
  start({seat_room(3)});
  for (std::uint8_t v = 0; v < 5; ++v) join("r", v);
  advance_s(5);
  tick("r");
  REQUIRE(r().served(clock.steady_ms()) == 3);
  REQUIRE_FALSE(commit(pass_claimed{"r", 0, id_of(3, 0), clock.now_ms()}).first);
  REQUIRE_FALSE(commit(pass_claimed{"r", 1, id_of(3, 1), clock.now_ms()}).first);
  // Seats came back after the last durable step, and the frontier moved with them.
  receipt(place("k1", 1, 1, 1));
  receipt(act("r1", hold_action::release, 1));
  advance_s(1);
  auto shown = r().served(clock.steady_ms());
  REQUIRE(shown == 4);
  // A hold of two seats by an admitted visitor frees one slot and takes two seats: the
  // cap falls below what visitors were shown, which stays admitted.
  receipt(ask("k0", {hold_action::place, hold_id(0), visitor(0), 0, 2}));
  CHECK(r().served(clock.steady_ms()) == shown);
  restart();
  CHECK(r().served(clock.steady_ms()) == shown);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "random holds, confirms, releases, expiries, failed writes and restarts keep the seats whole") {
  std::mt19937 rng(GENERATE(1u, 2u, 3u, 4u, 5u));
  bool legged = GENERATE(false, true);
  auto config = legged ? legged_room(20, {20, 12, 20}) : seat_room(20);
  config.inventory->waitlist = 3;
  start({config});
  std::map<std::string, hold_receipt> first_answers;
  // What each key's request did when it was last applied (a key is new again once its
  // receipt is pruned), as the observer heard it.
  std::map<std::string, std::pair<hold_outcome, std::int64_t>> applied_outcomes;
  auto watch = [&] {
    rooms->on_applied([&](std::uint64_t, const event& e, const applied_effect& effect) {
      const auto& o = effect.hold;
      if (!has_hold_outcome(e)) return;
      REQUIRE(o);
      std::visit(
          [&](const auto& v) {
            if constexpr (requires { v.key; }) {
              if (*o != hold_outcome::repeated) applied_outcomes[v.key] = {*o, v.at_ms};
            }
          },
          e);
    });
  };
  watch();
  std::set<id16> confirmed;
  std::uint32_t placed = 0;  // hold ids are new for every placement, as the handler's are
  auto random_placement = [&] {
    auto v = std::uniform_int_distribution<std::uint32_t>(0, 24)(rng);
    hold_request request{hold_action::place, hold_id(++placed), visitor(v), v, 1 + v % 4};
    if (legged) {
      auto from = std::uniform_int_distribution<std::size_t>(0, 2)(rng);
      auto to = std::uniform_int_distribution<std::size_t>(from + 1, 3)(rng);
      request.from = r().config().inventory->legs[from];
      request.to = r().config().inventory->legs[to];
    }
    return request;
  };
  for (int step = 0; step < 600; ++step) {
    auto pick = std::uniform_int_distribution<int>(0, 99)(rng);
    auto h = std::uniform_int_distribution<std::uint32_t>(0, placed)(rng);
    auto key = fmt::format("k{}", std::uniform_int_distribution<int>(0, 150)(rng));
    if (pick < 8) {
      store.fail_next_writes(1);
    } else if (pick < 12) {
      restart();
      watch();
    } else if (pick < 16) {
      // Requests decided on the same room, written together: later ones may lose the race.
      std::vector<event> batch;
      for (int i = 0; i < 3; ++i) {
        auto d = decide_hold(r(), fmt::format("k{}", std::uniform_int_distribution<int>(0, 150)(rng)), random_placement(),
                             clock.steady_ms());
        if (auto* e = std::get_if<event>(&d)) batch.push_back(*e);
      }
      if (!batch.empty()) commit(batch);
    } else if (pick < 20) {
      advance_s(std::uniform_int_distribution<int>(1, 200)(rng));
      sweep();
    } else {
      auto request = random_placement();
      if (pick >= 50) request = {pick < 75 ? hold_action::confirm : pick < 90 ? hold_action::release : hold_action::extend,
                                 hold_id(h), std::nullopt, 0, 0};
      auto d = ask(key, request);
      // A release of an ended hold is answered from the hold, not kept under its key.
      auto* got = std::get_if<hold_receipt>(&d);
      if (got && seats().receipt(key)) {
        // A key answers what it first answered, every time.
        auto [it, fresh] = first_answers.emplace(key, *got);
        if (!fresh && it->second.at_ms + r().seats().settings()->retention_ms() > clock.steady_ms()) {
          CHECK(it->second.state == got->state);
          CHECK(it->second.hold == got->hold);
        }
        if (got->state == hold_state::confirmed) confirmed.insert(got->hold);
      }
      // A key whose request was applied answers what applying it did, refusals too.
      auto applied = applied_outcomes.find(key);
      if (applied != applied_outcomes.end() && !std::holds_alternative<desk_refusal>(d) &&
          applied->second.second + r().seats().settings()->retention_ms() > clock.steady_ms()) {
        CHECK_FALSE(refused(applied->second.first));
      }
      if (applied != applied_outcomes.end() && refused(applied->second.first) &&
          applied->second.second + r().seats().settings()->retention_ms() > clock.steady_ms()) {
        CHECK(std::holds_alternative<desk_refusal>(d));
      }
    }
    const auto& s = seats();
    for (const auto& leg : s.legs()) REQUIRE(leg.confirmed + leg.held + leg.available == leg.total);
    REQUIRE(s.legs().size() == (legged ? 3u : 1u));
    REQUIRE_FALSE(s.frozen());
    REQUIRE(s.waiting() <= 3);
    // Nothing can come back for a line in a sold-out room.
    if (s.sold_out()) REQUIRE(s.waiting() == 0);
  }
  // Every confirmation the requests heard of is in the ledger, each counted once.
  std::uint64_t seats_confirmed = 0;
  for (const auto& h : confirmed) {
    const hold* found = seats().find(h);
    REQUIRE(found);
    CHECK(found->state == hold_state::confirmed);
    seats_confirmed += found->seats;
  }
  CHECK(seats_confirmed == seats().confirmed());
}

TEST_CASE_METHOD(holds_fixture, "a ledger whose counts disagree with its holds after recovery is frozen and refuses") {
  start({seat_room(5)});
  receipt(place("k1", 1, 1, 2));
  auto bytes = r().encode_state();
  // The ledger's `held` count, after its format and total: corrupt it.
  auto good = r().seats();
  writer w;
  good.encode(w);
  auto ledger_at = bytes.size() - w.bytes().size();
  auto held_at = ledger_at + 1 + 8 + 7;  // its low byte
  bytes[held_at] = static_cast<char>(3);
  reader seed(bytes);
  seed.u8();
  room restored(seat_room(5), room_created{"r", seed.raw<32>(), journal_fixture::start_ms});
  REQUIRE(restored.decode_state(bytes));
  CHECK(restored.seats().frozen());
  CHECK(std::get<desk_refusal>(decide_hold(restored, "k2", {hold_action::place, hold_id(2), visitor(2), std::nullopt, 1},
                                           clock.steady_ms()))
            .code == errc::inventory_frozen);
  clock.advance_ms(600'000);
  CHECK_FALSE(restored.expired_holds(clock.steady_ms()));
}

namespace {

struct legs_fixture : holds_fixture {
  hold_decision place_on(std::string key, std::uint32_t v, std::uint32_t h, std::uint32_t n, std::string from,
                         std::string to) {
    return ask(std::move(key), {hold_action::place, hold_id(h), visitor(v), v, n, std::move(from), std::move(to)});
  }
  // "total/available/held/confirmed" of each leg, in route order.
  std::vector<std::string> legs() {
    std::vector<std::string> out;
    for (const auto& l : seats().legs()) out.push_back(fmt::format("{}/{}/{}/{}", l.total, l.available, l.held, l.confirmed));
    return out;
  }
  void check_legs() {
    for (const auto& l : seats().legs()) CHECK(l.confirmed + l.held + l.available == l.total);
    CHECK_FALSE(seats().frozen());
  }
};

using leg_list = std::vector<std::string>;

}  // namespace

TEST_CASE_METHOD(legs_fixture, "legs that overlap compete for the leg they share; legs that don't, don't") {
  start({legged_room(2)});
  CHECK(receipt(place_on("k1", 1, 1, 2, "A", "C")).state == hold_state::held);
  CHECK(legs() == leg_list{"2/0/2/0", "2/0/2/0", "2/2/0/0"});
  // B-C is A-C's too: all or nothing, B-D takes no seat on C-D either.
  CHECK(refusal(place_on("k2", 2, 2, 1, "B", "D")) == errc::sold_out);
  CHECK(legs() == leg_list{"2/0/2/0", "2/0/2/0", "2/2/0/0"});
  CHECK(receipt(place_on("k3", 3, 3, 2, "C", "D")).state == hold_state::held);
  CHECK(seats().held() == 4);  // seats in held holds, not seats of one leg
  CHECK(seats().available() == 0);
  receipt(act("r1", hold_action::release, 1));
  // B-C is free again, C-D is not.
  CHECK(refusal(place_on("k4", 2, 4, 1, "B", "D")) == errc::sold_out);
  receipt(act("c3", hold_action::confirm, 3));
  CHECK(receipt(place_on("k5", 2, 5, 2, "A", "C")).state == hold_state::held);
  CHECK(legs() == leg_list{"2/0/2/0", "2/0/2/0", "2/0/0/2"});
  CHECK(seats().confirmed() == 2);
  check_legs();
}

TEST_CASE_METHOD(legs_fixture, "a hold names a route of the room's legs, and only a room with legs takes one") {
  SECTION("without legs") {
    start({seat_room(5)});
    auto d = ask("k1", {hold_action::place, hold_id(1), visitor(1), 1, 1, std::string("A"), std::nullopt});
    CHECK(refusal(d) == errc::invalid_route);
    CHECK(std::get<desk_refusal>(d).field == "from");
    d = ask("k2", {hold_action::place, hold_id(2), visitor(1), 1, 1, std::nullopt, std::string("B")});
    CHECK(std::get<desk_refusal>(d).field == "to");
  }
  SECTION("with legs") {
    start({legged_room(5)});
    auto field = [&](std::optional<std::string> from, std::optional<std::string> to) {
      auto d = ask("k", {hold_action::place, hold_id(1), visitor(1), 1, 1, std::move(from), std::move(to)});
      REQUIRE(refusal(d) == errc::invalid_route);
      return std::get<desk_refusal>(d).field;
    };
    CHECK(field(std::nullopt, "B") == "from");
    CHECK(field("A", std::nullopt) == "to");
    CHECK(field("Z", "B") == "from");
    CHECK(field("A", "Z") == "to");
    CHECK(field("C", "A") == "to");
    CHECK(field("B", "B") == "to");
    // A placement written with stations the room no longer has is refused when applied, and stays so.
    REQUIRE_FALSE(commit(hold_placed{"r", hold_id(9), visitor(9), 9, 1, "k9", clock.steady_ms(), "A", "Z"}).first);
    CHECK(seats().receipt("k9")->outcome == hold_outcome::bad_route);
    CHECK(refusal(place_on("k9", 9, 10, 1, "A", "Z")) == errc::invalid_route);
  }
  check_invariant();
}

TEST_CASE_METHOD(legs_fixture, "each leg keeps its own total, its invariant holds through a late confirm and a restart") {
  start({legged_room(10, {2, 1, 2})});
  receipt(place_on("k1", 1, 1, 1, "A", "C"));
  advance_s(181);
  REQUIRE(sweep());
  CHECK(receipt(place_on("k2", 2, 2, 1, "B", "D")).state == hold_state::held);
  // The late success finds B-C taken: no seat on its own legs, a refund.
  CHECK(receipt(act("c1", hold_action::confirm, 1)).reason == refund_reason::late_success_no_seat);
  receipt(place_on("k3", 3, 3, 2, "A", "B"));
  advance_s(181);
  REQUIRE(sweep());
  receipt(place_on("k4", 4, 4, 2, "C", "D"));
  // A-B is still free: the late success takes its seats again, on the same legs.
  CHECK(receipt(act("c3", hold_action::confirm, 3)).state == hold_state::confirmed);
  CHECK(legs() == leg_list{"2/0/0/2", "1/1/0/0", "2/0/2/0"});
  check_legs();
  restart();
  CHECK(legs() == leg_list{"2/0/0/2", "1/1/0/0", "2/0/2/0"});
  auto bytes = r().encode_state();
  reader seed(bytes);
  seed.u8();
  room same(legged_room(10, {2, 1, 2}), room_created{"r", seed.raw<32>(), journal_fixture::start_ms});
  REQUIRE(same.decode_state(bytes));
  CHECK(same.encode_state() == bytes);
  CHECK_FALSE(same.seats().frozen());
  check_legs();
}

TEST_CASE_METHOD(legs_fixture, "the legs stay while seats are held on them; a leg's total never drops below its seats") {
  start({legged_room(4)});
  receipt(place_on("k1", 1, 1, 3, "B", "C"));
  auto other = legged_room(4);
  other.inventory->legs = {"A", "B", "C"};
  auto p = r().refuses(other, clock.steady_ms());
  REQUIRE(p);
  CHECK(p->field == "inventory.legs");
  auto smaller = legged_room(4, {1, 2, 4});
  p = r().refuses(smaller, clock.steady_ms());
  REQUIRE(p);
  CHECK(p->field == "inventory.leg_totals");
  CHECK(p->message == "cannot go below the 3 seats held and confirmed on leg B-C");
  CHECK_FALSE(r().refuses(legged_room(4, {1, 3, 1}), clock.steady_ms()));
  REQUIRE_FALSE(reconcile({legged_room(4, {1, 3, 1})}));
  CHECK(legs() == leg_list{"1/1/0/0", "3/0/3/0", "1/1/0/0"});
  // A change written before the hold was applied keeps the legs it would change.
  REQUIRE_FALSE(commit(room_configured{"r", other, room_owner::file, other, clock.steady_ms()}).first);
  CHECK(r().config().inventory->legs == leg_list{"A", "B", "C", "D"});
  check_legs();
}

TEST_CASE_METHOD(legs_fixture, "with legs, admission follows the leg with the most seats available") {
  start({legged_room(10, {1, 4, 1})});
  for (std::uint8_t v = 0; v < 8; ++v) join("r", v);
  advance_s(5);
  tick("r");
  CHECK(r().served(clock.steady_ms()) == 4);
}

namespace {

room_config waitlist_room(std::uint64_t total, std::uint32_t waitlist) {
  auto c = seat_room(total);
  c.inventory->waitlist = waitlist;
  return c;
}

}  // namespace

TEST_CASE_METHOD(holds_fixture, "a placement that finds too few seats while some are held waits in line, served in order") {
  start({waitlist_room(2, 2)});
  receipt(place("k1", 1, 1, 2));
  auto first = receipt(place("k2", 2, 2, 1));
  CHECK(first.state == hold_state::waitlisted);
  CHECK(first.waitlist_position == 1);
  CHECK(receipt(place("k3", 3, 3, 2)).waitlist_position == 2);
  // The line is full: refused.
  CHECK(refusal(place("k4", 4, 4, 1)) == errc::sold_out);
  // A retry gets the first answer; the visitor in line holds their one live hold.
  CHECK(receipt(place("k2", 2, 2, 1)).waitlist_position == 1);
  CHECK(seats().live_hold_of(visitor(2)) == hold_id(2));
  CHECK(refusal(place("k5", 2, 5, 1)) == errc::live_hold_exists);
  CHECK(seats().owed() == 3);
  advance_s(10);
  receipt(act("r1", hold_action::release, 1));
  // The head fits and holds, its time counted from now; the next needs two, one is free.
  const hold* head = seats().find(hold_id(2));
  REQUIRE(head);
  CHECK(head->state == hold_state::held);
  CHECK(head->expires_ms == clock.steady_ms() + 180'000);
  CHECK(seats().waitlist_position(hold_id(3)) == 1u);
  CHECK(seats().available() == 1);
  // Nobody overtakes: a new placement for the free seat waits behind.
  CHECK(receipt(place("k6", 6, 6, 1)).waitlist_position == 2);
  CHECK(seats().available() == 1);
  receipt(act("c2", hold_action::confirm, 2));
  CHECK(seats().find(hold_id(3))->state == hold_state::waitlisted);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a place in line lapses after hold and extension time, by the sweep") {
  start({waitlist_room(1, 3)});
  receipt(place("k1", 1, 1, 1));
  advance_s(100);
  receipt(place("k2", 2, 2, 1));
  receipt(act("e1", hold_action::extend, 1));
  advance_s(269);
  REQUIRE(sweep());
  // Hold 1 lasted 180 + 90 s: it expired at 270 s, and gave its seat to the head.
  CHECK(seats().find(hold_id(2))->state == hold_state::held);
  receipt(place("k3", 3, 3, 1));
  advance_s(269);
  REQUIRE(sweep());
  // Hold 2 expired at 180 s from 269 s, and gave its seat to hold 3, which waited 269 s.
  CHECK(seats().find(hold_id(3))->state == hold_state::held);
  receipt(place("k4", 4, 4, 1));
  receipt(act("c3", hold_action::confirm, 3));
  // Nothing available, nothing held: the room is sold out, the line emptied.
  CHECK(r().state() == room_state::sold_out);
  CHECK(seats().find(hold_id(4))->state == hold_state::expired);
  CHECK(seats().waiting() == 0);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a visitor's status follows their hold: held, then in line, until it lapses") {
  start({waitlist_room(1, 3)});
  receipt(place("k1", 1, 1, 1));
  receipt(place("k2", 2, 2, 1));
  const auto now = [&] { return clock.steady_ms(); };
  CHECK(live_hold_for(r(), visitor(1), now()).value().id == hold_id(1));
  CHECK(live_hold_for(r(), visitor(2), now()).value().id == hold_id(2));
  CHECK(seats().find(hold_id(2))->state == hold_state::waitlisted);
  CHECK_FALSE(live_hold_for(r(), visitor(3), now()));
  const auto shown = [&](std::uint32_t v) {
    visitor_status st;
    st.state = "admitted";
    st.poll_after_ms = 30'000;
    show_hold(r(), visitor(v), now(), st);
    return std::pair(std::string(st.state), st.poll_after_ms);
  };
  CHECK(shown(1) == std::pair(std::string("holding"), 30'000u));
  CHECK(shown(2) == std::pair(std::string("waitlisted"), waitlist_poll_ms));
  CHECK(shown(3) == std::pair(std::string("expired"), 30'000u));
  // Past its time, before the sweep writes it down, a hold shows as gone.
  advance_s(180);
  CHECK_FALSE(live_hold_for(r(), visitor(1), now()));
  CHECK(live_hold_for(r(), visitor(2), now()).value().id == hold_id(2));
  REQUIRE(sweep());
  CHECK(seats().find(hold_id(2))->state == hold_state::held);
  CHECK(live_hold_for(r(), visitor(2), now()).value().id == hold_id(2));
  CHECK(shown(2).first == "holding");
  receipt(act("r2", hold_action::release, 2));
  CHECK_FALSE(live_hold_for(r(), visitor(2), now()));
}

TEST_CASE_METHOD(holds_fixture, "an entry whose seats never fit lapses, a total that grows serves the line, and the line survives a restart") {
  start({waitlist_room(2, 3)});
  receipt(place("k1", 1, 1, 1));
  receipt(place("k2", 2, 2, 1));
  CHECK(receipt(place("k3", 3, 3, 2)).state == hold_state::waitlisted);
  receipt(act("c1", hold_action::confirm, 1));
  advance_s(180);
  REQUIRE(sweep());
  // One seat came back; the head needs two, and the next waits behind it.
  CHECK(seats().find(hold_id(3))->state == hold_state::waitlisted);
  CHECK(receipt(place("k4", 4, 4, 1)).waitlist_position == 2);
  restart();
  CHECK(seats().waitlist_position(hold_id(3)) == 1u);
  CHECK(seats().waitlist_position(hold_id(4)) == 2u);
  CHECK(seats().owed() == 3);
  // 270 s after it joined, every seat held then has come back or been confirmed: it lapses.
  advance_s(90);
  REQUIRE(sweep());
  CHECK(seats().find(hold_id(3))->state == hold_state::expired);
  CHECK(seats().find(hold_id(4))->state == hold_state::held);
  CHECK(receipt(place("k5", 5, 5, 2)).state == hold_state::waitlisted);
  REQUIRE_FALSE(reconcile({waitlist_room(4, 3)}));
  CHECK(seats().find(hold_id(5))->state == hold_state::held);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "seats owed to the waitlist are not admitted for") {
  start({waitlist_room(3, 2)});
  for (std::uint8_t v = 0; v < 8; ++v) join("r", v);
  advance_s(5);
  tick("r");
  CHECK(r().served(clock.steady_ms()) == 3);
  for (std::uint8_t v = 0; v < 3; ++v) REQUIRE_FALSE(commit(pass_claimed{"r", v, id_of(3, v), clock.now_ms()}).first);
  receipt(ask("k0", {hold_action::place, hold_id(0), visitor(0), 0, 2}));
  receipt(ask("k1", {hold_action::place, hold_id(1), visitor(1), 1, 1}));
  CHECK(receipt(ask("k2", {hold_action::place, hold_id(2), visitor(2), 2, 3})).state == hold_state::waitlisted);
  receipt(act("r1", hold_action::release, 1));
  // One seat is free, and owed to the head of the line, which waits for three.
  CHECK(seats().available() == 1);
  advance_s(5);
  tick("r");
  CHECK(r().served(clock.steady_ms()) == 3);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a hold decided before its pass's claim was applied still takes the pass's slot") {
  start({seat_room(4)});
  join("r", 0);
  join("r", 1);
  advance_s(5);
  tick("r");
  // The poll that gave the pass submitted its claim; the hold was asked for and decided
  // before the claim was applied, so the decision knows no place.
  auto decision = decide_hold(r(), "k0", {hold_action::place, hold_id(0), visitor(0), std::nullopt, 1}, clock.steady_ms());
  REQUIRE(std::holds_alternative<event>(decision));
  REQUIRE_FALSE(commit(pass_claimed{"r", 0, pass::pass_id("r", visitor(0)), clock.now_ms()}).first);
  CHECK(r().active(clock.steady_ms()) == 1);
  REQUIRE_FALSE(commit(std::get<event>(decision)).first);
  CHECK(r().active(clock.steady_ms()) == 0);
  CHECK(seats().held() == 1);
}

TEST_CASE_METHOD(holds_fixture, "held by its seats, a room says so and its waiting visitors get no invented time") {
  start({seat_room(2)});
  for (std::uint8_t v = 0; v < 6; ++v) join("r", v);
  advance_s(5);
  tick("r");
  REQUIRE(r().served(clock.steady_ms()) == 2);
  CHECK(r().rate_reason_at(clock.steady_ms()) == "held_by_seats");
  auto st = status_of(r(), 4, clock.steady_ms(), 0.5);
  CHECK(st.state == "waiting");
  CHECK(st.position == 2u);
  CHECK_FALSE(st.eta_seconds);
  CHECK(st.held == "held_by_seats");
  // An admitted visitor is not held.
  CHECK_FALSE(status_of(r(), 0, clock.steady_ms(), 0.5).held);
  // Seats back: the queue moves, and the time is honest again.
  REQUIRE_FALSE(commit(pass_claimed{"r", 0, id_of(3, 0), clock.now_ms()}).first);
  receipt(ask("k0", {hold_action::place, hold_id(0), visitor(0), 0, 1}));
  receipt(act("r0", hold_action::release, 0));
  CHECK(r().rate_reason_at(clock.steady_ms()) != "held_by_seats");
  auto moving = status_of(r(), 5, clock.steady_ms(), 0.5);
  CHECK_FALSE(moving.held);
  CHECK(moving.eta_seconds);
}

TEST_CASE_METHOD(holds_fixture, "with seats and max_active, the reason is the one that binds") {
  auto c = seat_room(10);
  c.max_active = 2;
  start({c});
  for (std::uint8_t v = 0; v < 6; ++v) join("r", v);
  advance_s(5);
  tick("r");
  REQUIRE(r().served(clock.steady_ms()) == 2);
  CHECK(r().rate_reason_at(clock.steady_ms()) == "held_by_max_active");
  CHECK(status_of(r(), 4, clock.steady_ms(), 0.5).held == "held_by_max_active");
}
