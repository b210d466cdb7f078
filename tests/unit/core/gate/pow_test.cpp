#include <catch2/catch.hpp>

#include <cctype>
#include <map>
#include <random>
#include <stdexcept>

#include "core/gate/pow.hpp"

using namespace foyer;
using namespace foyer::pow;

namespace {

constexpr std::uint64_t start = 1'700'000'000'000;

network_key net(std::string_view address) { return network_of(*parse_ip(address)); }

salt fixed_salt(std::uint8_t seed) {
  salt s;
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(seed + i);
  return s;
}

std::string nonce_hex(std::uint64_t nonce) {
  std::uint8_t be[8];
  put_be64(be, nonce);
  return to_hex(be);
}

// The first nonce of `puzzle` whose hash misses the threshold: a wrong proof that is
// wrong by construction, not by luck.
std::uint64_t failing_nonce(const token_fields& f, std::uint32_t puzzle) {
  std::uint64_t nonce = 0;
  while (meets(puzzle_hash(f.mac, puzzle, nonce), f.threshold)) ++nonce;
  return nonce;
}

std::string flip_byte(std::string_view token, std::size_t index) {
  auto bytes = *base64url_decode(token);
  bytes[index] ^= 0x01;
  return base64url_encode(bytes);
}

struct fixture {
  byte_vector secret = byte_vector(32, 0x42);
  config cfg;
  authority auth{secret, cfg, start};
  network_key home = net("203.0.113.7");
  std::uint64_t now = start + 1'000;

  challenge mint_fixed(std::uint32_t extra_bits = 0) const {
    return auth.mint("sale", home, now, extra_bits, fixed_salt(1));
  }
};

}  // namespace

TEST_CASE_METHOD(fixture, "a solved challenge is accepted") {
  auto c = mint_fixed();
  CHECK(c.difficulty_bits == 16);
  CHECK(c.expires_at_ms == now + 120'000);
  auto proof = solve(c.token);
  CHECK(proof.size() == cfg.puzzles * nonce_hex_digits);

  auto r = auth.verify(c.token, proof, "sale", home, now + 5'000);
  CHECK(r.outcome == verdict::ok);
  CHECK(r.ok());
  CHECK(r.expires_at_ms == c.expires_at_ms);
  CHECK(r.challenge_id == get_be64(decode(c.token)->mac.data()));
  // Another host of the same /24 is the same client network.
  CHECK(auth.verify(c.token, proof, "sale", net("203.0.113.250"), now).ok());
  // Uppercase hex names the same nonces.
  std::string upper = proof;
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  CHECK(auth.verify(c.token, upper, "sale", home, now).ok());
}

TEST_CASE_METHOD(fixture, "random salts make every challenge distinct") {
  auto a = auth.mint("sale", home, now, 0);
  auto b = auth.mint("sale", home, now, 0);
  CHECK(a.token != b.token);
  CHECK(decode(a.token)->salt_bytes != decode(b.token)->salt_bytes);
}

TEST_CASE_METHOD(fixture, "a wrong proof is refused, in any puzzle") {
  auto c = mint_fixed();
  auto f = *decode(c.token);
  auto proof = solve(c.token);
  for (std::uint32_t puzzle : {0u, f.puzzles - 1}) {
    INFO("puzzle " << puzzle);
    std::string wrong = proof;
    wrong.replace(puzzle * nonce_hex_digits, nonce_hex_digits, nonce_hex(failing_nonce(f, puzzle)));
    CHECK(auth.verify(c.token, wrong, "sale", home, now).outcome == verdict::insufficient_work);
  }
  // A proof for one puzzle is no proof for another: the index is hashed.
  std::string shifted = proof.substr(nonce_hex_digits) + proof.substr(0, nonce_hex_digits);
  bool all_pass = true;
  for (std::uint32_t i = 0; i < f.puzzles; ++i) {
    all_pass = all_pass && meets(puzzle_hash(f.mac, i, get_be64(from_hex(shifted)->data() + 8 * i)), f.threshold);
  }
  REQUIRE_FALSE(all_pass);
  CHECK(auth.verify(c.token, shifted, "sale", home, now).outcome == verdict::insufficient_work);
}

TEST_CASE_METHOD(fixture, "expiry is exclusive of expires_at") {
  auto c = mint_fixed();
  auto proof = solve(c.token);
  CHECK(auth.verify(c.token, proof, "sale", home, c.expires_at_ms - 1).ok());
  auto r = auth.verify(c.token, proof, "sale", home, c.expires_at_ms);
  CHECK(r.outcome == verdict::expired);
  CHECK(r.expires_at_ms == c.expires_at_ms);
}

TEST_CASE_METHOD(fixture, "a challenge is bound to its room and network") {
  auto c = mint_fixed();
  auto proof = solve(c.token);
  CHECK(auth.verify(c.token, proof, "sale2", home, now).outcome == verdict::wrong_room);
  CHECK(auth.verify(c.token, proof, "", home, now).outcome == verdict::wrong_room);
  CHECK(auth.verify(c.token, proof, "sale", net("203.0.114.7"), now).outcome == verdict::wrong_network);
  CHECK(auth.verify(c.token, proof, "sale", net("2001:db8::1"), now).outcome == verdict::wrong_network);
}

TEST_CASE_METHOD(fixture, "tampering with any byte of the token is refused") {
  auto c = mint_fixed();
  auto proof = solve(c.token);
  for (std::size_t i = 0; i < token_size; ++i) {
    INFO("byte " << i);
    auto r = auth.verify(flip_byte(c.token, i), proof, "sale", home, now);
    // Version and puzzle count fail the shape check; every other byte fails the MAC.
    CHECK(r.outcome == (i < 2 ? verdict::malformed : verdict::bad_mac));
  }
  // Another server secret, same fields.
  authority other(byte_vector(32, 0x43), cfg, start);
  auto forged = other.mint("sale", home, now, 0, fixed_salt(1));
  CHECK(auth.verify(forged.token, solve(forged.token), "sale", home, now).outcome == verdict::bad_mac);
}

TEST_CASE_METHOD(fixture, "malformed tokens and nonces are refused before any hashing") {
  auto c = mint_fixed();
  auto proof = solve(c.token);
  auto outcome = [&](std::string_view token, std::string_view nonce) {
    return auth.verify(token, nonce, "sale", home, now).outcome;
  };
  CHECK(outcome("", proof) == verdict::malformed);
  CHECK(outcome(c.token.substr(1), proof) == verdict::malformed);
  CHECK(outcome(c.token + "A", proof) == verdict::malformed);
  CHECK(outcome("*" + c.token.substr(1), proof) == verdict::malformed);
  CHECK(outcome(c.token, "") == verdict::malformed);
  CHECK(outcome(c.token, proof.substr(1)) == verdict::malformed);
  CHECK(outcome(c.token, proof + "00") == verdict::malformed);
  CHECK(outcome(c.token, "g" + proof.substr(1)) == verdict::malformed);
  CHECK(outcome(c.token, proof.substr(nonce_hex_digits)) == verdict::malformed);
  CHECK(auth.verify(c.token.substr(1), proof, "sale", home, now).challenge_id == 0);
  CHECK_THROWS_AS(solve("nonsense"), std::invalid_argument);
}

TEST_CASE_METHOD(fixture, "challenges issued before the server started are refused") {
  auto c = mint_fixed();
  auto proof = solve(c.token);
  authority restarted(secret, cfg, now + 60'000);
  CHECK(restarted.verify(c.token, proof, "sale", home, now + 61'000).outcome == verdict::issued_before_start);
  // One minted at the start instant belongs to this run.
  authority same_instant(secret, cfg, now);
  CHECK(same_instant.verify(c.token, proof, "sale", home, now + 1).ok());
}

TEST_CASE_METHOD(fixture, "a challenge minted cheaper than the price at redemption is underpriced") {
  config cheap = cfg;
  cheap.base_bits = 4;
  authority a(secret, cheap, start);
  auto calm = a.mint("sale", home, now, 0, fixed_salt(1));
  auto proof = solve(calm.token);
  CHECK(a.verify(calm.token, proof, "sale", home, now, 0).ok());
  auto r = a.verify(calm.token, proof, "sale", home, now, 1);
  CHECK(r.outcome == verdict::underpriced);
  CHECK(to_string(r.outcome) == "underpriced");
  // Paying more than asked is fine: the price may fall between issue and redemption.
  auto dear = a.mint("sale", home, now, 3, fixed_salt(2));
  CHECK(a.verify(dear.token, solve(dear.token), "sale", home, now, 1).ok());
  // The price asked at redemption is capped as the price asked at issue is.
  CHECK(a.difficulty_bits(max_difficulty_bits + 5) == max_difficulty_bits);
}

TEST_CASE_METHOD(fixture, "difficulty 0 accepts any nonce") {
  config free = cfg;
  free.base_bits = 0;
  authority open(secret, free, start);
  auto c = open.mint("sale", home, now, 0, fixed_salt(1));
  CHECK(c.difficulty_bits == 0);
  CHECK(decode(c.token)->threshold == ~std::uint64_t{0});
  CHECK(solve(c.token) == std::string(free.puzzles * nonce_hex_digits, '0'));
  CHECK(open.verify(c.token, std::string(free.puzzles * nonce_hex_digits, 'f'), "sale", home, now).ok());
  // Extra bits still apply on top of a zero base.
  CHECK(open.mint("sale", home, now, 3, fixed_salt(1)).difficulty_bits == 3);
}

TEST_CASE("thresholds make any work multiplier exact, not only powers of two") {
  // 16 bits over 8 puzzles: each try passes with probability 8 / 2^16 = 2^-13.
  CHECK(puzzle_threshold(std::uint64_t{1} << 16, 8) == (std::uint64_t{1} << 51) - 1);
  CHECK(puzzle_threshold(std::uint64_t{1} << 16, 1) == (std::uint64_t{1} << 48) - 1);
  for (std::uint64_t work : {std::uint64_t{1} << 16, std::uint64_t{100'000}, std::uint64_t{1} << 30}) {
    for (std::uint32_t k : {1u, 8u, 10u, 64u}) {
      INFO("work " << work << ", puzzles " << k);
      std::uint64_t base = puzzle_threshold(work, k) + 1;
      // (threshold + 1) is floor(k 2^64 / work), so 3x the work is floor(base / 3) exactly.
      CHECK(puzzle_threshold(3 * work, k) + 1 == base / 3);
      CHECK(puzzle_threshold(2 * work, k) + 1 == base / 2);
    }
  }
  CHECK(puzzle_threshold(8, 8) == ~std::uint64_t{0});
  CHECK(puzzle_threshold(1, 1) == ~std::uint64_t{0});
  CHECK(puzzle_threshold(9, 8) + 1 == 16'397'105'843'297'379'214u);  // floor(8 * 2^64 / 9)
}

TEST_CASE_METHOD(fixture, "extra bits multiply the work and are capped") {
  for (std::uint32_t extra : {0u, 1u, 6u}) {
    auto c = mint_fixed(extra);
    CHECK(c.difficulty_bits == 16 + extra);
    CHECK(decode(c.token)->threshold == puzzle_threshold(std::uint64_t{1} << (16 + extra), cfg.puzzles));
  }
  CHECK(mint_fixed(1000).difficulty_bits == max_difficulty_bits);
  CHECK(mint_fixed(~0u).difficulty_bits == max_difficulty_bits);
}

TEST_CASE_METHOD(fixture, "decode returns the minted fields") {
  auto c = mint_fixed(2);
  auto f = decode(c.token);
  REQUIRE(f);
  CHECK(f->puzzles == cfg.puzzles);
  CHECK(f->room_hash == sha256(as_bytes("sale")));
  CHECK(f->network == home);
  CHECK(f->issued_at_ms == now);
  CHECK(f->expires_at_ms == now + cfg.challenge_ttl_ms);
  CHECK(f->salt_bytes == fixed_salt(1));
  CHECK(c.token.size() == 151);
}

TEST_CASE("puzzle hash layout: SHA-256(mac || be32(index) || be64(nonce))") {
  digest mac;
  for (std::size_t i = 0; i < mac.size(); ++i) mac[i] = static_cast<std::uint8_t>(i);
  byte_vector input(mac.begin(), mac.end());
  append(input, byte_vector{0, 0, 0, 3});
  append_be64(input, 0x0102030405060708);
  CHECK(puzzle_hash(mac, 3, 0x0102030405060708) == sha256(input));
  // Shared with tests/js/pow.test.js so both solvers hash the same bytes.
  CHECK(to_hex(puzzle_hash(mac, 3, 0x0102030405060708)) == "ebb49d88ce4f1ea44906f5c6b066110a52432b07e24f1a35726c644921b18fd0");
  CHECK(meets(puzzle_hash(mac, 3, 0x0102030405060708), ~std::uint64_t{0}));
}

TEST_CASE("a fixed challenge and its solution, shared with the JavaScript solver") {
  config cfg;
  cfg.base_bits = 12;
  cfg.puzzles = 4;
  authority auth(byte_vector(32, 0x42), cfg, start);
  auto c = auth.mint("vector-room", network_of(*parse_ip("198.51.100.23")), start, 0, fixed_salt(7));
  CHECK(c.token ==
        "AQRLmi8gD43HWyyCw-4ni9-S8A_icquNVMefaYmVApxsEwTGM2QAAAAAAAGLz-VoAAAAAYvP5zzAAD________8HCAkKCwwNDg8QERIT"
        "FBUWSc7E1iw5QuVY_j7Ai8bh53a_HElD_tUx1lO3y9zOmo4");
  CHECK(solve(c.token) == "00000000000001f500000000000000a10000000000000801000000000000049e");
}

TEST_CASE("verdicts have stable names for logs and metrics") {
  CHECK(to_string(verdict::ok) == "ok");
  CHECK(to_string(verdict::malformed) == "malformed");
  CHECK(to_string(verdict::bad_mac) == "bad_mac");
  CHECK(to_string(verdict::wrong_room) == "wrong_room");
  CHECK(to_string(verdict::wrong_network) == "wrong_network");
  CHECK(to_string(verdict::expired) == "expired");
  CHECK(to_string(verdict::issued_before_start) == "issued_before_start");
  CHECK(to_string(verdict::insufficient_work) == "insufficient_work");
}

TEST_CASE("bad config and short secrets are refused at construction") {
  byte_vector secret(32, 1);
  auto refuses = [&](auto change, std::string_view message) {
    config cfg;
    change(cfg);
    CHECK_THROWS_WITH(authority(secret, cfg, start), std::string(message));
  };
  refuses([](config& c) { c.base_bits = 41; }, "pow config: base_bits must be at most 40");
  refuses([](config& c) { c.puzzles = 0; }, "pow config: puzzles must be 1 to 64");
  refuses([](config& c) { c.puzzles = 65; }, "pow config: puzzles must be 1 to 64");
  refuses([](config& c) { c.challenge_ttl_ms = 0; }, "pow config: challenge_ttl_ms must be positive");
  refuses([](config& c) { c.pressure_window_ms = 0; }, "pow config: pressure_window_ms must be positive");
  refuses([](config& c) { c.pressure_threshold = 0; }, "pow config: pressure_threshold must be positive");
  refuses([](config& c) { c.max_pressure_bits = 41; }, "pow config: max_pressure_bits must be at most 40");
  refuses([](config& c) { c.tracked_networks = 0; }, "pow config: tracked_networks must be positive");
  refuses([](config& c) { c.spent_capacity = 0; }, "pow config: spent_capacity must be positive");
  CHECK_THROWS_WITH(authority(byte_vector(15, 1), config{}, start), "pow secret must be at least 16 bytes");
  CHECK_NOTHROW(authority(byte_vector(16, 1), config{}, start));
}

TEST_CASE("the spent set redeems each challenge once until it expires") {
  spent_set spent(3);
  CHECK(spent.try_spend(1, 1'000, 0) == spend_outcome::spent);
  CHECK(spent.try_spend(1, 1'000, 10) == spend_outcome::already_spent);
  CHECK(spent.try_spend(1, 1'000, 999) == spend_outcome::already_spent);
  CHECK(spent.try_spend(2, 500, 10) == spend_outcome::spent);
  CHECK(spent.try_spend(3, 2'000, 10) == spend_outcome::spent);
  CHECK(spent.size() == 3);
  CHECK(spent.try_spend(4, 2'000, 10) == spend_outcome::full);
  // Ids leave in expiry order, not spending order.
  CHECK(spent.try_spend(4, 2'000, 500) == spend_outcome::spent);
  CHECK(spent.size() == 3);
  CHECK(spent.try_spend(1, 1'000, 500) == spend_outcome::already_spent);
  CHECK(spent.try_spend(5, 1'000, 1'000) == spend_outcome::expired);
  CHECK(spent.size() == 2);  // id 1 pruned at its expiry
  CHECK(spent.try_spend(5, 3'000, 1'000) == spend_outcome::spent);
  CHECK(spent.try_spend(9, 9'000, 5'000) == spend_outcome::spent);
  CHECK(spent.size() == 1);
}

TEST_CASE("a spend given back may be redeemed again, once") {
  spent_set spent(4);
  REQUIRE(spent.try_spend(0, 1'000, 0) == spend_outcome::spent);
  REQUIRE(spent.try_spend(1, 1'000, 0) == spend_outcome::spent);
  REQUIRE(spent.try_spend(1025, 1'000, 0) == spend_outcome::spent);  // shares id 1's home slot
  spent.give_back(1);
  spent.give_back(0);
  CHECK(spent.size() == 1);
  CHECK(spent.try_spend(1025, 1'000, 1) == spend_outcome::already_spent);  // still found past the gap
  CHECK(spent.try_spend(1, 1'000, 1) == spend_outcome::spent);
  CHECK(spent.try_spend(1, 1'000, 2) == spend_outcome::already_spent);
  CHECK(spent.try_spend(0, 1'000, 2) == spend_outcome::spent);
  spent.give_back(77);  // never spent: nothing changes
  CHECK(spent.size() == 3);
  // Expiry removes each id once, though the first spends are still scheduled too.
  CHECK(spent.try_spend(2, 5'000, 1'000) == spend_outcome::spent);
  CHECK(spent.size() == 1);
}

TEST_CASE("the spent set agrees with a plain model through growth, collisions and expiry") {
  // Ids crowd into a few home slots (equal low bits) and include 0, so probe runs
  // are long, wrap around, and lose members from their middle as ids expire.
  spent_set spent(5'000);
  std::map<std::uint64_t, std::uint64_t> model;  // id -> expires_at
  std::multimap<std::uint64_t, std::uint64_t> model_expiry;  // expires_at -> id
  std::mt19937_64 random(7);
  std::uint64_t now = 0;
  std::map<spend_outcome, int> seen;
  for (int step = 0; step < 60'000; ++step) {
    now += random() % 3;
    std::uint64_t id = (random() % 20'000) << 20 | (random() % 4) * 1023;
    std::uint64_t expires_at = now + random() % 12'000;
    while (!model_expiry.empty() && model_expiry.begin()->first <= now) {
      model.erase(model_expiry.begin()->second);
      model_expiry.erase(model_expiry.begin());
    }
    spend_outcome expected = expires_at <= now        ? spend_outcome::expired
                             : model.contains(id)     ? spend_outcome::already_spent
                             : model.size() >= 5'000  ? spend_outcome::full
                                                      : spend_outcome::spent;
    if (expected == spend_outcome::spent) {
      model.emplace(id, expires_at);
      model_expiry.emplace(expires_at, id);
    }
    REQUIRE(spent.try_spend(id, expires_at, now) == expected);
    REQUIRE(spent.size() == model.size());
    ++seen[expected];
  }
  CHECK(seen.size() == 4);  // every outcome, "full" included, came up
}

TEST_CASE_METHOD(fixture, "a verified challenge replayed through the spent set is refused") {
  spent_set spent(cfg.spent_capacity);
  auto c = mint_fixed();
  auto proof = solve(c.token);
  auto first = auth.verify(c.token, proof, "sale", home, now);
  REQUIRE(first.ok());
  CHECK(spent.try_spend(first.challenge_id, first.expires_at_ms, now) == spend_outcome::spent);
  auto again = auth.verify(c.token, proof, "sale", home, now + 1);
  REQUIRE(again.ok());
  CHECK(again.challenge_id == first.challenge_id);
  CHECK(spent.try_spend(again.challenge_id, again.expires_at_ms, now + 1) == spend_outcome::already_spent);
  // Another challenge from the same client is independent.
  auto other = auth.mint("sale", home, now, 0, fixed_salt(2));
  auto r = auth.verify(other.token, solve(other.token), "sale", home, now);
  REQUIRE(r.ok());
  CHECK(r.challenge_id != first.challenge_id);
  CHECK(spent.try_spend(r.challenge_id, r.expires_at_ms, now) == spend_outcome::spent);
}
