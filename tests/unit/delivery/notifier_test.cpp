// The notifier on a real io_context with scripted senders: notices leave through their
// channel's bounded queue, a failure is retried with back-off a bounded number of times,
// "gone" forgets the contact, a full queue drops its oldest notice, counted, and what the
// book changed is written to the store's contacts each pass.
#include <catch2/catch.hpp>

#include <algorithm>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fmt/core.h>

#include "core/notify/contact_codec.hpp"
#include "delivery/notifier.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using namespace foyer::notify;
using foyer::test::journal_fixture;
using foyer::test::test_room;

namespace {

namespace net = boost::asio;

const push_subscription subscription{"https://push.example.net/s/1", std::string(87, 'B'), std::string(22, 'A')};

std::uint64_t count(const contact_book& book, channel ch, outcome o) {
  return book.outcomes()[static_cast<std::size_t>(ch)][static_cast<std::size_t>(o)];
}

// Three visitors of a room that admits one a second: each is due a "soon" notice at once.
struct notifier_fixture : journal_fixture {
  net::io_context ioc;
  contact_book book{100, digest{}};
  std::vector<notice> sent;

  notifier_fixture() {
    start({test_room("hall", 60)});
    for (std::uint8_t i = 0; i < 3; ++i) {
      join("hall");
      id16 v{};
      v[0] = i;
      auto address = "v" + std::to_string(i) + "@example.com";
      REQUIRE(book.add("hall", v, i, std::nullopt, email_contact{address, "https://queue.example/r/hall/resume/T", {}}));
      REQUIRE(book.add("hall", v, i, std::nullopt, subscription));
    }
  }

  delivery::notifier::send_function answering(outcome o) {
    return [this, o](const notice& n) -> net::awaitable<outcome> {
      sent.push_back(n);
      co_return o;
    };
  }

  // Sends that get their answer `o` once `gate` is cancelled (a service slow to accept).
  net::steady_timer gate{ioc, net::steady_timer::time_point::max()};
  delivery::notifier::send_function answering_later(outcome o) {
    return [this, o](const notice& n) -> net::awaitable<outcome> {
      sent.push_back(n);
      boost::system::error_code ec;
      co_await gate.async_wait(net::redirect_error(net::use_awaitable, ec));
      co_return o;
    };
  }

  // Sends that hang until `gate` is cancelled (then fail) for endpoints starting with
  // https://hang, and are accepted at once for the others, whose endpoints go to `delivered`.
  std::vector<std::string> delivered;
  delivery::notifier::send_function hanging_at_hang_hosts() {
    return [this](const notice& n) -> net::awaitable<outcome> {
      sent.push_back(n);
      auto& endpoint = std::get<push_subscription>(n.to).endpoint;
      if (endpoint.starts_with("https://hang")) {
        boost::system::error_code ec;
        co_await gate.async_wait(net::redirect_error(net::use_awaitable, ec));
        co_return outcome::failed;
      }
      delivered.push_back(endpoint);
      co_return outcome::delivered;
    };
  }

  // The turn_notified events in the log, as (place, at).
  std::vector<std::pair<std::uint64_t, std::int64_t>> told() {
    std::vector<std::pair<std::uint64_t, std::int64_t>> out;
    for (const auto& bytes : store.recover().events) {
      auto e = decode_event(bytes);
      if (auto* t = e ? std::get_if<turn_notified>(&*e) : nullptr) out.emplace_back(t->place, t->at_ms);
    }
    return out;
  }
};

delivery::notifier::options quick(std::size_t queue, unsigned attempts) {
  delivery::notifier::options o;
  o.queue_capacity = queue;
  o.max_attempts = attempts;
  o.retry_base = std::chrono::milliseconds(1);
  o.retry_max = std::chrono::milliseconds(2);
  o.period = std::chrono::milliseconds(5);
  return o;
}

}  // namespace

TEST_CASE_METHOD(notifier_fixture, "failures are retried a bounded number of times, a full queue drops its oldest") {
  delivery::notifier notices(ioc, clock, *rooms, book, store, quick(/*queue=*/2, /*attempts=*/3));
  notices.set_sender(channel::email, answering(outcome::failed));
  notices.set_sender(channel::push, answering(outcome::delivered));
  notices.start();
  ioc.run_for(std::chrono::milliseconds(300));
  notices.stop();

  // Three notices into a queue of two: one dropped at once; the other two tried three times each.
  CHECK(count(book, channel::email, outcome::failed) == 6);
  CHECK(count(book, channel::email, outcome::dropped) == 3);
  CHECK(count(book, channel::email, outcome::delivered) == 0);
  CHECK(notices.queued(channel::email) == 0);
  // Push, full too, delivered what it kept; one "soon" each, never sent twice.
  CHECK(count(book, channel::push, outcome::delivered) == 2);
  CHECK(count(book, channel::push, outcome::dropped) == 1);
  CHECK(book.counts("hall").delivered[0] == 2);
  CHECK(sent.size() == 8);
}

TEST_CASE_METHOD(notifier_fixture, "a gone subscription is forgotten; a channel without a sender holds its notices") {
  delivery::notifier notices(ioc, clock, *rooms, book, store, quick(/*queue=*/10, /*attempts=*/3));
  notices.set_sender(channel::push, answering(outcome::gone));
  notices.start();
  ioc.run_for(std::chrono::milliseconds(100));

  CHECK(count(book, channel::push, outcome::gone) == 3);
  CHECK(book.counts("hall").held == per_channel{0, 3});
  id16 first{};
  CHECK_FALSE(book.find("hall", first, channel::push));
  CHECK(book.find("hall", first, channel::email));
  CHECK(notices.queued(channel::email) == 3);
  CHECK(count(book, channel::email, outcome::dropped) == 0);
  notices.stop();
  CHECK(notices.queued(channel::email) == 0);  // stopping forgets what waits
  // The store holds what the book does: the addresses, and "soon" sent; no subscription.
  REQUIRE(store.contacts().size() == 3);
  for (const auto& record : store.contacts()) {
    auto r = decode_contact_record(record.second);
    REQUIRE(r);
    CHECK_FALSE(r->push);
    CHECK(r->email);
    CHECK(r->soon_sent);
  }
}

TEST_CASE_METHOD(notifier_fixture, "a failed write of the book's changes is tried again at the next pass") {
  test::memory_store contacts{[this](std::function<void()> f) { net::post(ioc, std::move(f)); }};
  contacts.fail_next_writes(1);
  delivery::notifier notices(ioc, clock, *rooms, book, contacts, quick(/*queue=*/10, /*attempts=*/3));
  notices.set_sender(channel::push, answering(outcome::delivered));
  notices.set_sender(channel::email, answering(outcome::delivered));
  notices.start();
  ioc.run_for(std::chrono::milliseconds(100));
  notices.stop();

  REQUIRE(contacts.contacts().size() == 3);
  for (const auto& record : contacts.contacts()) {
    auto r = decode_contact_record(record.second);
    REQUIRE(r);
    CHECK(r->push == subscription);
    CHECK(r->soon_sent);
  }
}

TEST_CASE_METHOD(notifier_fixture, "\"it's your turn\" starts the claim window once it is accepted, once; one too late is not sent") {
  clock.advance_ms(2'000);
  REQUIRE(tick("hall"));
  auto admitted_at = clock.steady_ms();
  REQUIRE(rooms->find("hall")->served(admitted_at) == 2);
  // Place 1 came back by themselves: their pass is claimed before any notice leaves.
  REQUIRE_FALSE(commit(pass_claimed{"hall", 1, id16{7}, clock.now_ms()}).first);
  // The notices go out five minutes after places 0 and 1 were admitted, half their window.
  clock.advance_ms(300'000);
  delivery::notifier notices(ioc, clock, *rooms, book, store, quick(/*queue=*/10, /*attempts=*/3));
  notices.set_sender(channel::email, answering_later(outcome::delivered));
  notices.set_sender(channel::push, answering_later(outcome::delivered));
  notices.start();
  ioc.run_for(std::chrono::milliseconds(50));
  drain();
  // On their way, all four at once, not yet accepted: nobody is told.
  CHECK(std::count_if(sent.begin(), sent.end(), [](const notice& n) { return n.kind == notice_kind::turn; }) == 4);
  CHECK(told().empty());
  // The relay and the push service accept them 20 s later: the window runs from then.
  clock.advance_ms(20'000);
  auto accepted_at = clock.steady_ms();
  gate.cancel();
  ioc.run_for(std::chrono::milliseconds(50));
  notices.stop();
  drain();

  // Two notices each for places 0 and 2, one event each, at their acceptance; none for place 1.
  CHECK(told() == std::vector<std::pair<std::uint64_t, std::int64_t>>{{0, accepted_at}, {2, accepted_at}});
  CHECK(count(book, channel::push, outcome::stale) == 1);
  CHECK(count(book, channel::email, outcome::stale) == 1);
  CHECK(std::none_of(sent.begin(), sent.end(), [](const notice& n) { return n.place == 1; }));
  // Past the window from the admission, within the one from the acceptance: still theirs.
  CHECK(rooms->find("hall")->claimable(0, admitted_at + 600'000 + 1));
  CHECK(rooms->find("hall")->claimable(0, accepted_at + 600'000 - 1));
  CHECK_FALSE(rooms->find("hall")->claimable(0, accepted_at + 600'000));
}

TEST_CASE_METHOD(notifier_fixture, "\"it's your turn\" refused on every attempt tells nobody: no event, counted refused") {
  clock.advance_ms(2'000);
  REQUIRE(tick("hall"));
  auto admitted_at = clock.steady_ms();
  delivery::notifier notices(ioc, clock, *rooms, book, store, quick(/*queue=*/10, /*attempts=*/3));
  notices.set_sender(channel::email, answering(outcome::failed));
  notices.set_sender(channel::push, answering(outcome::refused));
  notices.start();
  ioc.run_for(std::chrono::milliseconds(200));
  notices.stop();
  drain();

  CHECK(told().empty());
  // Places 0 and 1 were due their turn, place 2 its "soon": every one refused or dropped.
  CHECK(count(book, channel::email, outcome::failed) == 9);
  CHECK(count(book, channel::email, outcome::dropped) == 3);
  CHECK(book.counts("hall").refused == per_channel{3, 3});
  CHECK(book.counts("hall").delivered == per_channel{0, 0});
  // Their window runs from the admission, as for a visitor nobody told.
  CHECK_FALSE(rooms->find("hall")->claimable(0, admitted_at + 600'000));
  clock.advance_ms(600'000);
  REQUIRE(tick("hall"));
  book.plan(*rooms, clock.steady_ms(), 300);
  CHECK(book.notified_no_shows() == 0);
}

TEST_CASE_METHOD(notifier_fixture, "a push service that never answers holds its share of the sends; the others go by") {
  // Forty more visitors whose endpoints all hang at one service, opted in before the three.
  contact_book crowd{100, digest{}};
  for (std::uint8_t i = 0; i < 40; ++i) join("hall");
  for (std::uint8_t i = 0; i < 43; ++i) {
    id16 v{};
    v[0] = i;
    auto s = subscription;
    if (i >= 3) s.endpoint = "https://hang.example.org/s/" + std::to_string(i);
    REQUIRE(crowd.add("hall", v, i, std::nullopt, s));
  }
  delivery::notifier notices(ioc, clock, *rooms, crowd, store, quick(/*queue=*/100, /*attempts=*/3));
  notices.set_sender(channel::push, hanging_at_hang_hosts());
  notices.start();
  ioc.run_for(std::chrono::milliseconds(50));
  // quick() sends 32 at once, a quarter of them (8) per service: the hanging service holds 8,
  // its other 32 notices wait, and the three visitors of push.example.net are told.
  CHECK(delivered.size() == 3);
  CHECK(std::count_if(sent.begin(), sent.end(), [](const notice& n) {
          return std::get<push_subscription>(n.to).endpoint.starts_with("https://hang.");
        }) == 8);
  CHECK(notices.queued(channel::push) == 32);
  gate.cancel();
  notices.stop();
}

TEST_CASE_METHOD(notifier_fixture, "services that hang hold every shared send: a fresh notice to an idle service goes at once") {
  // Four push services, ten hanging endpoints each: with a quarter of the 32 sends each they take all 32.
  contact_book crowd{100, digest{}};
  for (std::uint8_t i = 0; i < 38; ++i) join("hall");
  for (std::uint8_t i = 0; i < 40; ++i) {
    id16 v{};
    v[0] = i;
    auto s = subscription;
    s.endpoint = fmt::format("https://hang{}.example.org/s/{}", i % 4, i);
    REQUIRE(crowd.add("hall", v, i, std::nullopt, s));
  }
  delivery::notifier notices(ioc, clock, *rooms, crowd, store, quick(/*queue=*/100, /*attempts=*/3));
  notices.set_sender(channel::push, hanging_at_hang_hosts());
  notices.start();
  ioc.run_for(std::chrono::milliseconds(30));
  CHECK(notices.queued(channel::push) == 8);
  // Then a visitor of a working service opts in: told at the next pass, not a deadline later.
  id16 fresh{};
  fresh[0] = 40;
  REQUIRE(crowd.add("hall", fresh, 40, std::nullopt, subscription));
  ioc.run_for(std::chrono::milliseconds(30));
  CHECK(delivered == std::vector<std::string>{subscription.endpoint});
  // An idle service starts one send, never more: the hanging ones keep their 32.
  CHECK(notices.queued(channel::push) == 8);
  gate.cancel();
  notices.stop();
}
