#include <catch2/catch.hpp>

#include "core/rooms/event.hpp"
#include "support/encoding.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::first_difference;
using foyer::test::test_room;

namespace {

// One of each event type (two of those with optional parts), in tag order.
std::vector<event> one_of_each() {
  return {
      room_created{"r", digest{1, 2, 3}, 5},
      visitor_joined{"r", id16{9}, id16{8}, 7, std::nullopt},
      visitor_joined{"r", id16{9}, id16{8}, 7, id16{6}},
      visitors_admitted{"r", 10, 11, 12},
      lobby_closed{"r", 13},
      beacon_supplied{"r", std::string("\0\1", 2), 14},
      state_changed{"r", room_state::paused, 15},
      room_configured{"r", test_room("r", 60), room_owner::api, std::nullopt, 16},
      room_configured{"r", test_room("r", 90), room_owner::file, test_room("r", 30), 17},
      room_removed{"r", 18},
      pass_claimed{"r", 19, id16{5, 4}, 20},
      passes_done{"r", {21, 22}, 23},
      stock_reported{"r", stock_change::released, 24, "key-25", 26},
      rate_changed{"r", 27, 28, rate_reason::adaptive_decrease, 29},
      hold_placed{"r", id16{30}, id16{31}, 32, 2, "key-33", 34, "A", "C"},
      hold_extended{"r", id16{35}, "key-36", 37},
      hold_confirmed{"r", id16{38}, "key-39", 40},
      hold_released{"r", id16{41}, "key-42", 43},
      holds_expired{"r", {id16{44}, id16{45}}, 46},
      seats_recounted{"r", 47},
      lobby_closed{"r", 48, /*awaits_witnesses=*/true},
      draw_witnessed{"r", ledger::stage::close, "origin\n1\nroot\n\n\u2014 sig\n", 49},
      turn_notified{"r", 50, 51},
      beacon_supplied{"r", std::string(48, '\x07'), 52, drand::beacon_check::two_relays},
      beacon_supplied{"r", std::string(48, '\x08'), 53, drand::beacon_check::two_relays,
                      {"https://a.example:443", "https://b.example:443"}},
  };
}

std::optional<event> decode_with(std::string bytes, std::size_t at, std::uint8_t value) {
  bytes[at] = static_cast<char>(value);
  return decode_event(bytes);
}

}  // namespace

TEST_CASE("events round-trip through their encoding") {
  for (const auto& e : one_of_each()) {
    auto bytes = encode(e);
    auto back = decode_event(bytes);
    REQUIRE(back);
    CHECK(encode(*back) == bytes);
    CHECK_FALSE(decode_event(bytes.substr(0, bytes.size() - 1)));
    CHECK_FALSE(decode_event(bytes + "x"));
  }
  CHECK_FALSE(decode_event(""));
  CHECK_FALSE(decode_event("\x63"));
}

TEST_CASE("every tag decodes to its own event type, numbered as on disk") {
  // Tags are part of the log's format: never renumbered.
  auto tag_of = [](const event& e) { return static_cast<std::uint8_t>(encode(e)[0]); };
  CHECK(tag_of(room_created{}) == 1);
  CHECK(tag_of(visitor_joined{}) == 2);
  CHECK(tag_of(visitors_admitted{}) == 3);
  CHECK(tag_of(lobby_closed{}) == 4);
  CHECK(tag_of(beacon_supplied{}) == 5);
  CHECK(tag_of(state_changed{}) == 6);
  CHECK(tag_of(room_removed{}) == 8);
  // 7 and 9 are room_configured with settings of format 1 and 2, as older logs hold it;
  // 14 carries the format of its settings.
  CHECK(tag_of(room_configured{}) == 14);
  CHECK(tag_of(pass_claimed{}) == 10);
  CHECK(tag_of(passes_done{}) == 11);
  CHECK(tag_of(stock_reported{}) == 12);
  CHECK(tag_of(rate_changed{}) == 13);
  // 15 is hold_placed without stations, as older logs hold it.
  CHECK(tag_of(hold_placed{}) == 20);
  CHECK(tag_of(hold_extended{}) == 16);
  CHECK(tag_of(hold_confirmed{}) == 17);
  CHECK(tag_of(hold_released{}) == 18);
  CHECK(tag_of(holds_expired{}) == 19);
  CHECK(tag_of(seats_recounted{}) == 21);
  // 4 is a close whose draw does not wait for witnesses, as older logs hold it.
  CHECK(tag_of(lobby_closed{"r", 0, true}) == 22);
  CHECK(tag_of(draw_witnessed{}) == 23);
  CHECK(tag_of(turn_notified{}) == 28);
  // 5 is a beacon with nothing behind it, as older logs hold every beacon.
  CHECK(tag_of(beacon_supplied{"r", "", 0, drand::beacon_check::two_relays}) == 29);
  CHECK(tag_of(beacon_supplied{"r", "", 0, drand::beacon_check::two_relays, {"https://a.example:443"}}) == 30);
  for (const auto& e : one_of_each()) {
    auto back = decode_event(encode(e));
    REQUIRE(back);
    CHECK(back->index() == e.index());
    CHECK(room_of(*back) == "r");
  }
}

TEST_CASE("a corrupt tag is refused") {
  for (const auto& e : one_of_each()) {
    auto bytes = encode(e);
    for (std::uint8_t tag : {0, 24, 0x7f, 0x80, 0xff}) CHECK_FALSE(decode_with(bytes, 0, tag));
  }
}

TEST_CASE("a beacon's check round-trips, and an unknown check is refused") {
  auto bytes = encode(beacon_supplied{"r", "sig", 5, drand::beacon_check::two_relays});
  auto back = decode_event(bytes);
  REQUIRE(back);
  CHECK(std::get<beacon_supplied>(*back).check == drand::beacon_check::two_relays);
  CHECK(std::get<beacon_supplied>(*decode_event(encode(beacon_supplied{"r", "sig", 5}))).check ==
        drand::beacon_check::none);
  for (std::uint8_t check : {0, 2, 0xff}) CHECK_FALSE(decode_with(bytes, bytes.size() - 1, check));
}

TEST_CASE("a beacon names the relays that agreed on it, two at most") {
  beacon_supplied agreed{"r", "sig", 5, drand::beacon_check::two_relays, {"https://a.example:443", "http://b:80"}};
  auto back = decode_event(encode(agreed));
  REQUIRE(back);
  CHECK(std::get<beacon_supplied>(*back).relays == agreed.relays);
  CHECK(std::get<beacon_supplied>(*back).check == drand::beacon_check::two_relays);
  auto bytes = encode(agreed);
  // The count byte follows the room, the value, the time and the check.
  auto count_at = 1 + 4 + 1 + 4 + 3 + 8 + 1;
  REQUIRE(bytes[count_at] == 2);
  for (std::uint8_t count : {0, 3, 0xff}) CHECK_FALSE(decode_with(bytes, count_at, count));
}

TEST_CASE("a room_configured of an older log, with settings of format 1, still decodes") {
  // Format 1's layout, by hand: it is what older logs hold.
  writer w;
  w.u8(7);
  w.str("r");
  w.str("r");
  w.str("Sale");
  w.u32(90);
  w.u32(600);
  w.str("/checkout");
  w.u8(0);
  w.i64(0);
  w.u32(0);
  w.str("");
  w.u64(7);  // stock
  w.str("");
  w.str("");
  w.u8(static_cast<std::uint8_t>(room_owner::file));
  w.u8(0);  // no declaration
  w.i64(16);
  auto back = decode_event(w.bytes());
  REQUIRE(back);
  const auto& e = std::get<room_configured>(*back);
  CHECK(e.config.name == "Sale");
  CHECK(e.config.rate_per_minute == 90);
  CHECK(e.config.stock == 7u);
  // The admission settings take their defaults.
  CHECK(e.config.claim_window_seconds == 600);
  CHECK_FALSE(e.config.max_active);
  CHECK_FALSE(e.config.adaptive);
  CHECK(e.at_ms == 16);
}

TEST_CASE("a room_configured with settings of format 2 still decodes, and an unknown format is refused") {
  auto config = test_room("r", 90);
  config.max_active = 5;
  auto bytes = encode(room_configured{"r", config, room_owner::file, std::nullopt, 16});
  REQUIRE(bytes[1] == room_config_format);
  // Format 2 is the current format without the inventory at the settings' end (no legs:
  // two empty lists; the waitlist; no max_seats_per_pass nor max_seats_per_account),
  // require_account, the lanes (a count of none), agents_barred_seconds and the event (an
  // empty string), under tag 9.
  constexpr std::size_t inventory_size = 1 + 8 + 4 * 4 + 1 + 4 + 4 + 4 + 1 + 1 + 1 + 4 + 4 + 4;
  constexpr std::size_t trailer_size = 1 + 1 + 8;  // owner, no declaration, time
  auto settings_end = bytes.size() - trailer_size;
  std::string old = "\x09" + bytes.substr(2, settings_end - inventory_size - 2) + bytes.substr(settings_end);
  auto back = decode_event(old);
  REQUIRE(back);
  const auto& e = std::get<room_configured>(*back);
  CHECK(e.config.max_active == 5u);
  CHECK_FALSE(e.config.inventory);
  CHECK(e.at_ms == 16);
  for (std::uint8_t bad : {0, 1, 2, room_config_format + 1, 0xff}) {
    CHECK_FALSE(decode_with(bytes, 1, static_cast<std::uint8_t>(bad)));
  }
}

TEST_CASE("a hold_placed of an older log, tag 15 without stations, still decodes as a hold on the whole route") {
  hold_placed placed{"r", id16{1}, id16{2}, 3, 2, "k", 4};
  auto bytes = encode(placed);
  // The new tag's two empty stations at the end, each a u32 length.
  auto old = "\x0f" + bytes.substr(1, bytes.size() - 1 - 8);
  auto back = decode_event(old);
  REQUIRE(back);
  const auto& e = std::get<hold_placed>(*back);
  CHECK(e.key == "k");
  CHECK(e.seats == 2);
  CHECK(e.place == 3u);
  CHECK(e.at_ms == 4);
  CHECK(e.from.empty());
  CHECK(e.to.empty());
  CHECK(encode(e) == bytes);
}

TEST_CASE("a state change to an unknown room state is refused") {
  auto paused = encode(state_changed{"r", room_state::paused, 15});
  auto state_at = first_difference(paused, encode(state_changed{"r", room_state::closed, 15}));
  for (std::uint8_t s = 0; s <= static_cast<std::uint8_t>(room_state::closed); ++s) {
    auto back = decode_with(paused, state_at, s);
    REQUIRE(back);
    CHECK(std::get<state_changed>(*back).state == static_cast<room_state>(s));
  }
  for (std::uint8_t bad : {6, 7, 0xff}) CHECK_FALSE(decode_with(paused, state_at, bad));
}

TEST_CASE("a configuration from an unknown owner, or for another room, is refused") {
  room_configured by_file{"r", test_room("r", 60), room_owner::file, std::nullopt, 16};
  auto by_api = by_file;
  by_api.source = room_owner::api;
  auto bytes = encode(by_file);
  auto owner_at = first_difference(bytes, encode(by_api));
  auto back = decode_with(bytes, owner_at, static_cast<std::uint8_t>(room_owner::api));
  REQUIRE(back);
  CHECK(std::get<room_configured>(*back).source == room_owner::api);
  for (std::uint8_t bad : {2, 0xff}) CHECK_FALSE(decode_with(bytes, owner_at, bad));

  auto elsewhere = by_file;
  elsewhere.room = "s";
  CHECK_FALSE(decode_event(encode(elsewhere)));
  elsewhere.config.id = "s";
  CHECK(decode_event(encode(elsewhere)));
}

TEST_CASE("an event cut at any byte is refused") {
  for (const auto& e : one_of_each()) {
    auto bytes = encode(e);
    for (std::size_t size = 0; size < bytes.size(); ++size) {
      INFO("event " << e.index() << " cut to " << size << " of " << bytes.size() << " bytes");
      CHECK_FALSE(decode_event(std::string_view(bytes).substr(0, size)));
    }
  }
}

TEST_CASE("a configuration declared for another room is refused") {
  room_configured e{"r", test_room("r", 60), room_owner::file, test_room("s", 60), 16};
  CHECK_FALSE(decode_event(encode(e)));
}
