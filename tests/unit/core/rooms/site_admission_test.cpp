#include <catch2/catch.hpp>

#include <algorithm>

#include "core/rooms/rate_control.hpp"
#include "core/rooms/site_reports.hpp"
#include "support/encoding.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::first_difference;
using foyer::test::journal_fixture;
using foyer::test::test_room;

namespace {

id16 pass_of(std::uint64_t place) {
  id16 id{};
  for (int i = 0; i < 8; ++i) id[i] = static_cast<std::uint8_t>(place >> (8 * i));
  id[15] = 0xa5;
  return id;
}

struct site_fixture : journal_fixture {
  rate_controller rates;

  room& r() { return *rooms->find("r"); }

  // One round of the app's ticker: a rate change first, else the room's step.
  void tick_all() {
    std::optional<event> due = rates.decide(r(), clock.steady_ms());
    if (!due) due = r().due(clock.steady_ms());
    if (due) REQUIRE_FALSE(commit(*due).first);
  }

  void claim(std::uint64_t place) { REQUIRE_FALSE(commit(pass_claimed{"r", place, pass_of(place), clock.now_ms()}).first); }

  void done(std::uint64_t place) { REQUIRE_FALSE(commit(passes_done{"r", {place}, clock.now_ms()}).first); }

  stock_decision report(std::string key, stock_change kind, std::uint64_t amount) {
    auto decision = decide_stock(r(), key, {kind, amount}, clock.steady_ms());
    if (auto* e = std::get_if<stock_reported>(&decision)) REQUIRE_FALSE(commit(*e).first);
    return decision;
  }
};

room_config adaptive_room(std::uint32_t min, std::uint32_t max) {
  auto c = test_room("r", min);
  c.adaptive = adaptive_settings{};
  c.adaptive->min_rate_per_minute = min;
  c.adaptive->max_rate_per_minute = max;
  c.adaptive->increase_per_minute = 20;
  c.adaptive->adjust_every_seconds = 5;
  return c;
}

}  // namespace

TEST_CASE("an AIMD step raises while healthy, cuts on a breach and decays in silence, within the bounds") {
  adaptive_settings a;
  a.min_rate_per_minute = 100;
  a.max_rate_per_minute = 1'000;
  a.increase_per_minute = 50;
  a.decrease_factor = 0.5;
  site_signal healthy{200.0, 0.0, 0};
  site_signal slow{5'000.0, std::nullopt, 0};
  site_signal failing{std::nullopt, 0.2, 0};
  CHECK(aimd_step(a, 500, healthy, 1'000).rate == 550);
  CHECK(aimd_step(a, 500, healthy, 1'000).reason == rate_reason::adaptive_increase);
  CHECK(aimd_step(a, 980, healthy, 1'000).rate == 1'000);
  CHECK(aimd_step(a, 500, slow, 1'000).rate == 250);
  CHECK(aimd_step(a, 500, slow, 1'000).reason == rate_reason::adaptive_decrease);
  CHECK(aimd_step(a, 150, failing, 1'000).rate == 100);
  // Older than signal_timeout_seconds (30 s): the site went quiet.
  CHECK(aimd_step(a, 500, healthy, 31'000).rate == 250);
  CHECK(aimd_step(a, 500, healthy, 31'000).reason == rate_reason::adaptive_no_signal);
  CHECK(aimd_step(a, 500, std::nullopt, 0).reason == rate_reason::adaptive_no_signal);
  // A rate from before the bounds moves back inside them.
  CHECK(aimd_step(a, 5'000, healthy, 1'000).rate == 1'000);
  CHECK(aimd_step(a, 1, slow, 1'000).rate == 100);
}

TEST_CASE_METHOD(site_fixture, "the adaptive rate settles under a fixed capacity and backs off at the next tick") {
  start({adaptive_room(60, 2'000)});
  constexpr std::uint32_t capacity = 900;  // the shop's p95 passes 1 s above this rate
  auto signal = [&] {
    double p95 = r().base_rate() > capacity ? 2'500.0 : 300.0;
    rates.report("r", {p95, 0.0, clock.steady_ms()});
  };
  std::vector<std::uint32_t> late;
  for (int second = 0; second < 600; ++second) {
    clock.advance_ms(1'000);
    signal();
    auto before = r().base_rate();
    tick_all();
    auto after = r().base_rate();
    REQUIRE(after >= 60);
    REQUIRE(after <= 2'000);
    // A breach is acted on at the very next tick, not at the next period.
    if (before > capacity) REQUIRE(after == std::max<std::uint32_t>(60, static_cast<std::uint32_t>(before * 0.7)));
    if (second >= 300) late.push_back(after);
  }
  // AIMD's sawtooth: between the cut from just above capacity and one step above it.
  auto [lo, hi] = std::minmax_element(late.begin(), late.end());
  CHECK(*lo >= static_cast<std::uint32_t>(capacity * 0.7) - 20);
  CHECK(*hi <= capacity + 20);
  // Every change is in the log with its reason: a restart has the same rate.
  auto rate = r().base_rate();
  restart();
  CHECK(r().base_rate() == rate);
}

TEST_CASE_METHOD(site_fixture, "with max_active the frontier holds while passes are live and resumes without a burst") {
  auto c = test_room("r", 600);  // 10 a second
  c.max_active = 5;
  start({c});
  for (int i = 0; i < 100; ++i) join("r");
  clock.advance_ms(10'000);
  tick_all();
  CHECK(r().served(clock.now_ms()) == 5);
  CHECK(r().rate_reason_at(clock.now_ms()) == "held_by_max_active");
  for (std::uint64_t p = 0; p < 5; ++p) claim(p);
  CHECK(r().active(clock.now_ms()) == 5);
  for (int s = 0; s < 30; ++s) {
    clock.advance_ms(1'000);
    tick_all();
    REQUIRE(r().served(clock.now_ms()) == 5);
  }
  done(0);
  done(1);
  // Two slots free: two more at the rate, and no more, however long the hold was.
  CHECK(r().served(clock.now_ms()) == 5);
  clock.advance_ms(100);
  CHECK(r().served(clock.now_ms()) == 6);
  clock.advance_ms(900);
  CHECK(r().served(clock.now_ms()) == 7);
  tick_all();
  clock.advance_ms(5'000);
  CHECK(r().served(clock.now_ms()) == 7);
  // Reported twice: counted once.
  done(1);
  CHECK(r().served(clock.now_ms()) == 7);
  restart();
  CHECK(r().served(clock.now_ms()) == 7);
  CHECK(r().active(clock.now_ms()) == 3);
}

TEST_CASE_METHOD(site_fixture, "an expired pass frees its slot at its expiry") {
  auto c = test_room("r", 600);
  c.max_active = 2;
  c.pass_ttl_seconds = 60;
  start({c});
  for (int i = 0; i < 10; ++i) join("r");
  clock.advance_ms(1'000);
  tick_all();
  claim(0);
  claim(1);
  clock.advance_ms(59'999);
  CHECK(r().served(clock.now_ms()) == 2);
  CHECK(r().pass_live_until(0, clock.now_ms()));
  clock.advance_ms(1);
  CHECK_FALSE(r().pass_live_until(0, clock.now_ms()));
  CHECK(r().active(clock.now_ms()) == 0);
  CHECK(r().served(clock.now_ms()) == 4);
}

TEST_CASE_METHOD(site_fixture, "an admission lapses exactly a claim window after the step that made it") {
  auto c = test_room("r", 60);
  c.claim_window_seconds = 600;
  start({c});
  for (int i = 0; i < 3; ++i) join("r");
  clock.advance_ms(1'000);
  tick_all();  // admits place 0 at this step
  auto admitted_at = clock.now_ms();
  REQUIRE(r().served(clock.now_ms()) == 1);
  clock.advance_ms(600'000 - 1);
  CHECK_FALSE(r().lapsed(0, clock.now_ms()));
  clock.advance_ms(1);
  CHECK(r().lapsed(0, clock.now_ms()));
  CHECK(clock.now_ms() - admitted_at == 600'000);
  // A claim that comes after the window is refused by the log itself.
  for (int s = 0; s < 5; ++s) {
    clock.advance_ms(1'000);
    tick_all();
  }
  claim(0);
  CHECK_FALSE(r().pass_claimed_once(0));
  CHECK(r().no_shows() >= 1);
  restart();
  CHECK(r().lapsed(0, clock.now_ms()));
}

TEST_CASE_METHOD(site_fixture, "no-show compensation meets the rate in claimed visitors, never above the multiplier") {
  auto run = [&](double multiplier, int claim_one_in) {
    auto c = test_room("r", 60);
    c.claim_window_seconds = 60;
    c.no_show_max_multiplier = multiplier;
    start({c});
    for (int i = 0; i < 5'000; ++i) join("r");
    std::uint64_t claimed_up_to = 0;
    std::uint32_t highest = 0;
    for (int second = 0; second < 1'800; ++second) {
      clock.advance_ms(1'000);
      tick_all();
      auto served = r().served(clock.now_ms());
      for (; claimed_up_to < served; ++claimed_up_to) {
        if (claimed_up_to % claim_one_in == 0) claim(claimed_up_to);
      }
      highest = std::max(highest, r().rate());
      REQUIRE(r().rate() <= static_cast<std::uint32_t>(60 * multiplier));
    }
    return highest;
  };
  SECTION("half never come: twice the rate gives 60 claimed a minute") {
    CHECK(run(3.0, 2) == 120);
    CHECK(r().rate() == 120);
    CHECK(r().rate_reason_at(clock.now_ms()) == "no_show_compensation");
  }
  SECTION("three in four never come: capped at the multiplier") { CHECK(run(2.0, 4) == 120); }
}

TEST_CASE_METHOD(site_fixture, "stock the site reports sells out in the same step and reopens when released") {
  auto c = test_room("r", 60);
  c.stock = 3;
  start({c});
  for (int i = 0; i < 10; ++i) join("r");
  CHECK(r().stock_remaining() == 3u);
  auto first = report("k1", stock_change::consumed, 2);
  CHECK(std::holds_alternative<stock_reported>(first));
  CHECK(r().stock_remaining() == 1u);
  // Ten retries: counted once, answered as the first.
  for (int i = 0; i < 10; ++i) {
    auto retry = report("k1", stock_change::consumed, 2);
    REQUIRE(std::holds_alternative<stock_receipt>(retry));
    CHECK(std::get<stock_receipt>(retry).remaining == 1u);
  }
  CHECK(r().stock_remaining() == 1u);
  auto reused = report("k1", stock_change::consumed, 1);
  REQUIRE(std::holds_alternative<desk_refusal>(reused));
  CHECK(std::get<desk_refusal>(reused).code == errc::idempotency_key_reused);

  clock.advance_ms(5'000);
  auto served_before = r().served(clock.now_ms());
  report("k2", stock_change::consumed, 5);
  CHECK(r().stock_remaining() == 0u);
  CHECK(r().state() == room_state::sold_out);
  // The frontier was written at the sell-out's moment: nothing admitted is taken back.
  CHECK(r().served(clock.now_ms()) == served_before);
  CHECK_FALSE(r().accepts_joins());

  report("k3", stock_change::released, 1);
  CHECK(r().state() == room_state::open);
  CHECK(r().stock_remaining() == 1u);
  restart();
  CHECK(r().state() == room_state::open);
  CHECK(r().stock_receipt_of("k2"));

  // Sold out by the operator: released stock does not reopen it.
  REQUIRE_FALSE(commit(state_changed{"r", room_state::sold_out, clock.now_ms()}).first);
  report("k4", stock_change::released, 4);
  CHECK(r().state() == room_state::sold_out);
}

TEST_CASE_METHOD(site_fixture, "a new stock setting sells the room out, or reopens it, in the same step") {
  auto c = test_room("r", 60);
  c.stock = 10;
  start({c});
  report("k1", stock_change::consumed, 4);
  auto configure = [&](std::uint64_t stock) {
    c.stock = stock;
    REQUIRE_FALSE(commit(room_configured{"r", c, room_owner::api, std::nullopt, clock.steady_ms()}).first);
  };
  // The setting moves what remains by as much: 6 - 6 leaves none.
  configure(4);
  CHECK(r().stock_remaining() == 0u);
  CHECK(r().state() == room_state::sold_out);
  CHECK_FALSE(r().accepts_joins());
  configure(9);
  CHECK(r().stock_remaining() == 5u);
  CHECK(r().state() == room_state::open);
  restart();
  CHECK(r().state() == room_state::open);
}

TEST_CASE_METHOD(site_fixture, "a change to a stock nobody set is refused; remaining sets it") {
  start({test_room("r", 60)});
  auto refused = report("a", stock_change::consumed, 1);
  REQUIRE(std::holds_alternative<desk_refusal>(refused));
  CHECK(std::get<desk_refusal>(refused).code == errc::stock_unknown);
  report("b", stock_change::remaining, 0);
  CHECK(r().state() == room_state::sold_out);
}

TEST_CASE_METHOD(site_fixture, "keys are remembered for a day, and forgotten after") {
  auto c = test_room("r", 60);
  c.stock = 100;
  start({c});
  report("old", stock_change::consumed, 1);
  clock.advance_ms(24 * 3600 * 1000);
  report("day", stock_change::consumed, 1);
  CHECK(r().stock_receipt_of("old"));
  clock.advance_ms(2 * 3600 * 1000);
  report("later", stock_change::consumed, 1);
  CHECK_FALSE(r().stock_receipt_of("old"));
  CHECK(r().stock_receipt_of("day"));
}

TEST_CASE_METHOD(site_fixture, "no mix of joins, claims, done, rates, stock, stops or crashes breaks the frontier") {
  auto c = test_room("r", 600);
  c.max_active = 8;
  c.pass_ttl_seconds = 30;
  c.claim_window_seconds = 10;
  c.no_show_max_multiplier = 2.0;
  c.stock = 1'000'000;
  c.adaptive = adaptive_settings{};
  c.adaptive->min_rate_per_minute = 120;
  c.adaptive->max_rate_per_minute = 1'200;
  c.adaptive->adjust_every_seconds = 1;
  start({c});
  std::uint64_t lcg = 11, seen = 0, restarts = 0, keys = 0, held = 0, next_claim = 0;
  auto next = [&](std::uint64_t n) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (lcg >> 33) % n;
  };
  auto ignore = [](std::error_code, const join_outcome&) {};
  for (int i = 0; i < 20'000; ++i) {
    clock.advance_ms(static_cast<std::int64_t>(next(300)) + 1);
    auto now = clock.now_ms();
    room& rm = r();
    switch (next(12)) {
      case 0:
      case 11: join("r"); break;
      case 1:
        if (next(20) == 0) {
          restart();
          ++restarts;
        }
        break;
      case 2:
      case 3: {
        std::optional<event> due = rates.decide(rm, now);
        if (!due) due = rm.due(now);
        if (due) {
          if (next(4) == 0) store.fail_next_writes(1);
          rooms->submit(*due, ignore);
        }
        break;
      }
      case 4:
        // Most admitted visitors come for their pass at once; some never do.
        for (auto served = rm.served(now); next_claim < served; ++next_claim) {
          if (next(5) == 0 || rm.pass_claimed_once(next_claim) || rm.lapsed(next_claim, now)) continue;
          rooms->submit(pass_claimed{"r", next_claim, pass_of(next_claim), now}, ignore);
        }
        break;
      case 5: {
        auto served = rm.served(now);
        if (served > 0) rooms->submit(passes_done{"r", {next(served)}, now}, ignore);
        break;
      }
      case 6: rates.report("r", {static_cast<double>(next(2'000)), next(10) / 100.0, now}); break;
      case 7: {
        auto kind = static_cast<stock_change>(next(3));
        auto decision = decide_stock(rm, std::to_string(keys++ % 50), {kind, next(kind == stock_change::remaining ? 3 : 2)}, now);
        if (auto* e = std::get_if<stock_reported>(&decision)) rooms->submit(*e, ignore);
        break;
      }
      case 8: drain(); break;
      case 9:
        if (!queue.empty()) complete_one();
        break;
      case 10: {
        auto target = rm.state() == room_state::open ? room_state::paused : room_state::open;
        if (rm.allows(target)) rooms->submit(state_changed{"r", target, now}, ignore);
        break;
      }
      default: break;
    }
    room& after = r();
    auto served = after.served(now);
    REQUIRE(served >= seen);
    REQUIRE(served <= after.joined());
    REQUIRE(after.active(now) <= 8);
    REQUIRE(after.rate() <= 2'400);
    REQUIRE(after.base_rate() >= 120);
    REQUIRE(after.base_rate() <= 1'200);
    if (after.rate_reason_at(now) == std::string_view("held_by_max_active")) ++held;
    seen = served;
  }
  CHECK(restarts > 50);
  CHECK(held > 20);
}

TEST_CASE_METHOD(site_fixture, "a turn notice starts the visitor's claim window when it goes out") {
  auto c = test_room("r", 60);
  c.claim_window_seconds = 600;
  start({c});
  for (int i = 0; i < 3; ++i) join("r");
  clock.advance_ms(1'000);
  tick_all();  // admits place 0
  auto admitted_at = clock.now_ms();
  auto run_to = [&](std::int64_t at_ms) {
    while (clock.now_ms() < at_ms) {
      clock.advance_ms(std::min<std::int64_t>(1'000, at_ms - clock.now_ms()));
      tick_all();
    }
  };
  run_to(admitted_at + 300'000);
  auto told_at = clock.now_ms();
  auto told = r().turn_notice(0, told_at);
  REQUIRE(told);
  CHECK(told->place == 0);
  REQUIRE_FALSE(commit(*told).first);
  // Told once: a second channel's delivery writes nothing.
  CHECK_FALSE(r().turn_notice(0, clock.now_ms()));

  // Past the window from the admission, within the one from the notice: still theirs,
  // through a restart (replay) and a snapshot alike.
  run_to(admitted_at + 600'000 + 5'000);
  CHECK(r().lapsed(1, clock.now_ms()));
  CHECK_FALSE(r().lapsed(0, clock.now_ms()));
  CHECK(r().claimable(0, clock.now_ms()));
  restart();
  CHECK_FALSE(r().lapsed(0, clock.now_ms()));
  room copy = r();
  REQUIRE(copy.decode_state(r().encode_state()));
  CHECK(copy.encode_state() == r().encode_state());
  CHECK_FALSE(copy.lapsed(0, clock.now_ms()));
  // A notice for a visitor who lapsed already revives nothing.
  CHECK_FALSE(r().turn_notice(1, clock.now_ms()));
  REQUIRE_FALSE(commit(turn_notified{"r", 1, clock.now_ms()}).first);
  CHECK(r().lapsed(1, clock.now_ms()));

  auto no_shows = r().no_shows();
  run_to(told_at + 600'000 - 1);
  CHECK_FALSE(r().lapsed(0, clock.now_ms()));
  CHECK(r().no_shows() == no_shows);
  run_to(told_at + 600'000);
  CHECK(r().lapsed(0, clock.now_ms()));
  CHECK(r().no_shows() == no_shows + 1);
  CHECK_FALSE(r().claimable(0, clock.now_ms()));
  claim(0);
  CHECK_FALSE(r().pass_claimed_once(0));
}

TEST_CASE_METHOD(site_fixture, "a notified visitor who claims late in their window counts as claimed, once") {
  auto c = test_room("r", 60);
  c.claim_window_seconds = 60;
  start({c});
  join("r");
  clock.advance_ms(1'000);
  tick_all();
  clock.advance_ms(30'000);
  REQUIRE_FALSE(commit(*r().turn_notice(0, clock.now_ms())).first);
  for (int s = 0; s < 50; ++s) {
    clock.advance_ms(1'000);
    tick_all();
  }
  claim(0);
  CHECK(r().pass_claimed_once(0));
  CHECK_FALSE(r().claimable(0, clock.now_ms()));
  // The pass ends before the window from the notice closes: judged claimed all the same.
  done(0);
  for (int s = 0; s < 60; ++s) {
    clock.advance_ms(1'000);
    tick_all();
  }
  CHECK(r().no_shows() == 0);
  CHECK(r().claim_ratio() == 1.0);
}

TEST_CASE_METHOD(site_fixture, "a state of format 10 reads with nobody told") {
  start({test_room("r", 60)});
  join("r");
  room none = r();
  room told = r();
  told.apply(turn_notified{"r", 0, clock.now_ms()});
  // Format 10 is the current one without each lane's count of places told (a u64).
  auto bytes = none.encode_state();
  auto count_at = first_difference(bytes, told.encode_state()) - 7;
  std::string old = bytes.substr(0, count_at) + bytes.substr(count_at + 8);
  old[0] = 10;
  room from_old = r();
  REQUIRE(from_old.decode_state(old));
  CHECK(from_old.encode_state() == bytes);
  // Format 11 does read the places told.
  REQUIRE(from_old.decode_state(told.encode_state()));
  CHECK(from_old.encode_state() == told.encode_state());
}
