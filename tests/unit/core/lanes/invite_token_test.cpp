#include <catch2/catch.hpp>
#include <simdjson.h>

#include <filesystem>
#include <stdexcept>

#include "core/base/bytes.hpp"
#include "core/base/codec.hpp"
#include "core/lanes/invite_token.hpp"

using namespace foyer;
using namespace foyer::invite;

namespace {

// Minted by tests/lanes/make-token-vectors.mjs (jose) and tests/lanes/make_token_vectors.py
// (Python cryptography, by hand); committed so that this test needs neither at run time.
std::filesystem::path vectors_path() {
  return std::filesystem::path(FOYER_VECTORS).parent_path() / "invite-token-vectors.json";
}

struct vectors {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  std::string room;
  std::int64_t now_ms = 0;
  jwk_set keys;

  vectors() : keys(load()) {}

  jwk_set load() {
    REQUIRE(parser.load(vectors_path().string()).get(root) == simdjson::SUCCESS);
    std::string_view room_text;
    REQUIRE(root["room"].get(room_text) == simdjson::SUCCESS);
    room = std::string(room_text);
    REQUIRE(root["now_ms"].get(now_ms) == simdjson::SUCCESS);
    return jwk_set::parse(simdjson::minify(root["jwks"]));
  }

  expectations expect() const { return {room, now_ms}; }

  // The token of the case named `name`.
  std::string token(std::string_view name) {
    for (auto c : root["cases"].get_array()) {
      std::string_view token_text = c["token"].get_string();
      if (std::string_view(c["name"].get_string()) == name) return std::string(token_text);
    }
    FAIL("no case named " << name);
    return {};
  }
};

std::string_view outcome(const std::variant<claims, invite_error>& result) {
  return std::holds_alternative<claims>(result) ? "ok" : to_string(std::get<invite_error>(result).code);
}

}  // namespace

TEST_CASE_METHOD(vectors, "invite tokens minted by jose and Python cryptography meet their expected outcome",
                 "[invite_token]") {
  CHECK(keys.size() == 5);  // jose's EdDSA, ES256 and RS256 keys; Python's EdDSA and ES256
  std::size_t accepted = 0;
  std::size_t checked = 0;
  for (auto c : root["cases"].get_array()) {
    std::string_view name = c["name"].get_string();
    std::string_view token = c["token"].get_string();
    std::string_view expected = c["expect"].get_string();
    auto result = check_invite(token, keys, expect());
    auto* error = std::get_if<invite_error>(&result);
    INFO(std::string_view(c["by"].get_string()) << ": " << name << " (" << (error ? error->reason : "accepted") << ")");
    CHECK(outcome(result) == expected);
    ++checked;
    if (expected != "ok" || !std::holds_alternative<claims>(result)) continue;
    ++accepted;
    const auto& got = std::get<claims>(result);
    auto want = c["claims"];
    CHECK(got.account == std::string_view(want["account"].get_string()));
    CHECK(got.room == std::string_view(want["room"].get_string()));
    CHECK(got.exp_ms == std::int64_t(want["exp_ms"].get_int64()));
    CHECK(got.jti == std::string_view(want["jti"].get_string()));
    CHECK(got.agent == bool(want["agent"].get_bool()));
    std::string_view lane;
    if (want["lane"].get(lane) == simdjson::SUCCESS) {
      CHECK(got.lane == std::optional<std::string>(lane));
    } else {
      CHECK_FALSE(got.lane);
    }
  }
  CHECK(checked >= 50);
  CHECK(accepted == 6);
}

TEST_CASE_METHOD(vectors, "an accepted token is refused with another key set, room or clock", "[invite_token]") {
  auto token = this->token("EdDSA accepted");
  REQUIRE(outcome(check_invite(token, keys, expect())) == "ok");

  // The same kid under another Ed25519 key: the signature decides, not the kid.
  auto stranger = jwk_set::parse(R"({"keys":[{"kty":"OKP","crv":"Ed25519","kid":"ed-1",)"
                                 R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})");
  CHECK(outcome(check_invite(token, stranger, expect())) == "bad_signature");

  auto other_room = expect();
  other_room.room = "autumn-sale";
  CHECK(outcome(check_invite(token, keys, other_room)) == "wrong_room");

  // exp is in 2100: one millisecond before exp + leeway it is accepted, at it refused.
  auto claims_of = std::get<claims>(check_invite(token, keys, expect()));
  auto late = expect();
  late.now_ms = claims_of.exp_ms + late.leeway_ms - 1;
  CHECK(outcome(check_invite(token, keys, late)) == "ok");
  late.now_ms += 1;
  CHECK(outcome(check_invite(token, keys, late)) == "expired");
}

TEST_CASE_METHOD(vectors, "the leeway decides tokens just expired", "[invite_token]") {
  auto token = this->token("expired within the leeway");  // exp = now - 10 s
  CHECK(outcome(check_invite(token, keys, expect())) == "ok");
  auto strict = expect();
  strict.leeway_ms = 0;
  CHECK(outcome(check_invite(token, keys, strict)) == "expired");
}

TEST_CASE_METHOD(vectors, "operator key sets that cannot be used are refused with a reason", "[invite_token]") {
  for (auto c : root["jwks_refused"].get_array()) {
    std::string_view name = c["name"].get_string();
    std::string_view error = c["error"].get_string();
    INFO(name);
    try {
      jwk_set::parse(simdjson::minify(c["jwks"]));
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::Contains(std::string(error)));
    }
  }
  for (auto c : root["jwks_accepted"].get_array()) {
    INFO(std::string_view(c["name"].get_string()));
    CHECK(jwk_set::parse(simdjson::minify(c["jwks"])).size() == std::uint64_t(c["size"].get_uint64()));
  }
}

TEST_CASE("key sets over 64 KiB or not JSON are refused before they are read", "[invite_token]") {
  std::string big = R"({"keys":[],"padding":")" + std::string(max_jwks_bytes, 'p') + R"("})";
  CHECK_THROWS_WITH(jwk_set::parse(big), Catch::Contains("over 65536 bytes"));
  CHECK_THROWS_WITH(jwk_set::parse("{\"keys\":"), Catch::Contains("not a JSON object"));
  CHECK_THROWS_WITH(jwk_set::parse(R"({"keys":[]})"), Catch::Contains("no key of a supported type"));
}

TEST_CASE("a lone key without kid takes tokens without kid", "[invite_token]") {
  // RFC 8032 §7.1 test 1's public key.
  auto keys =
      jwk_set::parse(R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})");
  CHECK(keys.find(std::nullopt) != nullptr);
  CHECK(keys.find(std::string_view("any")) == nullptr);
}

TEST_CASE("jti_book: a jti is used once, until its token could no longer be accepted", "[invite_token]") {
  jti_book book(/*capacity=*/8, /*leeway_ms=*/30'000);
  CHECK_FALSE(book.seen("a"));
  CHECK(book.record("a", 1'000'000));
  CHECK(book.seen("a"));
  CHECK_FALSE(book.record("a", 2'000'000));  // a replay changes nothing
  CHECK(book.record("b", 1'500'000));
  CHECK(book.size() == 2);

  // Kept through exp + leeway, when check_invite still accepts the token.
  CHECK(book.forget_expired(1'029'999) == 0);
  CHECK(book.seen("a"));
  CHECK(book.forget_expired(1'030'000) == 1);
  CHECK_FALSE(book.seen("a"));
  CHECK(book.seen("b"));
  CHECK(book.forget_expired(9'000'000) == 1);
  CHECK(book.size() == 0);
}

TEST_CASE("jti_book: at its bound it reports full rather than forget a live jti", "[invite_token]") {
  jti_book book(/*capacity=*/3, /*leeway_ms=*/0);
  CHECK(book.record("a", 100));
  CHECK(book.record("b", 200));
  CHECK_FALSE(book.full());
  CHECK(book.record("c", 300));
  CHECK(book.full());
  // Nothing live is forgotten to make room: the room refuses new invites meanwhile.
  CHECK(book.forget_expired(50) == 0);
  CHECK(book.full());
  CHECK(book.seen("a"));
  // A use committed while full is still remembered (record never drops a fresh jti).
  CHECK(book.record("d", 400));
  CHECK(book.seen("d"));
  CHECK(book.forget_expired(200) == 2);
  CHECK_FALSE(book.full());
  CHECK(book.seen("c"));
  CHECK(book.seen("d"));
}

TEST_CASE("jti_book: encode and decode round trip, and damaged input is refused", "[invite_token]") {
  jti_book book;
  book.record("jti-2", 2'000);
  book.record("jti-1", 1'000);
  book.record(std::string(max_jti_bytes, 'j'), 3'000);
  writer w;
  book.encode(w);
  auto bytes = w.take();

  jti_book copy;
  reader r(bytes);
  REQUIRE(copy.decode(r));
  CHECK(r.done());
  CHECK(copy == book);
  CHECK(copy.seen("jti-1"));
  CHECK(copy.size() == 3);

  // Equal books, equal bytes, whatever the order they were filled in.
  jti_book reordered;
  reordered.record(std::string(max_jti_bytes, 'j'), 3'000);
  reordered.record("jti-1", 1'000);
  reordered.record("jti-2", 2'000);
  writer w2;
  reordered.encode(w2);
  CHECK(w2.bytes() == bytes);

  SECTION("a cut snapshot leaves the book unchanged") {
    jti_book target;
    target.record("kept", 5);
    reader cut(std::string_view(bytes).substr(0, bytes.size() - 1));
    CHECK_FALSE(target.decode(cut));
    CHECK(target.seen("kept"));
    CHECK(target.size() == 1);
  }
  SECTION("another format is refused") {
    auto other = bytes;
    other[0] = 9;
    reader foreign(other);
    CHECK_FALSE(jti_book().decode(foreign));
  }
  SECTION("a jti twice is refused") {
    writer dup;
    dup.u8(1);
    dup.u64(2);
    dup.i64(1);
    dup.str("same");
    dup.i64(2);
    dup.str("same");
    auto text = dup.take();
    reader twice(text);
    CHECK_FALSE(jti_book().decode(twice));
  }
  SECTION("an exp outside the NumericDate range is refused") {
    writer bad;
    bad.u8(1);
    bad.u64(1);
    bad.i64(-1);
    bad.str("negative");
    auto text = bad.take();
    reader negative(text);
    CHECK_FALSE(jti_book().decode(negative));
  }
  SECTION("a count larger than the input is refused without reading past it") {
    writer huge;
    huge.u8(1);
    huge.u64(~std::uint64_t{0});
    auto text = huge.take();
    reader lying(text);
    CHECK_FALSE(jti_book().decode(lying));
  }
}

TEST_CASE_METHOD(vectors, "an invite token is used once: replays and retried commits are no-ops", "[invite_token]") {
  auto token = this->token("ES256 accepted");
  auto first = check_invite(token, keys, expect());
  REQUIRE(std::holds_alternative<claims>(first));
  const auto& c = std::get<claims>(first);

  jti_book book;
  invite_used used{c.room, c.jti, c.exp_ms, now_ms};
  CHECK_FALSE(book.seen(c.jti));
  CHECK(apply(book, used));
  // The token still verifies; the book is what refuses it a second time.
  auto again = check_invite(token, keys, expect());
  REQUIRE(std::holds_alternative<claims>(again));
  CHECK(book.seen(std::get<claims>(again).jti));
  // A retried commit of the same use, or the event replayed from the log, changes nothing.
  invite_used retried{c.room, c.jti, c.exp_ms, now_ms + 5'000};
  CHECK_FALSE(apply(book, retried));
  CHECK_FALSE(apply(book, used));
  CHECK(book.size() == 1);

  // Replaying the log into a fresh book gives the same book.
  jti_book replayed;
  CHECK(apply(replayed, used));
  CHECK_FALSE(apply(replayed, retried));
  CHECK(replayed == book);
}

TEST_CASE("apply forgets what expired by the event's time", "[invite_token]") {
  jti_book book(/*capacity=*/4, /*leeway_ms=*/1'000);
  CHECK(apply(book, {"r", "old", 10'000, 5'000}));
  CHECK(apply(book, {"r", "new", 90'000, 10'999}));
  CHECK(book.seen("old"));
  CHECK(apply(book, {"r", "newer", 90'000, 11'000}));
  CHECK_FALSE(book.seen("old"));
  CHECK(book.size() == 2);
}
