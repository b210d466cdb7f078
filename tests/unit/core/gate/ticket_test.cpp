#include <catch2/catch.hpp>

#include "core/gate/ticket.hpp"
#include "core/lanes/lane_place.hpp"

using namespace foyer;

namespace {

ticket sample() {
  ticket t;
  t.room = "demo";
  t.visitor.fill(7);
  t.place = 42;
  t.issued_ms = 1'800'000'000'123;
  return t;
}

}  // namespace

TEST_CASE("tickets round-trip and carry lobby fields") {
  ticket_codec codec(as_bytes("a secret of thirty-two bytes!!!!"));
  auto t = sample();
  auto back = codec.decode(codec.encode(t));
  REQUIRE(back);
  CHECK(back->room == "demo");
  CHECK(back->visitor == t.visitor);
  CHECK(back->place == 42u);
  CHECK_FALSE(back->lobby_index);

  t.place.reset();
  t.lobby_index = 9;
  t.entrant.fill(3);
  back = codec.decode(codec.encode(t));
  REQUIRE(back);
  CHECK_FALSE(back->place);
  CHECK(back->lobby_index == 9u);
  CHECK(back->entrant == t.entrant);
}

TEST_CASE("forged, truncated and foreign tickets are refused") {
  ticket_codec codec(as_bytes("a secret of thirty-two bytes!!!!"));
  ticket_codec other(as_bytes("another secret, also 32 bytes!!!"));
  auto text = codec.encode(sample());
  ticket_error why{};

  CHECK_FALSE(other.decode(text, &why));
  CHECK(why == ticket_error::forged);

  // Every single-character change is caught.
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto bad = text;
    bad[i] = bad[i] == 'A' ? 'B' : 'A';
    INFO("position " << i);
    CHECK_FALSE(codec.decode(bad));
  }
  CHECK_FALSE(codec.decode(text.substr(0, text.size() - 1), &why));
  CHECK_FALSE(codec.decode(text.substr(0, 10), &why));
  CHECK(why == ticket_error::malformed);
  CHECK_FALSE(codec.decode("", &why));
  CHECK_FALSE(codec.decode("not base64 !", &why));
  CHECK_FALSE(codec.decode(std::string(10'000, 'A'), &why));
  CHECK(why == ticket_error::malformed);
}

TEST_CASE("after a restore, each lane's tickets pass only for what the restored log holds of that lane") {
  const std::string secret = "a secret of thirty-two bytes!!!!";
  ticket_codec old_server(ticket_key(as_bytes(secret), ""));
  // "sale": 10 general places, lane 1 with 3 places and lane 2 with 2 lobby indexes.
  ticket_cut cut{10, 0, {{3, 0}, {2, 2}}};
  ticket_codec restored(ticket_key(as_bytes(secret), "0f0f"), {{ticket_key(as_bytes(secret), ""), {{"sale", cut}}}});
  ticket_error why{};
  auto t = sample();
  t.room = "sale";
  auto passes = [&](std::optional<std::uint64_t> place, std::optional<std::uint64_t> lobby) {
    t.place = place;
    t.lobby_index = lobby;
    return restored.decode(old_server.encode(t), &why).has_value();
  };
  CHECK(passes(9, std::nullopt));
  CHECK_FALSE(passes(10, std::nullopt));
  CHECK(passes(lane_place(1, 2), std::nullopt));
  CHECK_FALSE(passes(lane_place(1, 3), std::nullopt));
  CHECK(why == ticket_error::lost_in_restore);
  CHECK(passes(std::nullopt, lane_place(2, 1)));
  CHECK_FALSE(passes(std::nullopt, lane_place(2, 2)));
  // A lane the backup did not have.
  CHECK_FALSE(passes(lane_place(3, 0), std::nullopt));
}

TEST_CASE("after a restore, an earlier incarnation's tickets pass only for what the restored log holds") {
  const std::string secret = "a secret of thirty-two bytes!!!!";
  ticket_codec old_server(ticket_key(as_bytes(secret), ""));
  // Backed up with places 0..4 of "demo" and lobby indexes 0..2 of "draw"; no "quiet".
  earlier_tickets first{ticket_key(as_bytes(secret), ""), {{"demo", {5, 0, {}}}, {"draw", {3, 3, {}}}}};
  ticket_codec restored(ticket_key(as_bytes(secret), "0f0f"), {first});
  ticket_error why{};

  auto t = sample();
  for (std::uint64_t place : {0u, 4u}) {
    t.place = place;
    auto back = restored.decode(old_server.encode(t));
    REQUIRE(back);
    CHECK(back->place == place);
  }
  for (std::uint64_t place : {5u, 6u, 1000u}) {
    t.place = place;
    INFO("place " << place);
    CHECK_FALSE(restored.decode(old_server.encode(t), &why));
    CHECK(why == ticket_error::lost_in_restore);
  }
  // The restored server's own tickets carry any place, under its own key.
  CHECK(restored.decode(restored.encode(t))->place == 1000u);
  // A room the backup did not hold.
  t.room = "quiet";
  t.place = 0;
  CHECK_FALSE(restored.decode(old_server.encode(t), &why));
  CHECK(why == ticket_error::lost_in_restore);

  // Lobby tickets go by their index, and lose the old server's place: the restored draw,
  // over the lobby the log holds, decides it.
  t.room = "draw";
  t.lobby_index = 2;
  t.place = 7;
  auto lobby = restored.decode(old_server.encode(t));
  REQUIRE(lobby);
  CHECK(lobby->lobby_index == 2u);
  CHECK_FALSE(lobby->place);
  t.lobby_index = 3;
  CHECK_FALSE(restored.decode(old_server.encode(t), &why));
  CHECK(why == ticket_error::lost_in_restore);

  // Another key altogether is still a forgery.
  ticket_codec stranger(ticket_key(as_bytes(std::string("another secret, also 32 bytes!!!")), ""));
  CHECK_FALSE(restored.decode(stranger.encode(sample()), &why));
  CHECK(why == ticket_error::forged);
}

TEST_CASE("a data dir's first ticket key is the one servers before incarnations used") {
  const std::string secret = "a secret of thirty-two bytes!!!!";
  auto legacy = hmac_sha256(as_bytes(secret), {as_bytes(std::string_view("foyer/ticket-key/v1"))});
  CHECK(ticket_key(as_bytes(secret), "") == legacy);
  CHECK(ticket_key(as_bytes(secret), "ab") != legacy);
}
