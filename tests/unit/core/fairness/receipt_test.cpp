#include <catch2/catch.hpp>
#include <sodium.h>

#include <string>
#include <vector>

#include "core/base/crypto.hpp"
#include "core/fairness/merkle.hpp"
#include "core/fairness/receipt.hpp"

using namespace foyer;
using receipt::receipt_fields;

namespace {

struct signer {
  signer() {
    REQUIRE(sodium_init() >= 0);
    digest seed{};
    for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i);
    crypto_sign_seed_keypair(public_key_.data(), secret_key_.data(), seed.data());
  }
  receipt::secret_key secret_key_{};
  receipt::public_key public_key_{};
};

std::vector<receipt_fields> joins(std::size_t count) {
  std::vector<receipt_fields> out;
  for (std::size_t i = 0; i < count; ++i) {
    receipt_fields f;
    f.room = "spring-sale";
    f.lobby_index = 1000 + i;
    for (std::size_t b = 0; b < f.entrant_id.size(); ++b) {
      f.entrant_id[b] = static_cast<std::uint8_t>(i * 16 + b);
    }
    f.joined_at_ms = 1'767'225'600'000 + i;
    f.commitment = sha256(as_bytes("seed"));
    out.push_back(f);
  }
  return out;
}

// Shared with tests/js/lottery.test.js, which checks the same receipt in JavaScript:
// batch of 3 joins(3), key seed 00 01 .. 1f, receipt 1.
constexpr std::string_view cross_language_receipt =
    R"({"version":"v1","room":"spring-sale","lobby_index":1001,)"
    R"("entrant_id":"101112131415161718191a1b1c1d1e1f","joined_at":1767225600001,)"
    R"("commitment":"19b25856e1c150ca834cffc8b59b23adbd0ec0389e58eb22b3b64768098d002b",)"
    R"("kid":"room-key-1","batch_size":3,"batch_index":1,"batch_path":[)"
    R"("a1655e44313a989c7cd3f1eedef2af379f25ffef9e523395299be58d3992674b",)"
    R"("a4f74fab4c8af980e71d0ed162d9d19e9de17ba408de2d285f04cf68e4aacf8d"],)"
    R"("signature":"10aaae49525d403152a5124ba5dbee79279d8c8ec98beebaff5ea7efa7a38513)"
    R"(443410b47cafb65eea285f5974daae07fd8b26f44e111ba3cb22f1dd3530a605"})";

}  // namespace

TEST_CASE_METHOD(signer, "receipt message has the documented bytes") {
  receipt_fields f;
  f.room = "ab";
  f.lobby_index = 0x0102030405060708;
  for (std::size_t b = 0; b < 16; ++b) f.entrant_id[b] = static_cast<std::uint8_t>(0xa0 + b);
  f.joined_at_ms = 0x0000019b00000001;
  f.commitment.fill(0xcc);
  CHECK(to_hex(receipt::message(f)) ==
        "666f7965722f726563656970742f7631"  // "foyer/receipt/v1"
        "02" "6162"                          // room
        "0102030405060708"                  // lobby index
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"  // entrant id
        "0000019b00000001"                  // joined at
        "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
  digest root{};
  CHECK(to_hex(receipt::batch_message(root)) ==
        "666f7965722f726563656970742d62617463682f7631" + std::string(64, '0'));
  f.room = std::string(receipt::max_room_length + 1, 'r');
  CHECK_THROWS_AS(receipt::message(f), std::invalid_argument);
}

TEST_CASE_METHOD(signer, "receipt batches of 1 and 37 verify, each receipt on its own") {
  for (std::size_t count : {1, 37}) {
    auto receipts = receipt::sign_batch(joins(count), secret_key_, "room-key-1");
    REQUIRE(receipts.size() == count);
    for (std::size_t i = 0; i < count; ++i) {
      INFO("batch of " << count << ", receipt " << i);
      CHECK(receipts[i].batch_index == i);
      CHECK(receipts[i].batch_size == count);
      CHECK(receipts[i].lobby_index == 1000 + i);
      CHECK(receipts[i].kid == "room-key-1");
      CHECK(receipt::verify(receipts[i], public_key_));
    }
  }
  CHECK(receipt::sign_batch({}, secret_key_, "room-key-1").empty());
}

TEST_CASE_METHOD(signer, "receipt verification fails for any tampered field, path or key") {
  auto receipts = receipt::sign_batch(joins(37), secret_key_, "room-key-1");
  const receipt::receipt good = receipts[20];
  REQUIRE(receipt::verify(good, public_key_));

  auto tampered = [&](auto change) {
    receipt::receipt r = good;
    change(r);
    return receipt::verify(r, public_key_);
  };
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.room = "spring-salf"; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.lobby_index += 1; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.entrant_id[15] ^= 1; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.joined_at_ms -= 1; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.commitment[0] ^= 0x80; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.batch_index = 21; }));
  // The size only shapes the path: any size in (32, 64] gives leaf 20 the same path.
  CHECK(tampered([](receipt::receipt& r) { r.batch_size = 64; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.batch_size = 32; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.batch_size = 20; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.batch_path[2][7] ^= 4; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.batch_path.pop_back(); }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.signature[63] ^= 1; }));
  CHECK_FALSE(tampered([&](receipt::receipt& r) { r.batch_path = receipts[21].batch_path; }));
  CHECK_FALSE(tampered([](receipt::receipt& r) { r.room = std::string(receipt::max_room_length + 1, 'r'); }));
  receipt::public_key other = public_key_;
  other[0] ^= 1;
  CHECK_FALSE(receipt::verify(good, other));
}

TEST_CASE_METHOD(signer, "receipt JSON round-trips and matches the cross-language receipt") {
  auto receipts = receipt::sign_batch(joins(3), secret_key_, "room-key-1");
  auto json = receipt::to_json(receipts[1]);
  CHECK(json == cross_language_receipt);
  auto parsed = receipt::from_json(json);
  REQUIRE(parsed);
  CHECK(receipt::to_json(*parsed) == json);
  CHECK(receipt::verify(*parsed, public_key_));
}

TEST_CASE("receipt JSON escapes strings and refuses malformed receipts") {
  receipt::receipt r;
  r.room = "a\"b\\c\n";
  r.kid = "k";
  r.batch_size = 1;
  auto json = receipt::to_json(r);
  CHECK(json.find(R"("room":"a\"b\\c\n")") != std::string::npos);
  auto parsed = receipt::from_json(json);
  REQUIRE(parsed);
  CHECK(parsed->room == r.room);

  auto without = [&](std::string_view from, std::string_view to) {
    std::string changed = json;
    auto at = changed.find(from);
    REQUIRE(at != std::string::npos);
    changed.replace(at, from.size(), to);
    return receipt::from_json(changed);
  };
  CHECK_FALSE(without(R"("version":"v1")", R"("version":"v2")"));
  CHECK_FALSE(without(R"("kid":"k",)", ""));
  CHECK_FALSE(without(R"("lobby_index":0)", R"("lobby_index":-1)"));
  CHECK_FALSE(without(R"("entrant_id":"00)", R"("entrant_id":")"));
  CHECK_FALSE(without(R"("commitment":"00)", R"("commitment":"0g)"));
  CHECK_FALSE(without(R"("batch_path":[])", R"("batch_path":["00"])"));
  CHECK_FALSE(without(R"("room":"a\"b\\c\n")", "\"room\":\"" + std::string(256, 'r') + "\""));
  CHECK_FALSE(receipt::from_json("[]"));
  CHECK_FALSE(receipt::from_json("{"));
}
