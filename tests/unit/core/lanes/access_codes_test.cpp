#include <catch2/catch.hpp>

#include <set>
#include <variant>

#include "core/base/crypto.hpp"
#include "core/lanes/access_codes.hpp"

using namespace foyer;

namespace {

// A distinct digest per n, cheap enough for the bounds' hundreds of thousands.
digest nth(std::uint64_t n) {
  digest d{};
  put_be64(d.data(), n);
  d[31] = 0xc0;
  return d;
}

id16 account(std::uint8_t n) {
  id16 a{};
  a.fill(n);
  return a;
}

std::string text(const normalized_code& code) { return {code.begin(), code.end()}; }

struct book_fixture {
  code_book book;
  std::int64_t now = 1'700'000'000'000;

  bool add(std::string batch, std::string lane, std::uint32_t uses, std::vector<digest> codes) {
    return book.apply(codes_added{"room", std::move(batch), std::move(lane), uses, std::move(codes), now});
  }
  bool redeem(const digest& code, const id16& who) { return book.apply(code_redeemed{"room", code, who, ++now}); }
  bool revoke(std::string batch, std::optional<digest> code = std::nullopt) {
    return book.apply(codes_revoked{"room", std::move(batch), code, ++now});
  }
  code_decision check(const digest& code, const id16& who) const { return book.check(code, who); }
  std::string encoded() const {
    writer w;
    book.encode(w);
    return w.take();
  }
};

const code_decision refusal{};

}  // namespace

TEST_CASE("a generated code is 16 Crockford characters in four groups, the bits in order", "[access_codes]") {
  // Expected texts from Python's base64.b32encode with RFC 4648's alphabet mapped onto Crockford's.
  std::array<std::uint8_t, 10> counting{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK(generate_code(counting) == "000G-40R4-0M30-E209");
  std::array<std::uint8_t, 10> mixed{0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab};
  CHECK(generate_code(mixed) == "VTPV-XVR1-4D2P-F2DB");
  std::array<std::uint8_t, 10> ones;
  ones.fill(0xff);
  CHECK(generate_code(ones) == "ZZZZ-ZZZZ-ZZZZ-ZZZZ");

  std::set<char> seen;
  for (int i = 0; i < 2000; ++i) {
    auto random = random_array<10>();
    auto code = generate_code(random);
    REQUIRE(code.size() == 19);
    for (std::size_t j = 0; j < code.size(); ++j) {
      if (j % 5 == 4) {
        REQUIRE(code[j] == '-');
      } else {
        REQUIRE(std::string_view("0123456789ABCDEFGHJKMNPQRSTVWXYZ").find(code[j]) != std::string_view::npos);
        seen.insert(code[j]);
      }
    }
    auto normalized = normalize_code(code);
    REQUIRE(normalized);
    auto without_dashes = code;
    std::erase(without_dashes, '-');
    REQUIRE(text(*normalized) == without_dashes);
  }
  CHECK(seen.size() == 32);  // every symbol turns up, none outside the alphabet
}

TEST_CASE("normalize takes a code as it is read aloud and typed, and refuses anything else", "[access_codes]") {
  auto same = [](std::string_view typed) {
    auto code = normalize_code(typed);
    return code && text(*code) == "7KQ2M9XD04HT1Z3B";
  };
  CHECK(same("7KQ2-M9XD-04HT-1Z3B"));
  CHECK(same("7kq2-m9xd-04ht-1z3b"));
  CHECK(same("7KQ2M9XD04HT1Z3B"));
  CHECK(same(" 7KQ2 M9XD 04HT 1Z3B "));
  CHECK(same("7KQ2-M9XD-O4HT-IZ3B"));  // O read as 0, I as 1
  CHECK(same("7kq2-m9xd-o4ht-lz3b"));  // o and l too
  CHECK(same("7KQ2--M9XD--04HT--1Z3B"));

  CHECK_FALSE(normalize_code(""));
  CHECK_FALSE(normalize_code("7KQ2-M9XD-04HT-1Z3"));     // 15 characters
  CHECK_FALSE(normalize_code("7KQ2-M9XD-04HT-1Z3BB"));   // 17
  CHECK_FALSE(normalize_code("7KQ2-M9XD-04HT-1Z3U"));    // U is not in the alphabet
  CHECK_FALSE(normalize_code("7KQ2_M9XD_04HT_1Z3B"));    // only '-' and spaces are dropped
  CHECK_FALSE(normalize_code("7KQ2-M9XD-04HT-1Z3B\n"));  // nor any other space
  CHECK_FALSE(normalize_code("7KQ2-M9XD-04HT-1Z3\xc3\x9f"));
  // Valid once the dashes are dropped, but longer than any code is typed: refused unread.
  std::string padded = "7KQ2M9XD04HT1Z3B" + std::string(max_code_input - 16, '-');
  CHECK(normalize_code(padded));
  CHECK_FALSE(normalize_code(padded + "-"));
}

TEST_CASE("a code's digest is SHA-256 of its 16 normalized characters", "[access_codes]") {
  // printf %s 7KQ2M9XD04HTZZ3B | sha256sum
  const std::string vector = "cfe423f75877fe4827936b808f39510c058361f20355726fe2fbbd8f20abdb08";
  auto code = normalize_code("7kq2 m9xd-o4ht zz3b");
  REQUIRE(code);
  CHECK(to_hex(code_digest(*code)) == vector);
  // printf %s 000G40R40M30E209 | sha256sum
  CHECK(to_hex(code_digest(*normalize_code("000G-40R4-0M30-E209"))) ==
        "aeeb2510e5ce5b7236de16bbe701d941ee2228747af43165f6b6cd59f69c0d79");

  CHECK(parse_code_digest(vector) == code_digest(*code));
  std::string upper = vector;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(parse_code_digest(upper) == code_digest(*code));
  CHECK_FALSE(parse_code_digest(vector.substr(1)));
  CHECK_FALSE(parse_code_digest(vector + "0"));
  CHECK_FALSE(parse_code_digest("g" + vector.substr(1)));
  CHECK_FALSE(parse_code_digest(""));
}

TEST_CASE_METHOD(book_fixture, "a single-use code is redeemed once, bound to its first account", "[access_codes]") {
  REQUIRE(add("presale", "fans", 1, {nth(1), nth(2)}));
  CHECK(check(nth(1), account(1)) == code_decision{code_verdict::ok, "fans", "presale"});

  // The same redemption twice (a retry that raced the first): the second records nothing.
  code_redeemed e{"room", nth(1), account(1), now};
  CHECK(book.apply(e));
  CHECK_FALSE(book.apply(e));
  const auto* code = book.find(nth(1));
  REQUIRE(code);
  CHECK(code->uses() == 1);
  CHECK(code->bound_to() == account(1));
  CHECK(code->redemptions == std::vector<code_redemption>{{account(1), now}});
  CHECK(book.batch("presale")->redemptions == 1);
  CHECK(book.batch("presale")->codes_redeemed == 1);

  // Its account is answered with its entry; any other is refused.
  CHECK(check(nth(1), account(1)) == code_decision{code_verdict::already_redeemed, "fans", "presale"});
  CHECK(check(nth(1), account(2)) == refusal);
  CHECK_FALSE(redeem(nth(1), account(2)));
  CHECK(book.find(nth(1))->bound_to() == account(1));
  // The batch's other code is untouched.
  CHECK(check(nth(2), account(2)).verdict == code_verdict::ok);
}

TEST_CASE_METHOD(book_fixture, "a multi-use code takes up to its cap of accounts, each once", "[access_codes]") {
  REQUIRE(add("partners", "press", 3, {nth(7)}));
  CHECK(redeem(nth(7), account(1)));
  CHECK_FALSE(redeem(nth(7), account(1)));  // the same account again counts nothing
  CHECK(check(nth(7), account(1)).verdict == code_verdict::already_redeemed);
  CHECK(redeem(nth(7), account(2)));
  CHECK(redeem(nth(7), account(3)));
  CHECK(check(nth(7), account(4)) == refusal);
  CHECK_FALSE(redeem(nth(7), account(4)));

  const auto* code = book.find(nth(7));
  CHECK(code->uses() == 3);
  CHECK(code->bound_to() == account(1));
  REQUIRE(code->redemptions.size() == 3);
  CHECK(code->redemptions[1].account == account(2));
  CHECK(code->redemptions[2].account == account(3));
  for (std::uint8_t a = 1; a <= 3; ++a) {
    CHECK(check(nth(7), account(a)) == code_decision{code_verdict::already_redeemed, "press", "partners"});
  }
  CHECK(book.batch("partners")->redemptions == 3);
  CHECK(book.batch("partners")->codes_redeemed == 1);
}

TEST_CASE_METHOD(book_fixture, "revoking a code or a batch stops new redemptions, not those made", "[access_codes]") {
  REQUIRE(add("a", "fans", 2, {nth(1), nth(2), nth(3)}));
  REQUIRE(add("b", "fans", 1, {nth(4)}));
  REQUIRE(redeem(nth(1), account(1)));

  CHECK(revoke("a", nth(2)));
  auto code_revoked_at = now;
  CHECK_FALSE(revoke("a", nth(2)));  // revoked already: the first time stands
  CHECK(book.find(nth(2))->revoked_at_ms == code_revoked_at);
  CHECK(check(nth(2), account(1)) == refusal);
  CHECK(check(nth(3), account(1)).verdict == code_verdict::ok);
  CHECK(book.batch("a")->codes_revoked == 1);
  CHECK_FALSE(book.batch("a")->revoked_at_ms);

  CHECK(revoke("a"));
  auto batch_revoked_at = now;
  CHECK_FALSE(revoke("a"));
  CHECK(book.batch("a")->revoked_at_ms == batch_revoked_at);
  CHECK(check(nth(1), account(2)) == refusal);  // room left under its cap, but revoked
  CHECK_FALSE(redeem(nth(1), account(2)));
  CHECK(check(nth(3), account(1)) == refusal);
  // The account that redeemed before the revocation still gets its entry.
  CHECK(check(nth(1), account(1)).verdict == code_verdict::already_redeemed);
  // Another batch is untouched.
  CHECK(check(nth(4), account(1)).verdict == code_verdict::ok);

  // A revocation names a batch that exists, and one of its own codes.
  CHECK(book.refuses(codes_revoked{"room", "c", std::nullopt, now})->field == "batch");
  CHECK(book.refuses(codes_revoked{"room", "b", nth(1), now})->field == "code");
  CHECK(book.refuses(codes_revoked{"room", "b", nth(99), now})->field == "code");
  CHECK_FALSE(book.refuses(codes_revoked{"room", "b", nth(4), now}));
  CHECK_FALSE(revoke("b", nth(1)));
  CHECK_FALSE(book.find(nth(1))->revoked_at_ms);
}

TEST_CASE_METHOD(book_fixture, "unknown, revoked, used up and bound elsewhere are one refusal", "[access_codes]") {
  REQUIRE(add("single", "fans", 1, {nth(1), nth(2)}));
  REQUIRE(add("multi", "fans", 2, {nth(3)}));
  REQUIRE(add("gone", "fans", 5, {nth(4)}));
  REQUIRE(redeem(nth(1), account(1)));
  REQUIRE(revoke("single", nth(2)));
  REQUIRE(redeem(nth(3), account(1)));
  REQUIRE(redeem(nth(3), account(3)));
  REQUIRE(revoke("gone"));

  std::vector<code_decision> answers{
      check(nth(99), account(2)),  // unknown
      check(nth(2), account(2)),   // revoked code
      check(nth(4), account(2)),   // revoked batch
      check(nth(3), account(2)),   // multi-use, used up
      check(nth(1), account(2)),   // single use, bound to another account
  };
  for (const auto& answer : answers) {
    CHECK(answer == refusal);
    CHECK(answer.lane.empty());
    CHECK(answer.batch.empty());
    CHECK(to_string(answer.verdict) == "refused");
  }
}

TEST_CASE_METHOD(book_fixture, "a batch is validated before it is written, and apply refuses what fails",
                 "[access_codes]") {
  auto added = [&](std::string batch, std::string lane, std::uint32_t uses, std::vector<digest> codes) {
    return codes_added{"room", std::move(batch), std::move(lane), uses, std::move(codes), now};
  };
  auto field = [&](const codes_added& e) {
    auto problem = book.refuses(e);
    return problem ? problem->field : std::string();
  };
  CHECK(field(added("ok_batch-1", "lane_1", 1, {nth(1)})).empty());
  CHECK(field(added("", "fans", 1, {nth(1)})) == "batch");
  CHECK(field(added("Presale", "fans", 1, {nth(1)})) == "batch");
  CHECK(field(added("pre sale", "fans", 1, {nth(1)})) == "batch");
  CHECK(field(added(std::string(64, 'a'), "fans", 1, {nth(1)})).empty());
  CHECK(field(added(std::string(65, 'a'), "fans", 1, {nth(1)})) == "batch");
  CHECK(field(added("presale", "", 1, {nth(1)})) == "lane");
  CHECK(field(added("presale", "Fans!", 1, {nth(1)})) == "lane");
  CHECK(field(added("presale", "fans", 0, {nth(1)})) == "uses_per_code");
  CHECK(field(added("presale", "fans", code_book::max_uses_per_code, {nth(1)})).empty());
  CHECK(field(added("presale", "fans", code_book::max_uses_per_code + 1, {nth(1)})) == "uses_per_code");
  CHECK(field(added("presale", "fans", 1, {})) == "codes");
  CHECK(field(added("presale", "fans", 1, {nth(1), nth(2), nth(1)})) == "codes");
  CHECK(book.refuses(added("presale", "fans", 1, {nth(1), nth(2), nth(1)}))->message == "code 3 appears twice");

  std::vector<digest> full;
  for (std::uint64_t i = 0; i < code_book::max_codes_per_batch; ++i) full.push_back(nth(i));
  CHECK(field(added("full", "fans", 1, full)).empty());
  full.push_back(nth(code_book::max_codes_per_batch));
  CHECK(field(added("full", "fans", 1, full)) == "codes");

  // A code in another batch: refused at validation, and an add that was validated before
  // the other applied (two uploads at once) adds nothing at all when it applies.
  REQUIRE(add("first", "fans", 1, {nth(1), nth(2)}));
  CHECK(book.refuses(added("second", "fans", 1, {nth(3), nth(2)}))->message == "code 2 is in another batch");
  CHECK_FALSE(add("second", "fans", 1, {nth(3), nth(2)}));
  CHECK_FALSE(book.batch("second"));
  CHECK_FALSE(book.find(nth(3)));
  CHECK(book.code_count() == 2);
  // A batch id is used once.
  CHECK(field(added("first", "fans", 1, {nth(5)})) == "batch");
  CHECK_FALSE(add("first", "fans", 1, {nth(5)}));
  CHECK(book.batch("first")->codes.size() == 2);
}

TEST_CASE_METHOD(book_fixture, "a room holds at most max_batches batches", "[access_codes]") {
  for (std::size_t i = 0; i < code_book::max_batches; ++i) REQUIRE(add("b" + std::to_string(i), "fans", 1, {nth(i)}));
  codes_added one_more{"room", "one_more", "fans", 1, {nth(code_book::max_batches)}, now};
  auto problem = book.refuses(one_more);
  REQUIRE(problem);
  CHECK(problem->field == "batch");
  CHECK_FALSE(book.apply(one_more));
  CHECK(book.batches().size() == code_book::max_batches);
}

TEST_CASE_METHOD(book_fixture, "a room holds at most max_codes codes", "[access_codes]") {
  std::uint64_t next = 0;
  for (std::size_t b = 0; b < code_book::max_codes / code_book::max_codes_per_batch; ++b) {
    std::vector<digest> codes;
    for (std::size_t i = 0; i < code_book::max_codes_per_batch; ++i) codes.push_back(nth(next++));
    REQUIRE(add("b" + std::to_string(b), "fans", 1, std::move(codes)));
  }
  REQUIRE(book.code_count() == code_book::max_codes);
  codes_added one_more{"room", "one_more", "fans", 1, {nth(next)}, now};
  auto problem = book.refuses(one_more);
  REQUIRE(problem);
  CHECK(problem->field == "codes");
  CHECK_FALSE(book.apply(one_more));
  CHECK(book.code_count() == code_book::max_codes);
}

namespace {

// A book with single- and multi-use batches, redemptions and both kinds of revocation.
struct filled_book : book_fixture {
  filled_book() {
    REQUIRE(add("single", "fans", 1, {nth(1), nth(2), nth(3)}));
    REQUIRE(add("multi", "press", 3, {nth(4), nth(5)}));
    REQUIRE(add("gone", "fans", 2, {nth(6)}));
    REQUIRE(redeem(nth(1), account(1)));
    REQUIRE(redeem(nth(4), account(1)));
    REQUIRE(redeem(nth(4), account(2)));
    REQUIRE(redeem(nth(6), account(3)));
    REQUIRE(revoke("single", nth(3)));
    REQUIRE(revoke("gone"));
  }
};

// The bytes of one batch of `uses` per code whose one code has these redemptions.
std::string one_batch(std::uint32_t uses, const std::vector<id16>& accounts) {
  writer w;
  w.u8(1);
  w.u32(1);
  w.str("batch");
  w.str("lane");
  w.u32(uses);
  w.i64(5);
  w.u8(0);
  w.i64(0);
  w.u32(1);
  w.raw(nth(1));
  w.u8(0);
  w.i64(0);
  w.u32(static_cast<std::uint32_t>(accounts.size()));
  for (const auto& a : accounts) {
    w.raw(a);
    w.i64(6);
  }
  return w.take();
}

}  // namespace

TEST_CASE_METHOD(filled_book, "the book survives encode and decode whole", "[access_codes]") {
  auto bytes = encoded();
  book_fixture copy;
  REQUIRE(copy.add("stale", "fans", 1, {nth(50)}));  // decode replaces what was there
  reader r(bytes);
  REQUIRE(copy.book.decode(r));
  CHECK(r.done());
  CHECK(copy.encoded() == bytes);
  CHECK_FALSE(copy.book.batch("stale"));
  CHECK(copy.book.code_count() == book.code_count());

  for (std::uint64_t code = 1; code <= 7; ++code) {
    for (std::uint8_t who = 1; who <= 4; ++who) {
      CHECK(copy.check(nth(code), account(who)) == check(nth(code), account(who)));
    }
    const auto* original = book.find(nth(code));
    const auto* restored = copy.book.find(nth(code));
    REQUIRE((original == nullptr) == (restored == nullptr));
    if (!original) continue;
    CHECK(restored->batch == original->batch);
    CHECK(restored->revoked_at_ms == original->revoked_at_ms);
    CHECK(restored->redemptions == original->redemptions);
  }
  REQUIRE(copy.book.batches().size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& a = book.batches()[i];
    const auto& b = copy.book.batches()[i];
    CHECK(b.id == a.id);
    CHECK(b.lane == a.lane);
    CHECK(b.uses_per_code == a.uses_per_code);
    CHECK(b.created_at_ms == a.created_at_ms);
    CHECK(b.revoked_at_ms == a.revoked_at_ms);
    CHECK(b.codes == a.codes);
    CHECK(b.codes_redeemed == a.codes_redeemed);
    CHECK(b.redemptions == a.redemptions);
    CHECK(b.codes_revoked == a.codes_revoked);
  }
  // The restored book goes on as the original does.
  CHECK(copy.redeem(nth(4), account(3)));
  CHECK(redeem(nth(4), account(3)));
  CHECK_FALSE(copy.redeem(nth(4), account(4)));
  CHECK(copy.book.find(nth(4))->redemptions.size() == 3);
}

TEST_CASE_METHOD(filled_book, "decode refuses cut or broken bytes and keeps the book", "[access_codes]") {
  auto bytes = encoded();
  book_fixture target;
  REQUIRE(target.add("kept", "fans", 1, {nth(60)}));
  auto before = target.encoded();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    reader r(std::string_view(bytes).substr(0, n));
    REQUIRE_FALSE(target.book.decode(r));
  }
  auto wrong_format = bytes;
  wrong_format[0] = 2;
  reader r(wrong_format);
  CHECK_FALSE(target.book.decode(r));
  CHECK(target.encoded() == before);

  auto decodes = [](const std::string& b) {
    code_book book;
    reader r(b);
    return book.decode(r);
  };
  CHECK(decodes(one_batch(2, {account(1), account(2)})));
  CHECK_FALSE(decodes(one_batch(1, {account(1), account(2)})));  // more accounts than uses
  CHECK_FALSE(decodes(one_batch(3, {account(1), account(1)})));  // one account twice
  CHECK_FALSE(decodes(one_batch(0, {})));                        // no uses
}

TEST_CASE("replaying the same events gives the same book", "[access_codes]") {
  std::vector<std::variant<codes_added, code_redeemed, codes_revoked>> log{
      codes_added{"room", "a", "fans", 2, {nth(1), nth(2)}, 1},
      code_redeemed{"room", nth(1), account(1), 2},
      code_redeemed{"room", nth(1), account(1), 3},  // a retry: a no-op, on replay too
      code_redeemed{"room", nth(1), account(2), 4},
      code_redeemed{"room", nth(1), account(3), 5},  // past the cap
      codes_added{"room", "b", "fans", 1, {nth(2), nth(3)}, 6},  // nth(2) is in "a": adds nothing
      codes_revoked{"room", "a", nth(2), 7},
  };
  auto replay = [&] {
    code_book book;
    std::vector<bool> changed;
    for (const auto& e : log) changed.push_back(std::visit([&](const auto& event) { return book.apply(event); }, e));
    writer w;
    book.encode(w);
    return std::pair{changed, w.take()};
  };
  auto first = replay();
  CHECK(first.first == std::vector<bool>{true, true, false, true, false, false, true});
  CHECK(replay() == first);
}
