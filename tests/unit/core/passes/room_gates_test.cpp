#include <catch2/catch.hpp>

#include <string>

#include "core/base/bytes.hpp"
#include "core/passes/pass.hpp"
#include "core/passes/pass_issuer.hpp"
#include "core/passes/room_gates.hpp"

using namespace foyer;

namespace {

constexpr std::int64_t t0 = 1'700'000'000;
constexpr std::int64_t lifetime = 600;
const std::string issuer = "https://queue.example";

pass::seed_bytes seed_of(std::uint8_t fill) {
  pass::seed_bytes seed;
  seed.fill(fill);
  return seed;
}

struct room_gates_fixture {
  pass::keyring ring{pass::key_from_seed(seed_of(1), t0)};
  id16 visitor = *from_hex_fixed<16>("00112233445566778899aabbccddeeff");

  pass::room_gates make_gates(std::size_t passes_per_room = pass::room_gates::default_passes_per_room,
                              std::size_t max_rooms = pass::room_gates::default_max_rooms) const {
    return pass::room_gates(ring.jwks_json(), issuer, passes_per_room, max_rooms);
  }

  // A pass as the server issues it: its jti is the visitor's pass id in the room.
  std::string pass_for(std::string_view room, const id16& who, std::int64_t issued_at = t0,
                       const pass::signing_key* signer = nullptr) const {
    return pass::sign_pass(signer ? *signer : ring.pass_signer(),
                           {issuer, std::string(room), to_hex(who), issued_at, issued_at, issued_at + lifetime,
                            to_hex(pass::pass_id(room, who))});
  }
};

}  // namespace

TEST_CASE_METHOD(room_gates_fixture, "a pass is its room's visitor until it expires, checked once and then looked up") {
  auto gates = make_gates();
  auto token = pass_for("hall", visitor);
  for (std::int64_t now : {t0, t0 + 1, t0 + lifetime - 1}) CHECK(gates.holder(token, "hall", now) == visitor);
  CHECK(gates.cached_passes("hall") == 1);
  // Cached, and still refused once its exp has passed.
  CHECK_FALSE(gates.holder(token, "hall", t0 + lifetime));
  CHECK_FALSE(gates.holder(token, "hall", t0 + lifetime + 3600));
}

TEST_CASE_METHOD(room_gates_fixture, "a cached pass does not pass for another room, nor does a token one character off") {
  auto gates = make_gates();
  auto token = pass_for("hall", visitor);
  REQUIRE(gates.holder(token, "hall", t0 + 1) == visitor);
  CHECK_FALSE(gates.holder(token, "annex", t0 + 1));
  CHECK(gates.rooms() == 2);
  CHECK(gates.cached_passes("annex") == 0);

  auto forged = token;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  CHECK_FALSE(gates.holder(forged, "hall", t0 + 1));
  // A payload of another visitor under the cached pass's signature.
  auto other = pass_for("hall", *from_hex_fixed<16>("ffeeddccbbaa99887766554433221100"));
  auto spliced = other.substr(0, other.rfind('.')) + token.substr(token.rfind('.'));
  CHECK_FALSE(gates.holder(spliced, "hall", t0 + 1));
  CHECK(gates.holder(token, "hall", t0 + 1) == visitor);
  CHECK(gates.cached_passes("hall") == 1);  // refusals are not remembered
}

TEST_CASE_METHOD(room_gates_fixture, "a signed pass whose jti or sub is not the server's is refused") {
  auto gates = make_gates();
  auto wrong_jti = pass::sign_pass(ring.pass_signer(), {issuer, "hall", to_hex(visitor), t0, t0, t0 + lifetime,
                                                        to_hex(pass::pass_id("annex", visitor))});
  CHECK_FALSE(gates.holder(wrong_jti, "hall", t0 + 1));
  CHECK_FALSE(gates.holder(wrong_jti, "hall", t0 + 1));  // cached by the gate, refused again here
  auto not_hex = pass::sign_pass(ring.pass_signer(), {issuer, "hall", "visitor-7", t0, t0, t0 + lifetime, "jti"});
  CHECK_FALSE(gates.holder(not_hex, "hall", t0 + 1));
  auto other_issuer = pass::sign_pass(ring.pass_signer(), {"https://elsewhere.example", "hall", to_hex(visitor), t0, t0,
                                                           t0 + lifetime, to_hex(pass::pass_id("hall", visitor))});
  CHECK_FALSE(gates.holder(other_issuer, "hall", t0 + 1));
  auto foreign_key = pass::key_from_seed(seed_of(9), t0);
  CHECK_FALSE(gates.holder(pass_for("hall", visitor, t0, &foreign_key), "hall", t0 + 1));
}

TEST_CASE_METHOD(room_gates_fixture, "the gates are bounded: passes per room, and rooms") {
  auto gates = make_gates(/*passes_per_room=*/2, /*max_rooms=*/3);
  for (std::uint8_t i = 0; i < 5; ++i) {
    id16 who{};
    who[0] = i;
    REQUIRE(gates.holder(pass_for("hall", who), "hall", t0 + 1) == who);
  }
  CHECK(gates.cached_passes("hall") == 2);

  for (std::string room : {"a", "b"}) REQUIRE(gates.holder(pass_for(room, visitor), room, t0 + 1) == visitor);
  CHECK(gates.rooms() == 3);
  // A fourth room drops the three gates (a removed room's with them); a pass of one of
  // them is checked in full again and still passes.
  REQUIRE(gates.holder(pass_for("c", visitor), "c", t0 + 1) == visitor);
  CHECK(gates.rooms() == 1);
  CHECK(gates.cached_passes("hall") == 0);
  CHECK(gates.holder(pass_for("a", visitor), "a", t0 + 1) == visitor);
  CHECK(gates.rooms() == 2);
}

TEST_CASE_METHOD(room_gates_fixture, "passes of every published key pass, ES256 ones too") {
  auto older = pass_for("hall", visitor);
  ring.add(pass::generate_key(t0 + 10, pass::key_type::es256));
  auto gates = make_gates();
  auto newer = pass_for("hall", visitor, t0 + 20);
  REQUIRE(pass::jws_alg(ring.pass_signer().type) == "ES256");
  CHECK(gates.holder(older, "hall", t0 + 21) == visitor);
  CHECK(gates.holder(newer, "hall", t0 + 21) == visitor);
}
