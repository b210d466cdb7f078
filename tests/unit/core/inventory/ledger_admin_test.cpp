#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "core/passes/pass_issuer.hpp"
#include "core/rooms/room_admin.hpp"
#include "core/rooms/site_reports.hpp"
#include "support/holds_fixture.hpp"

using namespace foyer;
using namespace foyer::test;

namespace {

room_configured configured(room_config c, std::int64_t at_ms) {
  return room_configured{c.id, std::move(c), room_owner::api, std::nullopt, at_ms};
}

}  // namespace

TEST_CASE_METHOD(holds_fixture, "a seat total checked before holds written meanwhile applied keeps the seats it would not fit") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 3));
  // Decided while 3 seats are held: 5 fits. A hold of 4 written just before it lands first.
  auto smaller = seat_room(5);
  REQUIRE_FALSE(r().refuses(smaller, clock.steady_ms()));
  auto decision = decide_hold(r(), "k2", {hold_action::place, hold_id(2), visitor(2), 2, 4}, clock.steady_ms());
  REQUIRE(std::holds_alternative<event>(decision));
  REQUIRE_FALSE(commit({std::get<event>(decision), configured(smaller, clock.steady_ms())}).first);
  check_invariant();
  CHECK(seats().total() == 10);
  CHECK(seats().held() == 7);
  CHECK(r().config().inventory->total == 10);
  // What the caller answers with: the setting and the numbers.
  auto kept = r().refuses_seats(smaller, clock.steady_ms());
  REQUIRE(kept);
  CHECK(kept->field == "inventory.total");
  CHECK(kept->message.find("7") != std::string::npos);
  // Raising it applies; the holds are confirmed, and a restart replays the same.
  REQUIRE_FALSE(commit(configured(seat_room(12), clock.steady_ms())).first);
  CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  CHECK(receipt(act("c2", hold_action::confirm, 2)).state == hold_state::confirmed);
  restart();
  check_invariant();
  CHECK(seats().total() == 12);
  CHECK(seats().confirmed() == 7);
}

TEST_CASE_METHOD(holds_fixture, "a reload's seat total that holds written meanwhile would not fit is kept, and tried again") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 3));
  auto planned = plan_reconcile(*rooms, {seat_room(5)}, clock.steady_ms());
  REQUIRE(std::holds_alternative<reconcile_plan>(planned));
  receipt(place("k2", 2, 2, 4));
  digest seed{};
  REQUIRE_FALSE(commit(reconcile_events(std::get<reconcile_plan>(planned), clock.steady_ms(), [&] { return seed; })).first);
  check_invariant();
  CHECK(seats().total() == 10);
  // The next reload of the same file is refused with the numbers, not skipped.
  auto again = reconcile({seat_room(5)});
  REQUIRE(again);
  CHECK(again->field == "rooms[0].inventory.total");
  CHECK_FALSE(reconcile({seat_room(7)}));
  CHECK(seats().total() == 7);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a release of an ended hold answers from the hold as it stands and writes nothing") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 2));
  receipt(place("k2", 2, 2, 2));
  CHECK(receipt(act("r1", hold_action::release, 1)).state == hold_state::released);
  advance_s(200);
  REQUIRE(sweep());
  CHECK(seats().find(hold_id(2))->state == hold_state::expired);
  auto seq = rooms->applied_seq();
  for (std::uint32_t h : {1u, 2u}) {
    for (int i = 0; i < 100; ++i) {
      for (std::optional<id16> who : {std::optional<id16>{}, std::optional(visitor(h))}) {
        auto d = decide_hold(r(), fmt::format("again-{}-{}", h, i), {hold_action::release, hold_id(h), who, 0, 0},
                             clock.steady_ms());
        REQUIRE(std::holds_alternative<hold_receipt>(d));
        CHECK(std::get<hold_receipt>(d).state == seats().find(hold_id(h))->state);
        CHECK(std::get<hold_receipt>(d).outcome == hold_outcome::ended_already);
        // An extension of it is refused without a write too.
        CHECK(refusal(decide_hold(r(), fmt::format("ext-{}-{}", h, i), {hold_action::extend, hold_id(h), std::nullopt, 0, 0},
                                  clock.steady_ms())) == errc::hold_not_held);
      }
    }
  }
  CHECK(rooms->applied_seq() == seq);
}

TEST_CASE_METHOD(holds_fixture, "one pass takes at most max_seats_per_pass seats, held and confirmed, over its life") {
  auto c = seat_room(100, second_hold::release_first);
  c.inventory->max_seats_per_pass = 6;
  start({c});
  CHECK(receipt(place("k1", 1, 1, 4)).state == hold_state::held);
  CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  CHECK(refusal(place("k2", 1, 2, 4)) == errc::seats_per_pass_exceeded);
  CHECK(receipt(place("k3", 1, 3, 2)).state == hold_state::held);
  // A hold replaced by the next one counts once: only confirmed seats add up.
  CHECK(receipt(place("k4", 1, 4, 2)).state == hold_state::held);
  CHECK(receipt(act("c4", hold_action::confirm, 4)).state == hold_state::confirmed);
  CHECK(refusal(place("k5", 1, 5, 1)) == errc::seats_per_pass_exceeded);
  // Written without asking the desk, it is refused when it applies: the log decides.
  auto late = hold_placed{"r", hold_id(6), visitor(1), 1, 1, "k6", clock.steady_ms()};
  REQUIRE_FALSE(commit(late).first);
  CHECK(refusal(place("k6", 1, 6, 1)) == errc::seats_per_pass_exceeded);
  // Another pass is not affected, and a restart keeps the count.
  CHECK(receipt(place("k7", 2, 7, 4)).state == hold_state::held);
  restart();
  CHECK(refusal(place("k8", 1, 8, 1)) == errc::seats_per_pass_exceeded);
  CHECK(seats().confirmed_of(visitor(1)) == 6);
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "max_seats_per_pass defaults to max_seats_per_hold") {
  auto c = seat_room(100, second_hold::release_first);
  c.inventory->max_seats_per_hold = 4;
  start({c});
  receipt(place("k1", 1, 1, 4));
  receipt(act("c1", hold_action::confirm, 1));
  CHECK(refusal(place("k2", 1, 2, 1)) == errc::seats_per_pass_exceeded);
}

TEST_CASE_METHOD(holds_fixture, "a pass whose slot a hold took can be reported done after its claim was judged") {
  start({seat_room(10)});
  join("r", 1);
  clock.advance_ms(5'000);
  tick("r");
  id16 visitor{};
  visitor[0] = 1;
  REQUIRE_FALSE(commit(pass_claimed{"r", 0, pass::pass_id("r", visitor), clock.steady_ms()}).first);
  REQUIRE_FALSE(commit(hold_placed{"r", hold_id(1), visitor, std::nullopt, 1, "k1", clock.steady_ms()}).first);
  REQUIRE(seats().held() == 1);
  receipt(act("c1", hold_action::confirm, 1));
  // Past the claim window the claim is judged (claimed); the pass lives on for 900 s.
  clock.advance_ms(610'000);
  tick("r");
  auto done = decide_done(r(), {pass::pass_id("r", visitor)}, clock.steady_ms());
  REQUIRE(done);
  REQUIRE_FALSE(commit(*done).first);
  CHECK(pass_done(r(), visitor));
  REQUIRE_FALSE(commit(hold_placed{"r", hold_id(2), visitor, std::nullopt, 1, "k2", clock.steady_ms()}).first);
  CHECK(seats().receipt("k2")->outcome == hold_outcome::pass_ended);
  restart();
  CHECK(pass_done(r(), visitor));
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a pass reported done places nothing, nor one never claimed, when the hold applies") {
  start({seat_room(10)});
  join("r", 1);
  join("r", 2);
  clock.advance_ms(5'000);
  tick("r");
  const auto pass_of = [](std::uint8_t tag) {
    id16 v{};
    v[0] = tag;
    return v;
  };
  for (std::uint64_t place = 0; place < 2; ++place) {
    REQUIRE_FALSE(commit(pass_claimed{"r", place, pass::pass_id("r", pass_of(static_cast<std::uint8_t>(place + 1))),
                                      clock.steady_ms()})
                      .first);
  }
  // The site reports the first visitor's pass done: Foyer refuses it from then on.
  auto done = decide_done(r(), {pass::pass_id("r", pass_of(1))}, clock.steady_ms());
  REQUIRE(done);
  REQUIRE_FALSE(commit(*done).first);
  CHECK(pass_done(r(), pass_of(1)));
  CHECK_FALSE(pass_done(r(), pass_of(2)));
  // A placement decided before the report was applied places nothing when it applies.
  auto before = hold_placed{"r", hold_id(1), pass_of(1), 0, 1, "k1", clock.steady_ms()};
  REQUIRE_FALSE(commit(before).first);
  CHECK(seats().receipt("k1")->outcome == hold_outcome::pass_ended);
  CHECK(seats().held() == 0);
  // A visitor whose claim the log does not have places nothing either.
  auto unclaimed = hold_placed{"r", hold_id(2), pass_of(9), std::nullopt, 1, "k2", clock.steady_ms()};
  REQUIRE_FALSE(commit(unclaimed).first);
  CHECK(seats().receipt("k2")->outcome == hold_outcome::pass_ended);
  // The second visitor holds, and may be reported done after: still refused afterwards.
  auto held = hold_placed{"r", hold_id(3), pass_of(2), std::nullopt, 1, "k3", clock.steady_ms()};
  REQUIRE_FALSE(commit(held).first);
  CHECK(seats().held() == 1);
  auto done_after = decide_done(r(), {pass::pass_id("r", pass_of(2))}, clock.steady_ms());
  REQUIRE(done_after);
  REQUIRE_FALSE(commit(*done_after).first);
  restart();
  CHECK(pass_done(r(), pass_of(1)));
  CHECK(pass_done(r(), pass_of(2)));
  check_invariant();
}

TEST_CASE_METHOD(holds_fixture, "a room whose seats are held or confirmed is removed only when forced, by the API or a reload") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 2));
  receipt(place("k2", 2, 2, 3));
  receipt(act("c2", hold_action::confirm, 2));
  auto refused = remove_room(*rooms, "r", /*force=*/false, clock.steady_ms());
  REQUIRE(std::holds_alternative<desk_refusal>(refused));
  const auto& why = std::get<desk_refusal>(refused);
  CHECK(why.code == errc::change_refused);
  REQUIRE(why.seats);
  CHECK(why.seats->held == 2);
  CHECK(why.seats->confirmed == 3);
  auto dropped = reconcile({});
  REQUIRE(dropped);
  CHECK(dropped->field == "rooms");
  CHECK(rooms->find("r"));
  CHECK(std::holds_alternative<std::vector<event>>(remove_room(*rooms, "r", /*force=*/true, clock.steady_ms())));
}

TEST_CASE_METHOD(holds_fixture, "a room removed by force answers its holds for the late grace, the held ones refunded") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 2));  // held when the room goes
  receipt(place("k2", 2, 2, 3));
  receipt(act("c2", hold_action::confirm, 2));
  receipt(place("k3", 3, 3, 1));
  receipt(act("r3", hold_action::release, 3));  // ended before, within its late grace
  auto removal = remove_room(*rooms, "r", /*force=*/true, clock.steady_ms());
  REQUIRE(std::holds_alternative<std::vector<event>>(removal));
  REQUIRE_FALSE(commit(std::get<std::vector<event>>(removal)).first);
  CHECK_FALSE(rooms->find("r"));
  CHECK(rooms->retired("r"));
  advance_s(60);
  auto answers_as_removed = [&] {
    const hold* held = seats().find(hold_id(1));
    REQUIRE(held);
    CHECK(held->state == hold_state::refund_required);
    CHECK(held->reason == refund_reason::room_removed);
    auto paid = receipt(act("c1", hold_action::confirm, 1));
    CHECK(paid.state == hold_state::refund_required);
    CHECK(paid.reason == refund_reason::room_removed);
    CHECK(receipt(act("c2-again", hold_action::confirm, 2)).state == hold_state::confirmed);
    // A late success gets no seat of a room that is gone.
    auto late = receipt(act("c3", hold_action::confirm, 3));
    CHECK(late.state == hold_state::refund_required);
    CHECK(late.reason == refund_reason::room_removed);
    CHECK(refusal(act("r1", hold_action::release, 1)) == errc::hold_not_held);
    CHECK(seats().confirmed() == 3);
    CHECK(seats().held() == 0);
  };
  answers_as_removed();
  restart();
  answers_as_removed();
  // From a snapshot too: one is taken at the next event.
  restart(journal_options{1});
  CHECK(receipt(act("c2-third", hold_action::confirm, 2)).state == hold_state::confirmed);
  restart();
  answers_as_removed();
  // Past the late grace (300 s from the removal), the room is unknown as any removed one.
  advance_s(241);
  CHECK_FALSE(rooms->find_for_holds("r", clock.steady_ms()));
  restart();
  CHECK_FALSE(rooms->find_for_holds("r", clock.steady_ms()));
}

TEST_CASE_METHOD(holds_fixture, "a hold decided before its room was removed and written after places nothing") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 2));
  const hold_request late{hold_action::place, hold_id(2), visitor(2), 2, 3};
  auto decision = decide_hold(r(), "k2", late, clock.steady_ms());
  REQUIRE(std::holds_alternative<event>(decision));
  auto removal = remove_room(*rooms, "r", /*force=*/true, clock.steady_ms());
  REQUIRE(std::holds_alternative<std::vector<event>>(removal));
  auto written = std::get<std::vector<event>>(removal);
  written.push_back(std::get<event>(decision));
  REQUIRE_FALSE(commit(written).first);
  auto answers_as_removed = [&] {
    CHECK(seats().held() == 0);
    CHECK_FALSE(seats().find(hold_id(2)));
    CHECK(refusal(decide_hold(r(), "k2", late, clock.steady_ms())) == errc::no_inventory);
    CHECK(refusal(act("c2", hold_action::confirm, 2)) == errc::unknown_hold);
  };
  answers_as_removed();
  restart();
  answers_as_removed();
}

namespace {

// Restarts the journal from a snapshot whose only room is `state`, at the log's end: a
// data dir whose ledger was written wrong.
void restart_from_room_state(holds_fixture& f, const std::string& state) {
  writer w;
  w.u8(3);  // journal snapshot format
  w.u64(1);
  w.str("r");
  w.str(state);
  w.u64(0);  // no removed rooms
  w.u64(0);
  f.drain();
  f.store.save_snapshot(f.rooms->applied_seq(), w.take(), [](std::error_code ec) { REQUIRE_FALSE(ec); });
  f.restart();
}

// The room's state with the ledger's `held` count (its low byte) set to `held`.
std::string with_held(holds_fixture& f, std::uint8_t held) {
  auto bytes = f.r().encode_state();
  writer w;
  f.seats().encode(w);
  bytes[bytes.size() - w.bytes().size() + 1 + 8 + 7] = static_cast<char>(held);
  return bytes;
}

}  // namespace

TEST_CASE_METHOD(holds_fixture, "a frozen seat ledger is recounted from its holds and unfrozen, as an event replay keeps") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 2));
  receipt(place("k2", 2, 2, 3));
  receipt(act("c2", hold_action::confirm, 2));
  // Healthy: nothing to write.
  auto seq = rooms->applied_seq();
  auto healthy = recount_seats(*rooms, "r", clock.steady_ms());
  REQUIRE(std::holds_alternative<std::vector<event>>(healthy));
  CHECK(std::get<std::vector<event>>(healthy).empty());
  restart_from_room_state(*this, with_held(*this, 7));
  REQUIRE(seats().frozen());
  CHECK(seats().held() == 7);
  CHECK(refusal(place("k3", 3, 3, 1)) == errc::inventory_frozen);
  auto decision = recount_seats(*rooms, "r", clock.steady_ms());
  REQUIRE(std::holds_alternative<std::vector<event>>(decision));
  REQUIRE(std::get<std::vector<event>>(decision).size() == 1);
  REQUIRE_FALSE(commit(std::get<std::vector<event>>(decision)).first);
  CHECK(rooms->applied_seq() == seq + 1);
  check_invariant();
  CHECK(seats().held() == 2);
  CHECK(seats().confirmed() == 3);
  CHECK(seats().available() == 5);
  CHECK(receipt(act("c1", hold_action::confirm, 1)).state == hold_state::confirmed);
  restart();
  check_invariant();
  CHECK(seats().confirmed() == 5);
}

TEST_CASE_METHOD(holds_fixture, "a recount that would not fit the total is refused with the numbers, until it is raised") {
  start({seat_room(10)});
  receipt(place("k1", 1, 1, 2));
  receipt(place("k2", 2, 2, 3));
  receipt(act("c2", hold_action::confirm, 2));
  writer w;
  seats().encode(w);
  // Read under a total below its holds: frozen.
  seat_ledger cut;
  reader bytes(w.bytes());
  REQUIRE(cut.decode(bytes, seat_room(4).inventory, true));
  REQUIRE(cut.frozen());
  auto counted = cut.recounted();
  CHECK_FALSE(counted.fits);
  CHECK(counted.held == 2);
  CHECK(counted.confirmed == 3);
  CHECK_FALSE(cut.recount(clock.steady_ms()));
  CHECK(cut.frozen());
  auto why = recount_refusal("r", counted);
  CHECK(why.code == errc::change_refused);
  CHECK(why.field == "inventory.total");
  REQUIRE(why.seats);
  CHECK(why.seats->held == 2);
  CHECK(why.seats->confirmed == 3);
  // Raising the total alone does not unfreeze; the recount then does.
  cut.retotal(seat_room(6).inventory, clock.steady_ms());
  CHECK(cut.frozen());
  REQUIRE(cut.recount(clock.steady_ms()));
  CHECK_FALSE(cut.frozen());
  CHECK(cut.available() == 1);
  CHECK(cut.counted_right());
}
