#include <catch2/catch.hpp>

#include "core/lanes/lane_place.hpp"
#include "core/notify/contact_book.hpp"
#include "core/notify/push_payload.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using namespace foyer::notify;
using foyer::test::journal_fixture;
using foyer::test::test_room;

namespace {

constexpr std::uint32_t soon_seconds = 300;

const push_subscription subscription{"https://push.example.net/s/1", std::string(87, 'B'), std::string(22, 'A')};

visitor_status in_state(std::string_view state, std::optional<std::uint64_t> eta_seconds = std::nullopt) {
  visitor_status st;
  st.state = state;
  st.eta_seconds = eta_seconds;
  return st;
}

id16 visitor_of(std::uint8_t tag) {
  id16 v{};
  v[0] = tag;
  return v;
}

// A room that admits one visitor a second, with `n` visitors waiting.
struct book_fixture : journal_fixture {
  contact_book book{100};

  void open_with(std::uint64_t n) {
    start({test_room("hall", 60)});
    for (std::uint64_t i = 0; i < n; ++i) join("hall");
  }
  // Seconds pass, the ticker stepping each.
  void wait(int seconds) {
    for (int i = 0; i < seconds; ++i) {
      clock.advance_ms(1000);
      tick("hall");
    }
  }
  std::vector<notice> plan() { return book.plan(*rooms, clock.steady_ms(), soon_seconds); }
};

}  // namespace

TEST_CASE("the soon notice is due once the wait is within soon_seconds, from an injected clock") {
  CHECK(due_notice(in_state("waiting", 301), false, false, soon_seconds) == std::nullopt);
  CHECK(due_notice(in_state("waiting", 300), false, false, soon_seconds) == notice_kind::soon);
  CHECK(due_notice(in_state("waiting", 30), true, false, soon_seconds) == std::nullopt);
  // Held admission has no honest estimate.
  CHECK(due_notice(in_state("waiting"), false, false, soon_seconds) == std::nullopt);
  CHECK(due_notice(in_state("admitted"), false, false, soon_seconds) == notice_kind::turn);
  CHECK(due_notice(in_state("admitted"), true, true, soon_seconds) == std::nullopt);
  CHECK(due_notice(in_state("lobby"), false, false, soon_seconds) == std::nullopt);
  CHECK(minutes_of(281) == 5);
  CHECK(minutes_of(0) == 1);
}

TEST_CASE_METHOD(book_fixture, "a visitor hears 'soon' then 'turn', each once, and the book then forgets them") {
  open_with(400);
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, subscription));
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, email_contact{"ada@example.com", "https://queue.example/r/hall/resume/T"}));
  CHECK(plan().empty());  // 400 s away

  wait(120);
  auto soon = plan();
  REQUIRE(soon.size() == 2);
  CHECK(soon[0].kind == notice_kind::soon);
  CHECK(soon[0].minutes == 5);
  CHECK(channel_of(soon[0].to) == channel::push);
  CHECK(channel_of(soon[1].to) == channel::email);
  CHECK(plan().empty());  // once

  wait(200);
  CHECK(plan().empty());
  wait(81);
  auto turn = plan();
  REQUIRE(turn.size() == 2);
  CHECK(turn[0].kind == notice_kind::turn);
  CHECK(std::get<email_contact>(turn[1].to).address == "ada@example.com");
  // The address travels with its notice; the book holds it no longer.
  CHECK_FALSE(book.find("hall", visitor_of(1), channel::email));
  CHECK(book.size() == 0);
  CHECK(plan().empty());

  auto counts = book.counts("hall");
  CHECK(counts.opted_in == per_channel{1, 1});
  CHECK(counts.held == per_channel{0, 0});
  CHECK(counts.sent == per_channel{2, 2});
  book.record("hall", channel::push, outcome::delivered);
  book.record("hall", channel::email, outcome::failed);
  CHECK(book.counts("hall").delivered == per_channel{1, 0});
  CHECK(book.outcomes()[1][static_cast<std::size_t>(outcome::failed)] == 1);

  // Told, and never came: past the claim window they count as a notified no-show.
  wait(590);
  plan();
  CHECK(book.counts("hall").notified_no_shows == 0);
  wait(15);
  plan();
  CHECK(book.counts("hall").notified_no_shows == 1);
  CHECK(book.notified_no_shows() == 1);
  CHECK(rooms->find("hall")->no_shows() >= 1);
}

TEST_CASE_METHOD(book_fixture, "a lane's visitor told it is their turn is watched in their lane until they lapse") {
  auto config = test_room("hall", 60);
  config.lanes = {lane_config{"members", "", 500'000, false, lane_entry::open}};
  start({config});
  visitor_joined member;
  member.room = "hall";
  member.visitor = visitor_of(9);
  member.entrant = visitor_of(9);
  member.at_ms = clock.now_ms();
  member.lane = 1;
  auto joined = commit(member);
  REQUIRE_FALSE(joined.first);
  auto place = joined.second.place;
  REQUIRE(place);
  REQUIRE(lane_of(*place) == 1);
  REQUIRE(book.add("hall", member.visitor, place, std::nullopt, subscription));
  wait(5);
  auto turn = plan();
  REQUIRE(turn.size() == 1);
  CHECK(turn[0].kind == notice_kind::turn);
  // Never claimed: once the lane's claim window closed, a notified no-show of the lane.
  wait(620);
  plan();
  CHECK(book.counts("hall").notified_no_shows == 1);
}

TEST_CASE_METHOD(book_fixture, "a pass looks only at visitors within reach of the soon window; the rest wait unseen") {
  open_with(2000);
  // Far back and near: only the near one is due, however many far ones are held.
  for (std::uint8_t i = 0; i < 90; ++i) {
    REQUIRE(book.add("hall", visitor_of(i), 1000 + std::uint64_t{i}, std::nullopt, subscription));
  }
  REQUIRE(book.add("hall", visitor_of(200), 3, std::nullopt, subscription));
  auto due = plan();
  REQUIRE(due.size() == 1);
  CHECK(due[0].visitor == visitor_of(200));
  CHECK(book.looked_at() == 1);
  // The window moves with the queue: 700 s later visitor 200's turn has come, and the first
  // far one (place 1000, 301 s away) is looked at, due a second later.
  wait(700);
  due = plan();
  REQUIRE(due.size() == 1);
  CHECK(due[0].kind == notice_kind::turn);
  CHECK(book.looked_at() == 2);
  wait(1);
  due = plan();
  REQUIRE(due.size() == 1);
  CHECK(due[0].visitor == visitor_of(0));
  CHECK(due[0].kind == notice_kind::soon);
}

TEST_CASE_METHOD(book_fixture, "notices depend on the log alone: a replayed room plans the same") {
  open_with(300);
  wait(30);
  contact_book before{100}, after{100};
  for (auto* b : {&before, &after}) {
    for (std::uint8_t i = 0; i < 30; ++i) REQUIRE(b->add("hall", visitor_of(i), std::uint64_t{i} * 10, std::nullopt, subscription));
  }
  auto planned = before.plan(*rooms, clock.steady_ms(), soon_seconds);
  restart();
  auto replayed = after.plan(*rooms, clock.steady_ms(), soon_seconds);
  REQUIRE(planned.size() == replayed.size());
  REQUIRE_FALSE(planned.empty());
  for (std::size_t i = 0; i < planned.size(); ++i) {
    CHECK(planned[i].visitor == replayed[i].visitor);
    CHECK(planned[i].kind == replayed[i].kind);
    CHECK(planned[i].minutes == replayed[i].minutes);
  }
}

TEST_CASE_METHOD(book_fixture, "contacts are bounded per room, replaced per channel, and go with opt-out, gone or the room") {
  open_with(10);
  contact_book small{2};
  CHECK(small.add("hall", visitor_of(1), 5, std::nullopt, subscription));
  CHECK(small.add("hall", visitor_of(1), 5, std::nullopt, subscription));  // replaced, not another
  CHECK(small.add("hall", visitor_of(2), 6, std::nullopt, email_contact{"b@example.com", "https://queue.example/r/hall/resume/T"}));
  CHECK_FALSE(small.add("hall", visitor_of(3), 7, std::nullopt, subscription));
  CHECK(small.counts("hall").held == per_channel{1, 1});
  CHECK(small.counts("hall").opted_in == per_channel{1, 1});

  small.forget("hall", visitor_of(1), channel::push);
  CHECK_FALSE(small.find("hall", visitor_of(1), channel::push));
  CHECK(small.remove("hall", visitor_of(2)));
  CHECK_FALSE(small.remove("hall", visitor_of(2)));
  CHECK(small.size() == 0);

  // A room that is gone takes its contacts along at the next plan.
  CHECK(small.add("removed", visitor_of(4), 0, std::nullopt, email_contact{"d@example.com", "https://queue.example/r/hall/resume/T"}));
  CHECK(small.size() == 1);
  CHECK(small.plan(*rooms, clock.steady_ms(), soon_seconds).empty());
  CHECK(small.size() == 0);
  CHECK(small.counts("removed").opted_in == per_channel{0, 0});
}

TEST_CASE("a pushed notice names the room and its page, never the visitor") {
  notice soon{"hall", visitor_of(7), 7, notice_kind::soon, 4, subscription};
  CHECK(push_payload(soon, "The Hall") ==
        R"({"kind":"soon","room":"hall","title":"Your turn is near","body":"The Hall: your turn in about 4 minutes.","minutes":4,"url":"/r/hall"})");
  notice turn{"hall", visitor_of(7), 7, notice_kind::turn, 0, email_contact{"ada@example.com", "https://queue.example/r/hall/resume/T"}};
  CHECK(push_payload(turn, "The Hall") ==
        R"({"kind":"turn","room":"hall","title":"It's your turn","body":"The Hall: it's your turn. Open the page to go through.","url":"/r/hall"})");
}
