#include <catch2/catch.hpp>

#include "core/gate/ticket.hpp"

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
