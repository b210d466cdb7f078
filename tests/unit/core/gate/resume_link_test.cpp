#include <catch2/catch.hpp>

#include "core/gate/resume_link.hpp"
#include "support/encoding.hpp"
#include "support/room_fixture.hpp"

using namespace foyer;
using foyer::test::first_difference;
using foyer::test::room_fixture;

namespace {

struct resume_fixture : room_fixture {
  ticket_codec tickets{as_bytes("a secret of thirty-two bytes!!!!")};
  resume_codec links{as_bytes("another key of thirty-two bytes!")};
  room r = make(fifo_config());

  resume_fixture() { join_many(r, 3); }

  // The ticket of the fixture's n-th join (from 1).
  std::string ticket_of(std::uint8_t n, std::string room = "r") {
    ticket t;
    t.room = std::move(room);
    t.visitor = id16{n};
    t.place = n - 1u;
    t.issued_ms = created_ms;
    return tickets.encode(t);
  }

  // Carries keep_place as the handler does: commits, then decides again.
  id16 keep(std::uint8_t n, std::uint8_t fresh) {
    auto first = keep_place(r, id16{n}, id16{fresh}, now_ms);
    if (auto* commit = std::get_if<std::vector<event>>(&first)) {
      REQUIRE(commit->size() == 1);
      r.apply(std::get<resume_link_changed>(commit->front()));
      first = keep_place(r, id16{n}, id16{0xff}, now_ms);
    }
    REQUIRE(std::holds_alternative<resume_link_answer>(first));
    return std::get<resume_link_answer>(first).link;
  }

  std::variant<desk_refusal, resumed> open(std::uint8_t n, const id16& link) {
    return open_resume(r, links, tickets, links.mint(ticket_of(n), link));
  }
};

errc refusal_of(const std::variant<desk_refusal, resumed>& opened) {
  REQUIRE(std::holds_alternative<desk_refusal>(opened));
  return std::get<desk_refusal>(opened).code;
}

}  // namespace

TEST_CASE("a resume token carries its ticket and link id, and is refused altered, under another key or oversized") {
  ticket_codec tickets(as_bytes("a secret of thirty-two bytes!!!!"));
  resume_codec links(as_bytes("another key of thirty-two bytes!"));
  ticket t;
  t.room = "r";
  t.visitor.fill(7);
  t.place = 4;
  auto text = tickets.encode(t);
  id16 link{9, 8, 7};
  auto token = links.mint(text, link);
  auto opened = links.open(token);
  REQUIRE(opened);
  CHECK(opened->ticket == text);
  CHECK(opened->link == link);

  for (std::size_t i = 0; i < token.size(); i += 7) {
    auto altered = token;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    CHECK_FALSE(links.open(altered));
  }
  CHECK_FALSE(resume_codec(as_bytes("a third key of thirty-two bytes!")).open(token));
  CHECK_FALSE(links.open(token + std::string(400, 'A')));
  CHECK_FALSE(links.open(""));
  CHECK(links.mint("not base64url!", link).empty());
}

TEST_CASE_METHOD(resume_fixture, "keeping a place commits one link, then answers it without writing again") {
  auto first = keep_place(r, id16{1}, id16{0x11}, now_ms);
  REQUIRE(std::holds_alternative<std::vector<event>>(first));
  const auto& e = std::get<resume_link_changed>(std::get<std::vector<event>>(first).front());
  CHECK(e.room == "r");
  CHECK(e.visitor == id16{1});
  CHECK(e.link == id16{0x11});
  r.apply(e);
  auto again = keep_place(r, id16{1}, id16{0x22}, now_ms);
  REQUIRE(std::holds_alternative<resume_link_answer>(again));
  CHECK(std::get<resume_link_answer>(again).link == id16{0x11});

  auto back = open(1, id16{0x11});
  REQUIRE(std::holds_alternative<resumed>(back));
  CHECK(std::get<resumed>(back).t.visitor == id16{1});
  CHECK(std::get<resumed>(back).t.place == 0u);
  CHECK(std::get<resumed>(back).text == ticket_of(1));
}

TEST_CASE_METHOD(resume_fixture, "a revoked or replaced link is refused, and revoking nothing writes nothing") {
  CHECK(std::holds_alternative<std::monostate>(forget_link(r, id16{1}, now_ms)));
  auto old = keep(1, 0x11);
  auto revoke = forget_link(r, id16{1}, now_ms);
  REQUIRE(std::holds_alternative<std::vector<event>>(revoke));
  r.apply(std::get<resume_link_changed>(std::get<std::vector<event>>(revoke).front()));
  CHECK(refusal_of(open(1, old)) == errc::resume_link_revoked);
  CHECK(std::holds_alternative<std::monostate>(forget_link(r, id16{1}, now_ms)));

  auto fresh = keep(1, 0x33);
  CHECK(fresh != old);
  CHECK(refusal_of(open(1, old)) == errc::resume_link_revoked);
  CHECK(std::holds_alternative<resumed>(open(1, fresh)));
  // Another visitor's link is theirs alone: nobody else's id opens it.
  CHECK(refusal_of(open(2, fresh)) == errc::resume_link_revoked);
}

TEST_CASE_METHOD(resume_fixture, "a link of another room, a forged ticket or a malformed token is refused") {
  auto link = keep(1, 0x11);
  auto other = open_resume(r, links, tickets, links.mint(ticket_of(1, "other"), link));
  CHECK(refusal_of(other) == errc::ticket_for_other_room);
  ticket_codec forger(as_bytes("not the server's secret at all!!"));
  ticket t;
  t.room = "r";
  t.visitor = id16{1};
  t.place = 0;
  CHECK(refusal_of(open_resume(r, links, tickets, links.mint(forger.encode(t), link))) == errc::invalid_resume_link);
  CHECK(refusal_of(open_resume(r, links, tickets, "AAAA")) == errc::invalid_resume_link);
}

TEST_CASE_METHOD(resume_fixture, "a ticket makes at most max_links links: the server's writes for it are bounded") {
  for (std::uint8_t i = 0; i < resume_book::max_links; ++i) {
    keep(1, static_cast<std::uint8_t>(0x40 + i));
    r.apply(resume_link_changed{"r", id16{1}, std::nullopt, now_ms});
  }
  auto refused = keep_place(r, id16{1}, id16{0x99}, now_ms);
  REQUIRE(std::holds_alternative<desk_refusal>(refused));
  CHECK(std::get<desk_refusal>(refused).code == errc::resume_links_used_up);
  // Others still may.
  CHECK(keep(2, 0x12) == id16{0x12});
}

TEST_CASE_METHOD(resume_fixture, "live links survive a snapshot, and a state of format 9 reads with none") {
  keep(1, 0x11);
  keep(2, 0x12);
  r.apply(resume_link_changed{"r", id16{2}, std::nullopt, now_ms});
  room restored = make(fifo_config(7));
  REQUIRE(restored.decode_state(r.encode_state()));
  CHECK(restored.encode_state() == r.encode_state());
  CHECK(restored.resume_links().live(id16{1}) == id16{0x11});
  CHECK_FALSE(restored.resume_links().live(id16{2}));
  CHECK(restored.resume_links().made(id16{2}) == 1);

  // Format 9 is the current one without the book (a u64 count, then its entries) and
  // without the lane's count of places told "it's your turn" (a u64, before the book).
  room none = make(fifo_config());
  join_many(none, 3);
  room one = none;
  one.apply(resume_link_changed{"r", id16{1}, id16{0x11}, now_ms});
  room told = none;
  told.apply(turn_notified{"r", 0, now_ms});
  auto bytes = none.encode_state();
  auto book_at = first_difference(bytes, one.encode_state()) - 7;
  auto told_at = first_difference(bytes, told.encode_state()) - 7;
  REQUIRE(told_at < book_at);
  std::string old = bytes.substr(0, told_at) + bytes.substr(told_at + 8, book_at - told_at - 8) +
                    bytes.substr(book_at + 8);
  old[0] = 9;
  room from_old = make(fifo_config(7));
  REQUIRE(from_old.decode_state(old));
  CHECK(from_old.encode_state() == bytes);
  CHECK(from_old.resume_links().size() == 0);
}

TEST_CASE("resume_link_changed round-trips through the log's encoding") {
  for (const auto& link : {std::optional<id16>{id16{5, 6}}, std::optional<id16>{}}) {
    resume_link_changed e{"room", id16{1, 2, 3}, link, 1234};
    auto back = decode_event(encode(e));
    REQUIRE(back);
    const auto& d = std::get<resume_link_changed>(*back);
    CHECK(d.room == "room");
    CHECK(d.visitor == e.visitor);
    CHECK(d.link == link);
    CHECK(d.at_ms == 1234);
  }
}

TEST_CASE_METHOD(resume_fixture, "a link whose place the room's log never gave was lost in a restore") {
  // The fixture's room holds three joins: a fourth's ticket came from a log since lost.
  auto link = keep(3, 0x31);
  CHECK(std::holds_alternative<resumed>(open(3, link)));
  CHECK(refusal_of(open(4, link)) == errc::ticket_lost_in_restore);
}
