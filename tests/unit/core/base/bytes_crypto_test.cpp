#include <catch2/catch.hpp>

#include <set>

#include "core/base/bytes.hpp"
#include "core/base/crypto.hpp"

using namespace foyer;

TEST_CASE("random bytes never repeat, across pool refills and beside large reads") {
  // 4,000 small reads span about thirty refills of the 4 KiB pool; large reads in
  // between bypass it and must not disturb what it hands out.
  std::set<std::array<std::uint8_t, 24>> seen;
  std::set<std::array<std::uint8_t, 300>> large;
  const std::array<std::uint8_t, 24> zeros{};
  for (int i = 0; i < 4'000; ++i) {
    auto small = random_array<24>();
    CHECK(small != zeros);
    seen.insert(small);
    if (i % 100 == 0) large.insert(random_array<300>());
  }
  CHECK(seen.size() == 4'000);
  CHECK(large.size() == 40);
}

TEST_CASE("hex round-trips and refuses bad input") {
  byte_vector b = {0x00, 0x7f, 0xff, 0x10};
  CHECK(to_hex(b) == "007fff10");
  CHECK(from_hex("007fff10") == b);
  CHECK_FALSE(from_hex("0"));
  CHECK_FALSE(from_hex("zz"));
  CHECK_FALSE(from_hex_fixed<4>("007fff"));
  CHECK(from_hex("ABCDEF") == from_hex("abcdef"));
  // The characters just outside each digit range.
  for (const char* bad : {"/0", ":0", "`0", "g0", "@0", "G0", "0\xff", "0 "}) CHECK_FALSE(from_hex(bad));
  byte_vector every(256);
  for (int i = 0; i < 256; ++i) every[i] = static_cast<std::uint8_t>(i);
  CHECK(from_hex(to_hex(every)) == every);
}

TEST_CASE("big-endian 64-bit values are written and read most significant byte first") {
  std::uint8_t bytes[8];
  put_be64(bytes, 0x0102030405060708);
  CHECK(to_hex(byte_view(bytes, 8)) == "0102030405060708");
  CHECK(get_be64(bytes) == 0x0102030405060708);
  put_be64(bytes, ~std::uint64_t{0} - 1);
  CHECK(get_be64(bytes) == ~std::uint64_t{0} - 1);
}

TEST_CASE("base64url matches RFC 4648 vectors without padding") {
  CHECK(base64url_encode(as_bytes("")) == "");
  CHECK(base64url_encode(as_bytes("f")) == "Zg");
  CHECK(base64url_encode(as_bytes("fo")) == "Zm8");
  CHECK(base64url_encode(as_bytes("foo")) == "Zm9v");
  CHECK(base64url_encode(as_bytes("foob")) == "Zm9vYg");
  byte_vector hi = {0xfb, 0xff};
  CHECK(base64url_encode(hi) == "-_8");
  CHECK(base64url_decode("-_8") == hi);
  CHECK_FALSE(base64url_decode("Zm9v="));
  CHECK_FALSE(base64url_decode("Z"));
  CHECK_FALSE(base64url_decode("Zh"));  // non-canonical trailing bits
  CHECK_FALSE(base64url_decode("Zm+v"));  // standard base64, not base64url
  CHECK_FALSE(base64url_decode("Zm9vYmFy!m9v"));
  CHECK_FALSE(base64url_decode("Zm9vYm="));
  byte_vector bytes;
  for (int n = 0; n < 12; ++n) {
    CHECK(base64url_decode(base64url_encode(bytes)) == bytes);
    bytes.push_back(static_cast<std::uint8_t>(0xa5 ^ n * 37));
  }
}

TEST_CASE("sha256_short is SHA-256 for every length it takes") {
  CHECK(to_hex(sha256_short(as_bytes("abc"))) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  byte_vector message;
  for (std::size_t n = 0; n <= 55; ++n) {
    // Two parts take sha256's general path; one short part takes sha256_short's.
    byte_view whole(message);
    auto general = sha256({whole.first(n / 2), whole.subspan(n / 2)});
    CHECK(sha256_short(message) == general);
    CHECK(sha256(message) == general);
    message.push_back(static_cast<std::uint8_t>(n * 151 + 7));
  }
  CHECK_THROWS_AS(sha256_short(message), std::invalid_argument);  // 56 bytes need two blocks
  CHECK(sha256(message) == sha256({byte_view(message).first(1), byte_view(message).subspan(1)}));
}

TEST_CASE("SHA-256 and HMAC-SHA256 match published vectors") {
  CHECK(to_hex(sha256(as_bytes("abc"))) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(sha256({as_bytes("a"), as_bytes("bc")})) == to_hex(sha256(as_bytes("abc"))));
  // RFC 4231 test case 2.
  auto mac = hmac_sha256(as_bytes("Jefe"), {as_bytes("what do ya want for nothing?")});
  CHECK(to_hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  hmac_key key(as_bytes("Jefe"));
  CHECK(key.mac({as_bytes("what do ya "), as_bytes("want for nothing?")}) == mac);
  hmac_key copy = key;
  CHECK(copy.mac({as_bytes("what do ya want for nothing?")}) == mac);
  // RFC 4231 test case 6: a key longer than the block is hashed first.
  byte_vector long_key(131, 0xaa);
  CHECK(to_hex(hmac_sha256(long_key, {as_bytes("Test Using Larger Than Block-Size Key - Hash Key First")})) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("constant-time comparison") {
  CHECK(equal_constant_time(as_bytes("abc"), as_bytes("abc")));
  CHECK_FALSE(equal_constant_time(as_bytes("abc"), as_bytes("abd")));
  CHECK_FALSE(equal_constant_time(as_bytes("abc"), as_bytes("ab")));
}

TEST_CASE("base64 with padding: RFC 4648 test vectors, and only its own alphabet") {
  for (auto [plain, encoded] : {std::pair<std::string_view, std::string_view>{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="},
                                {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}}) {
    CHECK(base64_encode(as_bytes(plain)) == encoded);
    auto decoded = base64_decode(encoded);
    REQUIRE(decoded);
    CHECK(as_chars(*decoded) == plain);
  }
  CHECK_FALSE(base64_decode("Zm9v!"));
  CHECK_FALSE(base64_decode("Zm-_"));  // base64url's letters
  CHECK_FALSE(base64_decode("Zg"));    // padding missing
}
