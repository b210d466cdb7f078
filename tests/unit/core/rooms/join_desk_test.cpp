#include <catch2/catch.hpp>

#include <deque>

#include <fmt/format.h>
#include <sodium.h>

#include "core/gate/account_hint.hpp"
#include "core/rooms/join_desk.hpp"
#include "support/journal_fixture.hpp"

using namespace foyer;
using foyer::test::test_room;

namespace {

constexpr std::string_view account_secret = "account-secret-0123456789";

pow::config priced() {
  pow::config c;
  c.base_bits = 4;  // cheap to solve in a test, but not free
  c.puzzles = 2;
  return c;
}

struct desk_fixture : foyer::test::journal_fixture {
  byte_vector secret = byte_vector(32, 7);
  join_price price{secret, priced(), static_cast<std::uint64_t>(start_ms), network_rules{}};
  join_desk desk{price, std::string(account_secret)};
  ip_address client = *parse_ip("203.0.113.7");
  std::uint8_t next_id = 0;

  join_request solved_request(const std::string& room) {
    join_request req;
    req.room_id = room;
    req.address = client;
    // Kept for the test's length: the request only views them.
    const auto& token = texts.emplace_back(price.authority.mint(room, network_of(client), clock.now_ms(), 0).token);
    req.challenge = token;
    req.nonce = texts.emplace_back(pow::solve(token));
    req.ids[0] = ++next_id;
    return req;
  }
  std::deque<std::string> texts;

  // decide, commit what it says, finish: the handler's part.
  join_step run(const join_request& req) { return run(req, desk); }
  join_step run(const join_request& req, join_desk& with) {
    auto step = with.decide(*rooms, req, clock.now_ms());
    auto* c = std::get_if<join_commit>(&step);
    if (!c) return step;
    auto [ec, outcome] = commit(c->event);
    return with.finish(*rooms, *c, ec, outcome, clock.now_ms());
  }
};

const desk_refusal& refused(const join_step& s) {
  REQUIRE(std::holds_alternative<desk_refusal>(s));
  return std::get<desk_refusal>(s);
}

const join_entry& entry(const join_step& s) {
  REQUIRE(std::holds_alternative<join_entry>(s));
  return std::get<join_entry>(s);
}

}  // namespace

TEST_CASE_METHOD(desk_fixture, "a join answered 503 may be retried with the same solved challenge") {
  start({test_room("a", 60)});
  auto req = solved_request("a");
  store.fail_next_writes(1);
  CHECK(refused(run(req)).code == errc::storage_unavailable);
  CHECK(rooms->find("a")->joined() == 0);
  auto retried = entry(run(req));
  CHECK(retried.t.place == 0u);
  CHECK_FALSE(retried.existing);
  // Now it is spent for good.
  CHECK(refused(run(req)).code == errc::proof_rejected);
  CHECK(desk.proof_rejections().at("replayed") == 1);
}

TEST_CASE_METHOD(desk_fixture, "a join racing a close is refused, never applied after it") {
  start({test_room("a", 60)});
  auto step = desk.decide(*rooms, solved_request("a"), clock.now_ms());
  auto& c = std::get<join_commit>(step);
  rooms->submit(state_changed{"a", room_state::closed, clock.steady_ms()}, [](std::error_code, const join_outcome&) {});
  auto [ec, outcome] = commit(c.event);
  auto after = refused(desk.finish(*rooms, c, ec, outcome, clock.now_ms()));
  CHECK(after.code == errc::closed);
  CHECK(rooms->find("a")->joined() == 0);
  CHECK(refused(run(solved_request("a"))).code == errc::closed);

  start({test_room("b", 60)});
  auto sold = desk.decide(*rooms, solved_request("b"), clock.now_ms());
  rooms->submit(state_changed{"b", room_state::sold_out, clock.steady_ms()}, [](std::error_code, const join_outcome&) {});
  auto& sc = std::get<join_commit>(sold);
  auto [sec, soutcome] = commit(sc.event);
  CHECK(refused(desk.finish(*rooms, sc, sec, soutcome, clock.now_ms())).code == errc::sold_out);
}

TEST_CASE_METHOD(desk_fixture, "one account, one entry: across racing joins, failed writes and restarts") {
  start({test_room("a", 60)});
  auto hint = to_hex(account_hint(as_bytes(account_secret), "a", "user-1"));
  auto with_account = [&] {
    auto req = solved_request("a");
    req.account = "user-1";
    req.account_hint = hint;
    return req;
  };
  auto first_req = with_account();
  store.fail_next_writes(1);
  CHECK(refused(run(first_req)).code == errc::storage_unavailable);
  // While the account's join is written, another is told to retry at once, spending
  // nothing; once it is durable, the next gets the same entry back.
  auto first = desk.decide(*rooms, with_account(), clock.now_ms());
  auto& c1 = std::get<join_commit>(first);
  auto racing = with_account();
  CHECK(refused(desk.decide(*rooms, racing, clock.now_ms())).code == errc::join_in_progress);
  auto [ec1, o1] = commit(c1.event);
  auto e1 = entry(desk.finish(*rooms, c1, ec1, o1, clock.now_ms()));
  CHECK_FALSE(e1.existing);
  auto e2 = entry(run(racing));  // the same solved challenge: it was not spent
  CHECK(e2.existing);
  CHECK(e2.t.visitor == e1.t.visitor);
  CHECK(e2.t.place == e1.t.place);
  CHECK(rooms->find("a")->joined() == 1);
  restart();
  auto again = entry(run(with_account()));
  CHECK(again.existing);
  CHECK(again.t.visitor == e1.t.visitor);

  auto bad = with_account();
  bad.account = "user-2";
  CHECK(refused(run(bad)).code == errc::bad_account_hint);
}

TEST_CASE_METHOD(desk_fixture, "a presented ticket comes back; bad proofs and unknown rooms are refused") {
  start({test_room("a", 60)});
  auto placed = entry(run(solved_request("a")));
  auto req = solved_request("a");
  req.presented = placed.t;
  auto back = entry(run(req));
  CHECK(back.existing);
  CHECK(back.t.visitor == placed.t.visitor);

  auto no_proof = solved_request("a");
  no_proof.challenge = "";
  CHECK(refused(run(no_proof)).code == errc::bad_join_body);
  auto forged = solved_request("a");
  auto& token = texts.emplace_back(forged.challenge);
  token.back() = token.back() == 'A' ? 'B' : 'A';
  forged.challenge = token;
  CHECK(refused(run(forged)).code == errc::proof_rejected);
  CHECK(desk.proof_rejections().size() == 1);
  CHECK(refused(run(solved_request("nowhere"))).code == errc::unknown_room);
  join_desk no_hints{price, ""};
  auto hinted = solved_request("a");
  hinted.account = "user-1";
  hinted.account_hint = "00";
  CHECK(std::get<desk_refusal>(no_hints.decide(*rooms, hinted, clock.now_ms())).code == errc::account_hints_off);
}

TEST_CASE_METHOD(desk_fixture, "challenges fetched early while calm pay what fresh ones pay when redeemed in a burst") {
  start({test_room("a", 60)});
  constexpr int burst = 100;
  auto join_with = [&](const ip_address& from, const pow::challenge& c) {
    join_request req;
    req.room_id = "a";
    req.address = from;
    req.challenge = texts.emplace_back(c.token);
    req.nonce = texts.emplace_back(pow::solve(c.token));
    req.ids[0] = ++next_id;
    return run(req);
  };
  auto now = static_cast<std::uint64_t>(clock.now_ms());

  // One network fetches a challenge, solves it and joins, a hundred times.
  ip_address fresh_client = *parse_ip("198.51.100.7");
  std::vector<std::uint32_t> fresh_paid;
  for (int i = 0; i < burst; ++i) {
    auto c = price.mint("a", fresh_client, now);
    entry(join_with(fresh_client, c));
    fresh_paid.push_back(c.difficulty_bits);
  }
  CHECK(fresh_paid.front() == 4);
  CHECK(fresh_paid.back() > 4);

  // Another fetches a hundred while calm, then redeems them all: each one that became
  // too cheap is refused with a challenge at the price now, which it solves and joins with.
  std::vector<pow::challenge> early;
  for (int i = 0; i < burst; ++i) early.push_back(price.mint("a", client, now));
  std::vector<std::uint32_t> early_paid;
  for (const auto& c : early) {
    auto step = join_with(client, c);
    std::uint32_t paid = c.difficulty_bits;
    if (auto* rose = std::get_if<desk_refusal>(&step)) {
      REQUIRE(rose->code == errc::price_rose);
      REQUIRE(rose->offer);
      paid = rose->offer->difficulty_bits;
      step = join_with(client, *rose->offer);
    }
    entry(step);
    early_paid.push_back(paid);
  }
  CHECK(early_paid == fresh_paid);
  CHECK(desk.proof_rejections().at("underpriced") > 0);
}

TEST_CASE_METHOD(desk_fixture, "a room that requires the account hint refuses joins without it") {
  auto strict = test_room("a", 60);
  strict.require_account = true;
  start({strict, test_room("b", 60)});
  auto bare = solved_request("a");
  auto no_account = refused(run(bare));
  CHECK(no_account.code == errc::account_required);
  CHECK(rooms->find("a")->joined() == 0);
  // Half a hint is no hint: the account is checked as any other.
  auto half = solved_request("a");
  half.account = "user-1";
  CHECK(refused(run(half)).code == errc::bad_account_hint);

  auto hinted = solved_request("a");
  hinted.account = "user-1";
  auto hint = to_hex(account_hint(as_bytes(account_secret), "a", "user-1"));
  hinted.account_hint = hint;
  auto placed = entry(run(hinted));
  CHECK_FALSE(placed.existing);
  // A ticket already held is answered, with or without the hint.
  auto holder = solved_request("a");
  holder.presented = placed.t;
  CHECK(entry(run(holder)).existing);
  // The refused join spent nothing: its solved challenge still joins once it carries the hint.
  bare.account = "user-2";
  auto hint2 = to_hex(account_hint(as_bytes(account_secret), "a", "user-2"));
  bare.account_hint = hint2;
  CHECK_FALSE(entry(run(bare)).existing);
  // Rooms without the setting take joins without an account.
  CHECK_FALSE(entry(run(solved_request("b"))).existing);
}

namespace {

// A room with a members' lane taking codes, an invite lane, and agents kept out of its
// first minute.
room_config lanes_room() {
  auto c = test_room("tour", 60);
  c.lanes = {{"members", "Members", 300'000, false, lane_entry::code}, {"press", "Press", 100'000, false, lane_entry::invite}};
  c.agents_barred_seconds = 60;
  REQUIRE_FALSE(check_room(c));
  return c;
}

// A site's Ed25519 key and the invites it signs, as compact JWS.
struct site_signer {
  std::array<std::uint8_t, crypto_sign_PUBLICKEYBYTES> pk{};
  std::array<std::uint8_t, crypto_sign_SECRETKEYBYTES> sk{};
  site_signer() { crypto_sign_keypair(pk.data(), sk.data()); }

  invite::jwk_set keys() const {
    return invite::jwk_set::parse(fmt::format(R"({{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"site"}}]}})",
                                              base64url_encode(pk)));
  }
  std::string sign(std::string_view claims) const {
    auto input = base64url_encode(as_bytes(std::string_view(R"({"alg":"EdDSA","kid":"site"})"))) + "." +
                 base64url_encode(as_bytes(claims));
    std::array<std::uint8_t, crypto_sign_BYTES> sig{};
    crypto_sign_detached(sig.data(), nullptr, as_bytes(input).data(), input.size(), sk.data());
    return input + "." + base64url_encode(sig);
  }
};

}  // namespace

TEST_CASE_METHOD(desk_fixture, "a code is redeemed exactly once, however many joins with it are in flight", "[lanes]") {
  start({lanes_room()});
  auto code = std::string("7KQ2-M9XD-4WTF-H3NB");
  REQUIRE_FALSE(commit(codes_added{"tour", "b1", "members", 1, {code_digest(*normalize_code(code))}, clock.now_ms()}).first);
  auto first = solved_request("tour");
  first.code = code;
  auto second = solved_request("tour");
  second.code = code;
  // Both decided before either is written: the log decides between them.
  auto a = desk.decide(*rooms, first, clock.now_ms());
  auto b = desk.decide(*rooms, second, clock.now_ms());
  auto& ca = std::get<join_commit>(a);
  auto& cb = std::get<join_commit>(b);
  auto [ec_a, out_a] = commit(ca.event);
  auto [ec_b, out_b] = commit(cb.event);
  CHECK(entry(desk.finish(*rooms, ca, ec_a, out_a, clock.now_ms())).t.place == lane_place(1, 0));
  CHECK(refused(desk.finish(*rooms, cb, ec_b, out_b, clock.now_ms())).code == errc::invalid_code);
  restart();
  const auto* used = rooms->find("tour")->codes().find(code_digest(*normalize_code(code)));
  REQUIRE(used);
  CHECK(used->uses() == 1);
  CHECK(rooms->find("tour")->lanes().at(1).joined == 1);
}

TEST_CASE_METHOD(desk_fixture, "a refused code spends no proof of work, and a network's refusals are limited", "[lanes]") {
  start({lanes_room()});
  auto req = solved_request("tour");
  req.code = "AAAA-AAAA-AAAA-AAAA";
  CHECK(refused(run(req)).code == errc::invalid_code);
  // The same solved challenge still joins, without the code.
  req.code = "";
  CHECK(entry(run(req)).t.place == 0u);
  for (std::uint32_t i = 1; i < join_desk::refused_codes_per_minute; ++i) {
    auto bad = solved_request("tour");
    bad.code = "AAAA-AAAA-AAAA-AAAA";
    CHECK(refused(run(bad)).code == errc::invalid_code);
  }
  auto limited = solved_request("tour");
  limited.code = "AAAA-AAAA-AAAA-AAAA";
  CHECK(refused(run(limited)).code == errc::too_many_requests);
  clock.advance_ms(6'000);  // one refusal more a minute: one every 6 s
  CHECK(refused(run(limited)).code == errc::invalid_code);
}

TEST_CASE_METHOD(desk_fixture, "an invite is used once, and an agent's waits out the room's first minute", "[lanes]") {
  site_signer site;
  invite::site_keys keys(site.keys());
  join_desk invited{price, std::string(account_secret), {&keys, digest{}}};
  start({lanes_room()});
  auto invite = [&](std::string_view sub, std::string_view jti, bool agent = false) -> const std::string& {
    auto exp = clock.now_ms() / 1000 + 600;
    return texts.emplace_back(site.sign(fmt::format(R"({{"sub":"{}","room":"tour","lane":"press","jti":"{}","exp":{},"agent":{}}})",
                                                    sub, jti, exp, agent)));
  };
  auto req = solved_request("tour");
  req.invite = invite("alice", "j1");
  auto alice = entry(run(req, invited));
  CHECK(lane_of(*alice.t.place) == 2);
  // Another account with the same jti: refused, after a restart too.
  auto replay = solved_request("tour");
  replay.invite = invite("bob", "j1");
  CHECK(refused(run(replay, invited)).code == errc::invalid_code);
  restart();
  CHECK(refused(run(replay, invited)).code == errc::invalid_code);

  auto agent = solved_request("tour");
  agent.invite = invite("agent-7", "j2", true);
  CHECK(refused(run(agent, invited)).code == errc::agent_window);
  clock.advance_ms(60'000);
  auto later = solved_request("tour");
  later.invite = agent.invite;
  CHECK_FALSE(entry(run(later, invited)).existing);
}

TEST_CASE_METHOD(desk_fixture, "invites wait for keys fetched by URL, and a kid not in the set asks for a fetch",
                 "[lanes]") {
  site_signer site;
  auto keys = invite::site_keys::fetched(300'000, clock.steady_ms());
  std::size_t fetches_asked = 0;
  keys.on_key_missed([&] { ++fetches_asked; });
  join_desk invited{price, std::string(account_secret), {&keys, digest{}}};
  start({lanes_room()});
  auto exp = clock.now_ms() / 1000 + 600;
  auto token = site.sign(fmt::format(R"({{"sub":"alice","room":"tour","lane":"press","jti":"j1","exp":{}}})", exp));

  // No good fetch yet: a 503 to retry, however often, never the network's refused codes.
  for (int i = 0; i < 20; ++i) {
    auto req = solved_request("tour");
    req.invite = token;
    CHECK(refused(run(req, invited)).code == errc::invite_keys_unavailable);
  }

  // Keys of another site: the token's kid is not among them.
  site_signer other;
  auto other_jwks = fmt::format(R"({{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"other"}}]}})",
                                base64url_encode(other.pk));
  REQUIRE_FALSE(keys.answered(other_jwks, "", clock.steady_ms()));
  auto req = solved_request("tour");
  req.invite = token;
  CHECK(refused(run(req, invited)).code == errc::invalid_code);
  CHECK(fetches_asked == 1);

  // The site's own keys, once fetched again, let the same token in.
  auto site_jwks = fmt::format(R"({{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"site"}}]}})",
                               base64url_encode(site.pk));
  keys.fetch_started(clock.steady_ms());
  REQUIRE_FALSE(keys.answered(site_jwks, "", clock.steady_ms()));
  auto again = solved_request("tour");
  again.invite = token;
  CHECK(lane_of(*entry(run(again, invited)).t.place) == 2);
  CHECK(fetches_asked == 1);
}

TEST_CASE_METHOD(desk_fixture, "a join without JavaScript pays no proof, takes the no_script lane and is capped per network",
                 "[lanes]") {
  auto c = test_room("quiet", 60);
  c.lanes = {{"plain", "Without JavaScript", 200'000, false, lane_entry::no_script}};
  REQUIRE_FALSE(check_room(c));
  start({c, test_room("a", 60)});
  auto plain = [&](const std::string& room) {
    join_request req;
    req.room_id = room;
    req.address = client;
    req.no_script = true;
    req.ids[0] = ++next_id;
    return req;
  };
  // Off unless the room has such a lane; and no proof is still no join for everyone else.
  CHECK(refused(run(plain("a"))).code == errc::not_found);
  auto unpaid = plain("quiet");
  unpaid.no_script = false;
  CHECK(refused(run(unpaid)).code == errc::bad_join_body);
  for (std::uint32_t i = 0; i < join_desk::no_script_joins_per_minute; ++i) {
    CHECK(entry(run(plain("quiet"))).t.place == lane_place(1, i));
  }
  auto capped = run(plain("quiet"));
  CHECK(refused(capped).code == errc::too_many_requests);
  CHECK(refused(capped).retry_after_s == 12);
  // Another network is not held by this one; a joined visitor gets their entry back.
  auto elsewhere = plain("quiet");
  elsewhere.address = *parse_ip("198.51.100.9");
  CHECK(entry(run(elsewhere)).t.place == lane_place(1, 5));
  clock.advance_ms(12'000);
  CHECK(entry(run(plain("quiet"))).t.place == lane_place(1, 6));
  // Proof-paying joins still go to the general lane.
  CHECK(entry(run(solved_request("quiet"))).t.place == 0u);
  CHECK(rooms->find("quiet")->lanes().at(1).joined == 7);
}
