#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "core/lanes/lane_place.hpp"
#include "core/notify/contact_book.hpp"
#include "core/notify/contact_codec.hpp"
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
  contact_book book{100, digest{}};

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

const email_contact ada{"ada@example.com", "https://queue.example/r/hall/resume/T", {}};

// The changes taken, as key -> value (nullopt: deleted).
std::map<std::string, std::optional<std::string>> taken(contact_book& book) {
  std::map<std::string, std::optional<std::string>> out;
  for (auto& c : book.take_changes()) out.emplace(std::move(c.key), std::move(c.value));
  return out;
}

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
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, email_contact{"ada@example.com", "https://queue.example/r/hall/resume/T", {}}));
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
  book.record("hall", channel::push, notice_kind::soon, outcome::delivered);
  book.record("hall", channel::email, notice_kind::soon, outcome::failed);
  CHECK(book.counts("hall").delivered == per_channel{1, 0});
  CHECK(book.outcomes()[1][static_cast<std::size_t>(outcome::failed)] == 1);
  // The push was accepted: told, as turn_notified says.
  book.told("hall", 399);
  book.told("hall", 399);  // the email too: one visitor told

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
  book.told("hall", *place);
  // Never claimed: once the lane's claim window closed, a notified no-show of the lane.
  wait(620);
  plan();
  CHECK(book.counts("hall").notified_no_shows == 1);
}

TEST_CASE_METHOD(book_fixture, "a turn notice never accepted is counted refused, and its visitor is no notified no-show") {
  open_with(1);
  REQUIRE(book.add("hall", visitor_of(1), 0, std::nullopt, ada));
  wait(2);
  auto turn = plan();
  REQUIRE(turn.size() == 1);
  REQUIRE(turn[0].kind == notice_kind::turn);
  // The relay answered 451 to every attempt: the outbox dropped it.
  for (int i = 0; i < 5; ++i) book.record("hall", channel::email, notice_kind::soon, outcome::failed);
  book.record("hall", channel::email, notice_kind::soon, outcome::dropped);
  CHECK(book.counts("hall").refused == per_channel{0, 1});
  CHECK(book.counts("hall").delivered == per_channel{0, 0});
  wait(620);
  plan();
  CHECK(rooms->find("hall")->no_shows() == 1);
  CHECK(book.counts("hall").notified_no_shows == 0);
  CHECK(book.notified_no_shows() == 0);
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
  contact_book before{100, digest{}}, after{100, digest{}};
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
  contact_book small{2, digest{}};
  CHECK(small.add("hall", visitor_of(1), 5, std::nullopt, subscription));
  CHECK(small.add("hall", visitor_of(1), 5, std::nullopt, subscription));  // replaced, not another
  CHECK(small.add("hall", visitor_of(2), 6, std::nullopt, email_contact{"b@example.com", "https://queue.example/r/hall/resume/T", {}}));
  CHECK_FALSE(small.add("hall", visitor_of(3), 7, std::nullopt, subscription));
  CHECK(small.counts("hall").held == per_channel{1, 1});
  CHECK(small.counts("hall").opted_in == per_channel{1, 1});

  small.forget("hall", visitor_of(1), channel::push);
  CHECK_FALSE(small.find("hall", visitor_of(1), channel::push));
  CHECK(small.remove("hall", visitor_of(2)));
  CHECK_FALSE(small.remove("hall", visitor_of(2)));
  CHECK(small.size() == 0);

  // A room that is gone takes its contacts along at the next plan.
  CHECK(small.add("removed", visitor_of(4), 0, std::nullopt, email_contact{"d@example.com", "https://queue.example/r/hall/resume/T", {}}));
  CHECK(small.size() == 1);
  CHECK(small.plan(*rooms, clock.steady_ms(), soon_seconds).empty());
  CHECK(small.size() == 0);
  CHECK(small.counts("removed").opted_in == per_channel{0, 0});
}

TEST_CASE("a pushed notice names the room and its page at the public address, never the visitor") {
  notice soon{"hall", visitor_of(7), 7, notice_kind::soon, 4, subscription};
  auto at = *public_origin::parse("https://queue.example:8443");
  CHECK(push_payload(soon, "The Hall", at) ==
        R"({"kind":"soon","room":"hall","title":"Your turn is near","body":"The Hall: your turn in about 4 minutes.","minutes":4,"url":"https://queue.example:8443/r/hall"})");
  notice turn{"hall", visitor_of(7), 7, notice_kind::turn, 0, email_contact{"ada@example.com", "https://queue.example/r/hall/resume/T", {}}};
  CHECK(push_payload(turn, "The Hall", at) ==
        R"({"kind":"turn","room":"hall","title":"It's your turn","body":"The Hall: it's your turn. Open the page to go through.","url":"https://queue.example:8443/r/hall"})");
}

TEST_CASE_METHOD(book_fixture, "a stored record restores the visitor's contacts, and the book goes on as before") {
  open_with(400);
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, subscription));
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, ada));
  REQUIRE(book.add("hall", visitor_of(2), std::nullopt, 7, ada));
  wait(120);
  REQUIRE(plan().size() == 2);  // "soon" for visitor 1, both channels
  auto records = taken(book);
  REQUIRE(records.size() == 2);

  // A restart: the records, written, come back into a new book.
  contact_book restored{100, digest{}};
  for (const auto& [key, value] : records) REQUIRE(restored.restore(key, *value));
  CHECK(restored.find("hall", visitor_of(1), channel::push) == contact{subscription});
  CHECK(restored.find("hall", visitor_of(1), channel::email) == contact{ada});
  CHECK(restored.find("hall", visitor_of(2), channel::email) == contact{ada});
  CHECK(restored.counts("hall").held == per_channel{1, 2});
  CHECK(restored.counts("hall").opted_in == per_channel{1, 2});
  CHECK(restored.take_changes().empty());  // already stored
  CHECK(restored.stored("hall", visitor_of(2)) == records.at(encode_contact_key("hall", visitor_of(2))));
  // "Soon" was sent before the restart: not again; "turn" once it comes.
  CHECK(restored.plan(*rooms, clock.steady_ms(), soon_seconds).empty());
  wait(281);
  auto turn = restored.plan(*rooms, clock.steady_ms(), soon_seconds);
  REQUIRE(turn.size() == 2);
  CHECK(turn[0].kind == notice_kind::turn);
  // Restored twice (the same key again) is refused: one entry per visitor.
  CHECK_FALSE(restored.restore(encode_contact_key("hall", visitor_of(2)), *records.at(encode_contact_key("hall", visitor_of(2)))));
}

TEST_CASE("malformed records are refused, never trusted") {
  contact_record good;
  good.place = 3;
  good.email = ada;
  const auto key = encode_contact_key("hall", visitor_of(1));
  const auto value = encode_contact_record(good);
  REQUIRE(decode_contact_record(value) == good);
  REQUIRE(decode_contact_key(key) == std::pair{std::string("hall"), visitor_of(1)});

  contact_book book{100, digest{}};
  auto refused = [&](std::string_view k, std::string_view v) { return !book.restore(k, v); };
  // An address awaiting confirmation round-trips; the flag without an address, or with an
  // empty link, is refused.
  auto awaiting = good;
  awaiting.email->confirm_link = "https://queue.example/r/hall/notify/confirm/" + std::string(64, 'a');
  CHECK(decode_contact_record(encode_contact_record(awaiting)) == awaiting);
  contact_record flag_only;
  flag_only.push = subscription;
  auto flagged = encode_contact_record(flag_only);
  flagged[1] = static_cast<char>(flagged[1] | 32);
  CHECK(refused(key, flagged));
  auto empty_link = encode_contact_record(good);
  empty_link[1] = static_cast<char>(empty_link[1] | 32);
  CHECK(refused(key, empty_link + std::string(4, '\0')));
  CHECK(refused(key, value.substr(0, value.size() - 1)));  // truncated
  CHECK(refused(key, value + "x"));                        // trailing bytes
  CHECK(refused(key, ""));
  auto flipped = value;
  flipped[0] = 2;  // another version
  CHECK(refused(key, flipped));
  flipped = value;
  flipped[1] = static_cast<char>(flipped[1] | 0x40);  // an unknown flag
  CHECK(refused(key, flipped));
  contact_record none;
  none.place = 3;
  CHECK(refused(key, encode_contact_record(none)));  // no contact at all
  contact_record long_endpoint;
  long_endpoint.push = push_subscription{std::string(max_push_endpoint_bytes + 1, 'e'), "k", "a"};
  CHECK(refused(key, encode_contact_record(long_endpoint)));
  contact_record long_link = good;
  long_link.email->link = std::string(max_contact_link_bytes + 1, 'l');
  CHECK(refused(key, encode_contact_record(long_link)));
  // A length that runs past the end.
  auto overrun = value.substr(0, 10) + std::string("\xff\xff\xff\xff", 4);
  CHECK(refused(key, overrun));

  CHECK(refused("hall", value));                                           // no visitor
  CHECK(refused(key.substr(0, key.size() - 1), value));                    // a byte short
  CHECK(refused(encode_contact_key("", visitor_of(1)), value));            // no room
  CHECK(refused(encode_contact_key(std::string(65, 'r'), visitor_of(1)), value));
  CHECK(refused(std::string("ha\0l", 4) + key.substr(4), value));  // the separator misplaced
  CHECK(book.size() == 0);
  CHECK(book.restore(key, value));
  CHECK(book.size() == 1);
}

TEST_CASE_METHOD(book_fixture, "every change the book makes is recorded, once, as the record is then") {
  open_with(400);
  const auto one = encode_contact_key("hall", visitor_of(1));
  const auto two = encode_contact_key("hall", visitor_of(2));
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, subscription));
  REQUIRE(book.add("hall", visitor_of(2), 5, std::nullopt, subscription));
  REQUIRE(book.add("hall", visitor_of(2), 5, std::nullopt, ada));
  auto records = taken(book);
  REQUIRE(records.size() == 2);
  CHECK(decode_contact_record(*records.at(one))->push == subscription);
  CHECK(decode_contact_record(*records.at(two))->email == ada);
  CHECK(book.take_changes().empty());

  // The same subscription again (a page reload) changes nothing; a new one does.
  CHECK_FALSE(book.decide_add("hall", visitor_of(1), 399, std::nullopt, subscription).write);
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, subscription));
  CHECK(book.take_changes().empty());
  auto renewed = subscription;
  renewed.endpoint += "-renewed";
  REQUIRE(book.add("hall", visitor_of(1), 399, std::nullopt, renewed));
  book.forget("hall", visitor_of(2), channel::push);
  records = taken(book);
  REQUIRE(records.size() == 2);
  CHECK(decode_contact_record(*records.at(one))->push == renewed);
  CHECK_FALSE(decode_contact_record(*records.at(two))->push);  // forgotten, the address kept

  // A failed write is taken again, as the book is then.
  book.unwritten({{one, std::nullopt}});
  CHECK(taken(book) == std::map<std::string, std::optional<std::string>>{{one, book.stored("hall", visitor_of(1))}});
  book.forget("hall", visitor_of(2), channel::email);
  CHECK(taken(book) == std::map<std::string, std::optional<std::string>>{{two, std::nullopt}});

  // Opt-out deletes; "soon" keeps the record, marked; "turn" deletes it.
  REQUIRE(book.add("hall", visitor_of(3), 6, std::nullopt, ada));
  CHECK(book.remove("hall", visitor_of(3)));
  CHECK(taken(book) == std::map<std::string, std::optional<std::string>>{{encode_contact_key("hall", visitor_of(3)), std::nullopt}});
  wait(120);
  REQUIRE(plan().size() == 1);
  records = taken(book);
  REQUIRE(records.size() == 1);
  CHECK(decode_contact_record(*records.at(one))->soon_sent);
  CHECK(plan().empty());
  CHECK(book.take_changes().empty());
  wait(281);
  REQUIRE(plan().size() == 1);
  CHECK(taken(book) == std::map<std::string, std::optional<std::string>>{{one, std::nullopt}});

  // A room that is gone takes its records along.
  REQUIRE(book.add("removed", visitor_of(4), 0, std::nullopt, ada));
  REQUIRE(book.add("removed", visitor_of(5), 1, std::nullopt, ada));
  book.take_changes();
  plan();
  CHECK(taken(book) == std::map<std::string, std::optional<std::string>>{
                           {encode_contact_key("removed", visitor_of(4)), std::nullopt},
                           {encode_contact_key("removed", visitor_of(5)), std::nullopt}});
}

TEST_CASE_METHOD(book_fixture, "an opt-in or opt-out is decided without changing the book: the record to write, or why not") {
  open_with(10);
  REQUIRE(book.add("hall", visitor_of(1), 5, std::nullopt, subscription));
  book.take_changes();
  auto before = book.stored("hall", visitor_of(1));

  // A new address: the record it would make, and the book unchanged until it is applied.
  auto decided = book.decide_add("hall", visitor_of(1), 5, std::nullopt, ada);
  REQUIRE_FALSE(decided.refused);
  REQUIRE(decided.write);
  CHECK(decided.write->key == encode_contact_key("hall", visitor_of(1)));
  CHECK_FALSE(book.find("hall", visitor_of(1), channel::email));
  CHECK(book.stored("hall", visitor_of(1)) == before);
  CHECK(book.counts("hall").opted_in == per_channel{1, 0});
  CHECK(book.take_changes().empty());
  // Applied once durable: the book holds what was written.
  REQUIRE(book.add("hall", visitor_of(1), 5, std::nullopt, ada));
  CHECK(book.stored("hall", visitor_of(1)) == decided.write->value);
  CHECK(book.counts("hall").opted_in == per_channel{1, 1});

  // An opt-out: the record deleted, once applied; none held, nothing to write.
  auto out = book.decide_remove("hall", visitor_of(1));
  REQUIRE(out.write);
  CHECK_FALSE(out.write->value);
  CHECK(book.stored("hall", visitor_of(1)));
  CHECK(book.remove("hall", visitor_of(1)));
  CHECK_FALSE(book.decide_remove("hall", visitor_of(1)).write);
  CHECK_FALSE(book.decide_remove("hall", visitor_of(9)).write);
}

TEST_CASE_METHOD(book_fixture, "one address per ticket and room, even after an opt-out; an address is mailed each kind once") {
  open_with(10);
  const email_contact other{"someone.else@example.org", ada.link, {}};
  REQUIRE(book.add("hall", visitor_of(1), 0, std::nullopt, ada));
  // The same address again is the same opt-in; the case of its letters makes no other.
  CHECK_FALSE(book.decide_add("hall", visitor_of(1), 0, std::nullopt, ada).refused);
  CHECK_FALSE(book.decide_add("hall", visitor_of(1), 0, std::nullopt, email_contact{"ADA@Example.com", ada.link, {}}).refused);
  CHECK(book.decide_add("hall", visitor_of(1), 0, std::nullopt, other).refused == opt_in_refusal::address_taken);
  CHECK_FALSE(book.add("hall", visitor_of(1), 0, std::nullopt, other));
  REQUIRE(book.remove("hall", visitor_of(1)));
  CHECK(book.decide_add("hall", visitor_of(1), 0, std::nullopt, other).refused == opt_in_refusal::address_taken);
  // A push subscription is the visitor's own browser's: it may be renewed.
  CHECK_FALSE(book.decide_add("hall", visitor_of(1), 0, std::nullopt, subscription).refused);
  // Another room is another ticket.
  CHECK(book.add("other", visitor_of(1), 0, std::nullopt, other));

  // Three tickets give the same address: it hears "soon" once and "turn" once.
  for (std::uint8_t v = 2; v < 5; ++v) REQUIRE(book.add("hall", visitor_of(v), v, std::nullopt, ada));
  auto due = plan();
  CHECK(std::count_if(due.begin(), due.end(), [](const notice& n) { return n.kind == notice_kind::soon; }) == 1);
  wait(5);
  due = plan();
  REQUIRE(due.size() == 1);
  CHECK(due[0].kind == notice_kind::turn);
  CHECK(book.counts("hall").sent == per_channel{0, 2});

  // Addresses are bounded with the contacts: twice max_per_room per room, then none new.
  contact_book small{1, digest{}};
  REQUIRE(small.add("hall", visitor_of(1), 0, std::nullopt, ada));
  REQUIRE(small.remove("hall", visitor_of(1)));
  REQUIRE(small.add("hall", visitor_of(2), 1, std::nullopt, other));
  REQUIRE(small.remove("hall", visitor_of(2)));
  CHECK(small.decide_add("hall", visitor_of(3), 2, std::nullopt, email_contact{"third@example.org", ada.link, {}}).refused ==
        opt_in_refusal::room_full);
  CHECK_FALSE(small.decide_add("hall", visitor_of(3), 2, std::nullopt, subscription).refused);
}

// With [notifications] confirm: each ticket's address awaits the confirmation of that ticket.
struct confirming_fixture : book_fixture {
  contact_book confirming{100, digest{}, /*confirm=*/true};

  email_contact awaiting(const email_contact& c, std::uint8_t visitor) {
    auto out = c;
    out.confirm_link = "https://queue.example" + confirming.confirm_path("hall", c.address, visitor_of(visitor));
    return out;
  }
  static std::string token_of(const email_contact& c) { return c.confirm_link.substr(c.confirm_link.rfind('/') + 1); }
  std::vector<notice> plan_confirming() { return confirming.plan(*rooms, clock.steady_ms(), soon_seconds); }
};

TEST_CASE_METHOD(confirming_fixture, "a ticket awaiting confirmation gets one confirmation mail, and notices only once confirmed") {
  open_with(10);
  auto path = confirming.confirm_path("hall", "ada@example.com", visitor_of(1));
  REQUIRE(path.starts_with("/r/hall/notify/confirm/"));
  auto token = path.substr(path.rfind('/') + 1);
  CHECK(token.size() == 64);
  CHECK(path.find("ada") == std::string::npos);
  auto first = awaiting(ada, 1);
  REQUIRE(confirming.add("hall", visitor_of(1), 1, std::nullopt, first));
  auto due = plan_confirming();
  REQUIRE(due.size() == 1);
  CHECK(due[0].kind == notice_kind::confirm);
  CHECK(std::get<email_contact>(due[0].to).confirm_link == first.confirm_link);
  CHECK(plan_confirming().empty());
  // The same opt-in again (a page reload) changes nothing and mails nothing.
  CHECK_FALSE(confirming.decide_add("hall", visitor_of(1), 1, std::nullopt, first).write);
  REQUIRE(confirming.add("hall", visitor_of(1), 1, std::nullopt, first));
  CHECK(plan_confirming().empty());
  // Kept as awaiting in the store, and so restored: its link still confirms it.
  auto records = taken(confirming);
  auto key = encode_contact_key("hall", visitor_of(1));
  CHECK(decode_contact_record(*records.at(key))->email == first);
  contact_book restarted{100, digest{}, /*confirm=*/true};
  REQUIRE(restarted.restore(key, *records.at(key)));
  CHECK(restarted.decide_confirm("hall", token)->size() == 1);

  // A token for another room, another ticket, or altered, confirms nothing.
  CHECK_FALSE(confirming.decide_confirm("other", token));
  CHECK_FALSE(confirming.decide_confirm("hall", token_of(awaiting(ada, 2))));
  auto altered = token;
  altered[40] = altered[40] == '0' ? '1' : '0';
  CHECK_FALSE(confirming.decide_confirm("hall", altered));
  CHECK_FALSE(confirming.confirm("hall", altered));
  CHECK_FALSE(confirming.decide_confirm("hall", token.substr(1)));

  // Decided first, changing nothing; then confirmed: that ticket's record.
  auto writes = confirming.decide_confirm("hall", token);
  REQUIRE(writes);
  REQUIRE(writes->size() == 1);
  CHECK(decode_contact_record(*writes->at(0).value)->email == ada);
  CHECK(confirming.find("hall", visitor_of(1), channel::email) == contact{first});
  CHECK(confirming.confirm("hall", token));
  CHECK(confirming.find("hall", visitor_of(1), channel::email) == contact{ada});
  CHECK(confirming.decide_confirm("hall", token)->empty());
  // Opting in the same address again keeps the confirmation.
  CHECK_FALSE(confirming.decide_add("hall", visitor_of(1), 1, std::nullopt, first).write);
  wait(2);
  due = plan_confirming();
  REQUIRE(due.size() == 1);
  CHECK(due[0].kind == notice_kind::turn);
}

TEST_CASE_METHOD(confirming_fixture, "an address opted in first by another ticket can't take its holder's confirmation or turn mail") {
  open_with(1000);
  // The attacker's ticket (place 900) names the victim's address first; its confirmation mail goes.
  auto attackers = awaiting(ada, 1);
  REQUIRE(confirming.add("hall", visitor_of(1), 900, std::nullopt, attackers));
  auto due = plan_confirming();
  REQUIRE(due.size() == 1);
  CHECK(due[0].visitor == visitor_of(1));
  // The victim's own ticket (place 901): its mail waits out the spacing, not forever.
  auto own = awaiting(ada, 2);
  REQUIRE(confirming.add("hall", visitor_of(2), 901, std::nullopt, own));
  CHECK(plan_confirming().empty());
  // The victim confirms the first mail they got (the attacker's): that ticket only.
  REQUIRE(confirming.confirm("hall", token_of(attackers)));
  CHECK(confirming.find("hall", visitor_of(2), channel::email) == contact{own});
  wait(610);
  due = plan_confirming();
  // Their own confirmation mail, and the attacker's "soon"; nothing for the unconfirmed ticket.
  REQUIRE(due.size() == 2);
  CHECK(due[0].kind == notice_kind::confirm);
  CHECK(due[0].visitor == visitor_of(2));
  CHECK(due[1].kind == notice_kind::soon);
  CHECK(due[1].visitor == visitor_of(1));
  // Its "soon" came while it awaited confirmation: not sent, and not sent later.
  REQUIRE(confirming.confirm("hall", token_of(own)));
  CHECK(plan_confirming().empty());
  // Both turns come: the attacker's turn mail does not use up the victim's.
  wait(302);
  due = plan_confirming();
  REQUIRE(due.size() == 2);
  CHECK(due[0].kind == notice_kind::turn);
  CHECK(due[0].visitor == visitor_of(1));
  CHECK(due[1].kind == notice_kind::turn);
  CHECK(due[1].visitor == visitor_of(2));
}

TEST_CASE_METHOD(book_fixture, "without confirmation an address hears one soon and one turn per room: the first ticket's") {
  open_with(10);
  REQUIRE(book.add("hall", visitor_of(1), 1, std::nullopt, ada));
  REQUIRE(book.add("hall", visitor_of(2), 2, std::nullopt, ada));
  wait(3);
  auto due = plan();
  REQUIRE(due.size() == 1);
  CHECK(due[0].kind == notice_kind::turn);
  CHECK(due[0].visitor == visitor_of(1));
}

TEST_CASE_METHOD(book_fixture, "a channel the server no longer sends on loses its contacts; the other channel's stay") {
  open_with(400);
  REQUIRE(book.add("hall", visitor_of(1), 1, std::nullopt, subscription));
  REQUIRE(book.add("hall", visitor_of(1), 1, std::nullopt, ada));
  REQUIRE(book.add("hall", visitor_of(2), 2, std::nullopt, subscription));
  book.take_changes();
  book.forget_channel(channel::push);
  CHECK(book.size() == 1);
  CHECK(book.counts("hall").held == per_channel{0, 1});
  CHECK_FALSE(book.find("hall", visitor_of(1), channel::push));
  CHECK(book.find("hall", visitor_of(1), channel::email));
  auto records = taken(book);
  REQUIRE(records.size() == 2);
  CHECK(records.at(encode_contact_key("hall", visitor_of(2))) == std::nullopt);
  CHECK(decode_contact_record(*records.at(encode_contact_key("hall", visitor_of(1))))->email == ada);
}

TEST_CASE_METHOD(book_fixture, "confirmation mails are counted apart from the notices") {
  open_with(10);
  auto awaiting = ada;
  awaiting.confirm_link = "https://queue.example" + book.confirm_path("hall", ada.address, visitor_of(1));
  REQUIRE(book.add("hall", visitor_of(1), 1, std::nullopt, awaiting));
  auto due = plan();
  REQUIRE(due.size() == 1);
  REQUIRE(due[0].kind == notice_kind::confirm);
  book.record("hall", channel::email, notice_kind::confirm, outcome::delivered);
  auto counts = book.counts("hall");
  CHECK(counts.sent == per_channel{0, 0});
  CHECK(counts.delivered == per_channel{0, 0});
  CHECK(counts.confirmations_sent == 1);
  CHECK(counts.confirmations_delivered == 1);
  book.record("hall", channel::email, notice_kind::confirm, outcome::refused);
  CHECK(book.counts("hall").refused == per_channel{0, 0});
  // And in the metrics' counts: apart from the notices'.
  CHECK(book.outcomes()[1][static_cast<std::size_t>(outcome::delivered)] == 0);
  CHECK(book.confirmation_outcomes()[static_cast<std::size_t>(outcome::delivered)] == 1);
  CHECK(book.confirmation_outcomes()[static_cast<std::size_t>(outcome::refused)] == 1);
}
