#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "core/rooms/no_script.hpp"
#include "core/rooms/room_spec.hpp"

using namespace foyer;

namespace {

std::optional<field_problem> set(room_config& c, std::string_view key, room_value v) {
  return set_room_setting(c, key, v);
}

room_config valid_room() {
  room_config c;
  REQUIRE_FALSE(set(c, "id", std::string("tatkal-1")));
  REQUIRE_FALSE(set(c, "target_url", std::string("/checkout")));
  return c;
}

}  // namespace

TEST_CASE("room settings are checked one by one, naming the setting") {
  room_config c = valid_room();
  CHECK_FALSE(set(c, "rate_per_minute", std::int64_t{1}));
  CHECK_FALSE(set(c, "rate_per_minute", std::int64_t{10'000'000}));
  for (room_value bad : {room_value{std::int64_t{0}}, room_value{std::int64_t{10'000'001}},
                         room_value{std::string("60")}, room_value{other_value{}}, room_value{unset_value{}}}) {
    auto p = set(c, "rate_per_minute", bad);
    REQUIRE(p);
    CHECK(p->field == "rate_per_minute");
    CHECK(p->message == "must be a whole number from 1 to 10000000");
  }
  CHECK(c.rate_per_minute == 10'000'000);
  CHECK(set(c, "pass_ttl_seconds", std::int64_t{9}));
  CHECK(set(c, "lobby_window_seconds", std::int64_t{3601}));
  CHECK(set(c, "stock", std::int64_t{-1}));
  CHECK_FALSE(set(c, "stock", std::int64_t{1200}));
  CHECK(c.stock == 1200u);
  CHECK_FALSE(set(c, "stock", unset_value{}));
  CHECK_FALSE(c.stock);
  CHECK(set(c, "id", std::string("Upper"))->field == "id");
  CHECK(set(c, "id", std::string("-lead")));
  CHECK(set(c, "id", std::string(65, 'a')));
  CHECK(set(c, "name", std::string("a\nb"))->message == "must not contain control characters");
  CHECK(set(c, "colour", std::string("#fff"))->message == "unknown setting");
  CHECK_FALSE(set(c, "accent_colour", std::string("#1a5fb4")));
  CHECK(set(c, "accent_colour", std::string("red")));
}

TEST_CASE("target_url is an absolute http(s) URL or a path with exactly one leading slash") {
  room_config c = valid_room();
  for (std::string good : {"/welcome", "/", "https://shop.example/buy?x=1", "http://127.0.0.1:9000/"}) {
    CHECK_FALSE(set(c, "target_url", good));
  }
  for (std::string bad : {"//evil.example/x", "/\\evil.example", "javascript:alert(1)", "evil.example/x",
                          "https://", "https://user@evil.example/", "ftp://shop.example/", "/a b",
                          "https:/\\evil.example"}) {
    INFO(bad);
    auto p = set(c, "target_url", bad);
    REQUIRE(p);
    CHECK(p->field == "target_url");
  }
  CHECK_FALSE(set(c, "logo_url", std::string("https://cdn.example/logo.svg")));
  CHECK_FALSE(set(c, "logo_url", std::string("/logo.svg")));
  CHECK_FALSE(set(c, "logo_url", std::string("")));
  CHECK(set(c, "logo_url", std::string("http://cdn.example/logo.svg")));
  CHECK(set(c, "logo_url", std::string("//cdn.example/logo.svg")));
}

TEST_CASE("opens_at is RFC 3339 text with an offset, or removed") {
  room_config c = valid_room();
  CHECK_FALSE(set(c, "opens_at", std::string("2026-12-01T10:00:00+05:30")));
  CHECK(c.opens_at_ms == 1'796'099'400'000);
  CHECK(set(c, "opens_at", std::string("2026-12-01T10:00:00")));
  CHECK(set(c, "opens_at", std::int64_t{1}));
  CHECK_FALSE(set(c, "opens_at", unset_value{}));
  CHECK_FALSE(c.opens_at_ms);
}

TEST_CASE("the rules across settings fill the name and need a target and a lottery for a beacon") {
  room_config c;
  CHECK(check_room(c)->field == "id");
  REQUIRE_FALSE(set(c, "id", std::string("a")));
  CHECK(check_room(c)->field == "target_url");
  REQUIRE_FALSE(set(c, "target_url", std::string("/go")));
  CHECK_FALSE(check_room(c));
  CHECK(c.name == "a");
  c.beacon_rule = "drand";
  CHECK(check_room(c)->field == "beacon_rule");
}

TEST_CASE("changes are named, merged and encoded setting by setting") {
  room_config before = valid_room(), after = before, live = before;
  after.name = "New";
  after.stock = 10;
  live.rate_per_minute = 500;
  CHECK(changed_settings(before, after) == std::vector<std::string_view>{"name", "stock"});
  auto merged = apply_changes(live, before, after);
  CHECK(merged.name == "New");
  CHECK(merged.stock == 10u);
  CHECK(merged.rate_per_minute == 500);
  CHECK(room_setting_names().size() == 21);

  after.opens_at_ms = 1'796'099'400'000;
  writer w;
  write_room_config(w, after);
  reader r(w.bytes());
  CHECK(read_room_config(r) == after);
  CHECK(r.done());
  CHECK(to_json(after) ==
        R"({"id":"tatkal-1","name":"New","rate_per_minute":60,"pass_ttl_seconds":900,"target_url":"/checkout",)"
        R"("opens_at":"2026-12-01T04:30:00.000Z","lobby_window_seconds":0,"beacon_rule":"","stock":10,)"
        R"("logo_url":"","accent_colour":"","max_active":null,"claim_window_seconds":600,"no_show_max_multiplier":1,)"
        R"("adaptive":null,"alternatives":[],"require_account":false,"inventory":null,"lanes":{},"agents_barred_seconds":0,"event":""})");
}

TEST_CASE("require_account is true or false, round-trips, and reads as false from older formats") {
  room_config c = valid_room();
  CHECK(set(c, "require_account", std::int64_t{1})->field == "require_account");
  CHECK(set(c, "require_account", std::string("yes"))->field == "require_account");
  REQUIRE_FALSE(set(c, "require_account", true));
  CHECK(c.require_account);
  CHECK(to_json(c).ends_with(R"("require_account":true,"inventory":null,"lanes":{},"agents_barred_seconds":0,"event":""})"));
  writer w;
  write_room_config(w, c);
  reader r(w.bytes());
  CHECK(read_room_config(r) == c);
  CHECK(r.done());
  // Format 5 ends before max_seats_per_pass and max_seats_per_account (absent: a flag byte
  // each), the setting, the lanes (a count of none), agents_barred_seconds and the event
  // (an empty string): it reads as off.
  std::string_view bytes = w.bytes();
  reader older(bytes.substr(0, bytes.size() - 3 - 4 - 4 - 4));
  CHECK_FALSE(read_room_config(older, 5).require_account);
  CHECK(older.done());
  CHECK_FALSE(set(c, "require_account", unset_value{}));
  CHECK_FALSE(c.require_account);
}

TEST_CASE("an inventory table needs a total, takes its defaults and round-trips") {
  room_config c = valid_room();
  CHECK(is_room_table("inventory"));
  CHECK_FALSE(set(c, "inventory.hold_seconds", std::int64_t{60}));
  auto missing = check_room(c);
  REQUIRE(missing);
  CHECK(missing->field == "inventory.total");
  CHECK(set(c, "inventory.total", std::int64_t{0})->field == "inventory.total");
  CHECK_FALSE(set(c, "inventory.total", std::int64_t{200}));
  CHECK(set(c, "inventory.hold_seconds", std::int64_t{5}));
  CHECK(set(c, "inventory.second_hold", std::string("steal"))->field == "inventory.second_hold");
  CHECK_FALSE(set(c, "inventory.second_hold", std::string("release_first")));
  CHECK(set(c, "inventory", std::int64_t{1}));
  CHECK_FALSE(check_room(c));
  REQUIRE(c.inventory);
  CHECK(c.inventory->hold_seconds == 60);
  CHECK(c.inventory->extension_seconds == 90);
  CHECK(c.inventory->late_grace_seconds == 300);
  CHECK(c.inventory->max_seats_per_hold == 4);
  CHECK(c.inventory->second == second_hold::release_first);
  CHECK(c.inventory->retention_ms() == (60 + 90 + 300) * 1000);
  CHECK(c.inventory->waitlist == 0);
  CHECK(set(c, "inventory.waitlist", std::int64_t{-1})->field == "inventory.waitlist");
  CHECK_FALSE(set(c, "inventory.waitlist", std::int64_t{50}));
  CHECK(c.inventory->waitlist == 50);
  REQUIRE_FALSE(set(c, "inventory.waitlist", std::int64_t{0}));
  writer w;
  write_room_config(w, c);
  reader r(w.bytes());
  CHECK(read_room_config(r) == c);
  CHECK(r.done());
  CHECK(to_json(c).ends_with(R"("inventory":{"total":200,"hold_seconds":60,"extension_seconds":90,)"
                             R"("late_grace_seconds":300,"max_seats_per_hold":4,"max_seats_per_pass":null,"max_seats_per_account":null,)"
                             R"("second_hold":"release_first","legs":[],"leg_totals":[],"waitlist":0},"lanes":{},"agents_barred_seconds":0,)"
                             R"("event":""})"));
  CHECK_FALSE(set(c, "inventory", unset_value{}));
  CHECK_FALSE(c.inventory);
}

TEST_CASE("inventory legs are stations in order, leg_totals one per leg, and both round-trip") {
  room_config c = valid_room();
  REQUIRE_FALSE(set(c, "inventory.total", std::int64_t{200}));
  using names = std::vector<std::string>;
  using numbers = std::vector<std::int64_t>;
  CHECK(set(c, "inventory.legs", names{"A"})->field == "inventory.legs");
  CHECK(set(c, "inventory.legs", names{"A", "B", "A"})->message == "names 'A' twice");
  CHECK(set(c, "inventory.legs", names{"A", "B-C"})->field == "inventory.legs");
  CHECK(set(c, "inventory.legs", names{"A", ""})->field == "inventory.legs");
  CHECK(set(c, "inventory.legs", numbers{1, 2})->field == "inventory.legs");
  CHECK(set(c, "inventory.leg_totals", names{"1"})->field == "inventory.leg_totals");
  CHECK(set(c, "inventory.leg_totals", numbers{-1})->field == "inventory.leg_totals");
  // leg_totals without legs, or not one per leg.
  REQUIRE_FALSE(set(c, "inventory.leg_totals", numbers{200, 150}));
  CHECK(check_room(c)->field == "inventory.leg_totals");
  REQUIRE_FALSE(set(c, "inventory.legs", names{"A", "B", "C", "D"}));
  auto wrong = check_room(c);
  REQUIRE(wrong);
  CHECK(wrong->field == "inventory.leg_totals");
  CHECK(wrong->message == "must give one total for each of the 3 legs");
  REQUIRE_FALSE(set(c, "inventory.leg_totals", numbers{200, 150, 200}));
  CHECK_FALSE(check_room(c));
  CHECK(c.inventory->leg_count() == 3);
  CHECK(c.inventory->leg_total(1) == 150);
  CHECK(c.inventory->leg_name(2) == "C-D");
  writer w;
  write_room_config(w, c);
  reader r(w.bytes());
  CHECK(read_room_config(r) == c);
  CHECK(r.done());
  CHECK_THAT(to_json(c), Catch::EndsWith(R"("legs":["A","B","C","D"],"leg_totals":[200,150,200],"waitlist":0},"lanes":{},"agents_barred_seconds":0,"event":""})"));
  // An empty list is the default: total on every leg.
  REQUIRE_FALSE(set(c, "inventory.leg_totals", names{}));
  CHECK(c.inventory->leg_total(1) == 200);
  // Settings of format 3 have no legs.
  room_config plain = valid_room();
  REQUIRE_FALSE(set(plain, "inventory.total", std::int64_t{10}));
  CHECK(plain.inventory->leg_count() == 1);
  CHECK(plain.inventory->leg_name(0).empty());
}

TEST_CASE("lanes are tables by id: shares sum to at most 1, priority lanes leave some, and they round-trip", "[lanes]") {
  auto c = valid_room();
  CHECK_FALSE(set(c, "lanes.members.share", 0.3));
  CHECK_FALSE(set(c, "lanes.members.name", std::string("Members' presale")));
  CHECK_FALSE(set(c, "lanes.access.share", 0.2));
  CHECK_FALSE(set(c, "lanes.access.priority", true));
  CHECK_FALSE(set(c, "lanes.access.entry", std::string("invite")));
  CHECK_FALSE(set(c, "lanes.members.claim_window_seconds", std::int64_t{1800}));
  CHECK(set(c, "lanes.members.claim_window_seconds", std::int64_t{5})->message == "must be a whole number from 10 to 86400");
  // Named by its id until named, as it is stored: a change compares equal to what it became.
  CHECK(c.lanes[0].name == "access");
  CHECK_FALSE(set(c, "lanes.access.name", std::string("")));
  CHECK(c.lanes[0].name == "access");
  REQUIRE_FALSE(check_room(c));
  REQUIRE(c.lanes.size() == 2);
  CHECK(c.lanes[0].id == "access");  // by id
  CHECK(c.lanes[0].share == 200'000);
  CHECK(c.lanes[0].entry == lane_entry::invite);
  CHECK(c.lanes[1].entry == lane_entry::code);
  auto in_force = lanes_in_force(c.lanes);
  REQUIRE(in_force.size() == 3);
  CHECK(in_force[0].id == "general");
  CHECK(in_force[0].share == 500'000);
  CHECK(in_force[0].entry == lane_entry::open);
  CHECK_THAT(to_json(c), Catch::EndsWith(R"("lanes":{"access":{"name":"access","share":0.2,"priority":true,"entry":"invite","claim_window_seconds":0,)"
                                         R"("hold_seconds":0,"max_seats_per_pass":0},"members":{"name":"Members' presale","share":0.3,)"
                                         R"("priority":false,"entry":"code","claim_window_seconds":1800,"hold_seconds":0,"max_seats_per_pass":0}},)"
                                         R"("agents_barred_seconds":0,"event":""})"));
  writer w;
  write_room_config(w, c);
  reader r(w.bytes());
  CHECK(read_room_config(r) == c);
  CHECK(r.done());

  CHECK(set(c, "lanes.Members.share", 0.1)->field == "lanes.Members.share");
  CHECK(set(c, "lanes.members.share", 1.5)->message == "must be a number from 0 to 1");
  CHECK(set(c, "lanes.members.entry", std::string("vip"))->message == "must be \"open\", \"code\", \"invite\" or \"no_script\"");
  CHECK(set(c, "lanes.members.colour", std::string("red"))->message == "unknown setting");
  CHECK(set(c, "lanes.members", std::int64_t{1})->message == "must be a table of lane settings, or null to remove it");

  auto over = c;
  CHECK_FALSE(set(over, "lanes.members.share", 0.9));
  CHECK(check_room(over)->message == "shares must sum to at most 1; they sum to 1.1");
  auto starving = valid_room();
  CHECK_FALSE(set(starving, "lanes.vip.share", 1.0));
  CHECK_FALSE(set(starving, "lanes.vip.priority", true));
  CHECK(check_room(starving)->message == "priority lanes must leave a share for the others: their shares must sum to less than 1");
  // Each lane of a lottery room draws its own places (lanes_test.cpp).
  auto lottery = c;
  lottery.opens_at_ms = 1'800'000'000'000;
  CHECK_FALSE(check_room(lottery));

  CHECK_FALSE(set(c, "lanes.members", unset_value{}));
  CHECK(c.lanes.size() == 1);
  CHECK_FALSE(set(c, "lanes", unset_value{}));
  CHECK(c.lanes.empty());
  for (int i = 0; i < 16; ++i) CHECK_FALSE(set(c, fmt::format("lanes.l{}.share", i), 0.0));
  CHECK(set(c, "lanes.one-more.share", 0.0)->message == "a room has at most 16 lanes");
}

TEST_CASE("the general lane declared without a share takes the rest; none for the public must be written", "[lanes]") {
  // Named, or made invite-only for a members' hour: it keeps what the others leave.
  auto c = valid_room();
  CHECK_FALSE(set(c, "lanes.members.share", 0.3));
  CHECK_FALSE(set(c, "lanes.general.name", std::string("Everyone")));
  CHECK_FALSE(set(c, "lanes.general.entry", std::string("invite")));
  REQUIRE_FALSE(check_room(c));
  REQUIRE(c.lanes[0].id == "general");
  CHECK(c.lanes[0].share == 700'000);
  CHECK(lanes_in_force(c.lanes)[0].share == 700'000);
  // Checked again (the admin API's next change), the share stands as given.
  REQUIRE_FALSE(check_room(c));
  CHECK(c.lanes[0].share == 700'000);

  // The others take everything: refused, naming the share to write, declared or not.
  auto declared = valid_room();
  CHECK_FALSE(set(declared, "lanes.members.share", 1.0));
  CHECK_FALSE(set(declared, "lanes.general.entry", std::string("invite")));
  auto p = check_room(declared);
  REQUIRE(p);
  CHECK(p->field == "lanes.general.share");
  CHECK_THAT(p->message, Catch::Contains("would get none of the admission") && Catch::Contains("lanes.general.share = 0"));
  auto undeclared = valid_room();
  CHECK_FALSE(set(undeclared, "lanes.members.share", 0.6));
  CHECK_FALSE(set(undeclared, "lanes.residents.share", 0.4));
  REQUIRE(check_room(undeclared));
  CHECK(check_room(undeclared)->field == "lanes.general.share");
  // Written, it is meant: the members' hour.
  CHECK_FALSE(set(declared, "lanes.general.share", 0.0));
  REQUIRE_FALSE(check_room(declared));
  CHECK(declared.lanes[0].share == 0);
  // No other lane has a share: the general lane has all of it.
  auto alone = valid_room();
  CHECK_FALSE(set(alone, "lanes.general.name", std::string("Everyone")));
  REQUIRE_FALSE(check_room(alone));
  CHECK(alone.lanes[0].share == share_scale);
}

TEST_CASE("a change of lanes is told lane by lane", "[lanes]") {
  std::vector<lane_config> before{lane_config{"members", "members", 300'000, false, lane_entry::code}};
  auto after = before;
  after[0].share = 500'000;
  after.push_back(lane_config{"vip", "vip", 100'000, true, lane_entry::invite});
  CHECK(lane_changes(before, after) ==
        std::vector<std::string>{"general: share 0.7 -> 0.4", "members: share 0.3 -> 0.5",
                                 "vip added (share 0.1, entry invite)"});
  CHECK(lane_changes(after, before) ==
        std::vector<std::string>{"general: share 0.4 -> 0.7", "members: share 0.5 -> 0.3", "vip removed"});
  CHECK(lane_changes(before, before).empty());
}

TEST_CASE("one lane, not the general lane, takes joins without JavaScript, and it round-trips", "[lanes]") {
  auto c = valid_room();
  CHECK_FALSE(set(c, "lanes.plain.share", 0.2));
  CHECK_FALSE(set(c, "lanes.plain.entry", std::string("no_script")));
  REQUIRE_FALSE(check_room(c));
  REQUIRE(no_script_lane(c.lanes));
  CHECK(no_script_lane(c.lanes)->id == "plain");
  writer w;
  write_room_config(w, c);
  reader r(w.bytes());
  CHECK(read_room_config(r) == c);

  auto two = c;
  CHECK_FALSE(set(two, "lanes.quiet.entry", std::string("no_script")));
  auto p = check_room(two);
  REQUIRE(p);
  CHECK(p->field == "lanes.quiet.entry");
  auto general = valid_room();
  CHECK_FALSE(set(general, "lanes.general.entry", std::string("no_script")));
  CHECK(check_room(general)->field == "lanes.general.entry");
  // Off unless declared.
  CHECK_FALSE(no_script_lane(valid_room().lanes));
}

TEST_CASE("an admitted visitor without JavaScript is sent to the target with the pass, before any fragment") {
  CHECK(with_pass("/checkout", "a.b.c") == "/checkout?foyer_pass=a.b.c");
  CHECK(with_pass("https://shop.example/buy?item=1#top", "a.b.c") == "https://shop.example/buy?item=1&foyer_pass=a.b.c#top");
}
