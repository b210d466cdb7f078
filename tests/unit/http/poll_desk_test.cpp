// The I/O threads' poll desk: a far-back visitor's poll is answered from the published
// front, as the loop would have answered it then; everything else goes on to the loop.
#include <catch2/catch.hpp>

#include <fmt/core.h>

#include "core/base/bytes.hpp"
#include "http/poll_desk.hpp"
#include "support/room_fixture.hpp"

using namespace foyer;
using namespace foyer::http;
using foyer::test::room_fixture;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view key = "a ticket key of thirty-two bytes";
constexpr status_window window{20, 5};

struct desk_fixture : room_fixture {
  desk_fixture() {
    join_many(r, 300);
    now_ms += 5'000;
    step(r);  // 10 served, two a second
  }

  published_fronts fronts(bool calm = true, std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now()) {
    room_fronts f;
    f.taken_ms = now_ms;
    f.taken_wall_ms = wall_ms;
    f.rooms.emplace("r", room_front_of(r, now_ms));
    return {std::make_shared<const room_fronts>(std::move(f)), calm, at};
  }

  std::string ticket_of(std::uint64_t place, std::string room = "r") {
    ticket t;
    t.room = std::move(room);
    t.place = place;
    return tickets.encode(t);
  }

  static request poll(std::string target, std::string bearer = "") {
    request req{beast::http::verb::get, target, 11};
    req.set(beast::http::field::host, "x");
    if (!bearer.empty()) req.set(beast::http::field::authorization, "Bearer " + bearer);
    return req;
  }

  std::int64_t wall_ms = 1'800'000'000'000;
  room r = make(fifo_config(120));
  ticket_codec tickets{as_bytes(key)};
  poll_desk desk{tickets, window, 7};
};

}  // namespace

TEST_CASE_METHOD(desk_fixture, "a far-back visitor's poll is answered on the desk, as the loop would have") {
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", ticket_of(200))));  // nothing published yet
  CHECK(desk.take(fronts()).status.count() == 0);
  auto res = desk.answer(poll("/api/v1/rooms/r/status", ticket_of(200)));
  REQUIRE(res);
  CHECK(res->result_int() == 200);
  CHECK(res->body().starts_with(R"({"state":"waiting","place":200,"served":10,"position":190,"eta_seconds":96,)"));
  CHECK(res->body().find(R"("frontier_above":20)") != std::string::npos);
  // The ticket in its cookie does as well.
  auto by_cookie = poll("/api/v1/rooms/r/status");
  by_cookie.set(beast::http::field::cookie, "other=1; foyer_ticket=" + ticket_of(150));
  REQUIRE(desk.answer(by_cookie));
  // What it answered goes back to the loop with the next front, counted once.
  CHECK(desk.take(fronts()).status.count() == 2);
  CHECK(desk.take(fronts()).status.count() == 0);
}

TEST_CASE_METHOD(desk_fixture, "the desk leaves to the loop every poll it can't answer alone") {
  desk.take(fronts());
  auto t = ticket_of(200);
  REQUIRE(desk.answer(poll("/api/v1/rooms/r/status", t)));
  // Near the front, and admitted: a pass may be due.
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", ticket_of(25))));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", ticket_of(3))));
  // No ticket, a forged one, another room's, a room not published.
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status")));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", t.substr(0, t.size() - 2) + "AA")));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", ticket_of(200, "s"))));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/s/status", ticket_of(200, "s"))));
  // Any other request, or the poll spelled otherwise.
  for (auto target : {"/api/v1/rooms/r/status?x=1", "/api/v1/rooms/r", "/api/v1/rooms//status",
                      "/api/v1/rooms/%72/status", "/api/v1/rooms/r/x/status", "/api/v1/roomsr/status"}) {
    INFO(target);
    CHECK_FALSE(desk.answer(poll(target, t)));
  }
  auto post = poll("/api/v1/rooms/r/status", t);
  post.method(beast::http::verb::post);
  CHECK_FALSE(desk.answer(post));
  // An overloaded loop decides whom to shed; a stalled loop's front is too old to answer from.
  desk.take(fronts(false));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", t)));
  desk.take(fronts(true, std::chrono::steady_clock::now() - poll_desk::fresh_for - 10ms));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/status", t)));
  desk.take(fronts());
  CHECK(desk.answer(poll("/api/v1/rooms/r/status", t)));
}

TEST_CASE_METHOD(desk_fixture, "the frontier is answered on the desk as the loop's, dated when answered, for anyone") {
  // Fronts taken 300 ms ago: the answer's `at` is now, never earlier than the request (pages
  // measure the server's clock by it), and no later than the front's freshness allows.
  desk.take(fronts(true, std::chrono::steady_clock::now() - 300ms));
  auto res = desk.answer(poll("/api/v1/rooms/r/frontier"));
  REQUIRE(res);
  CHECK(res->result_int() == 200);
  auto at = res->body().substr(res->body().find(R"("at":)") + 5);
  CHECK(res->body() == R"({"served":10,"state":"open","rate_per_minute":120,"at":)" + at);
  auto at_ms = std::stoll(at);
  CHECK(at_ms >= wall_ms + 300);
  CHECK(at_ms <= wall_ms + poll_desk::fresh_for.count());
  std::string wire;
  res->serialize(wire);
  CHECK(wire.find("Cache-Control: public, max-age=1\r\n") != std::string::npos);
  CHECK(wire.find("no-store") == std::string::npos);
  // No front for an unknown room: the loop says so.
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/s/frontier")));
  CHECK_FALSE(desk.answer(poll("/api/v1/rooms/r/frontier?x")));
  // Even when the loop is overloaded: the frontier sheds nobody.
  auto answered = desk.take(fronts(false));
  CHECK(answered.frontier.count() == 1);
  CHECK(answered.status.count() == 0);
  CHECK(desk.answer(poll("/api/v1/rooms/r/frontier")));
}
