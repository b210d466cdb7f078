// drand quicknet in the server: the pinned chain, round <-> time arithmetic, and the
// checks of a relay's answer, on real recorded rounds (tests/data/drand-quicknet-rounds.json).
// The server cannot check a round's BLS signature; the last test hands every round the
// parser accepts to the audit's verifier (web/js/drand.js, in Node).
#include <catch2/catch.hpp>
#include <simdjson.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/json.hpp"
#include "core/fairness/drand.hpp"

using namespace foyer;
namespace fs = std::filesystem;

namespace {

// FOYER_VECTORS is tests/data/fairness-vectors.json in the source tree.
const fs::path tests_dir = fs::path(FOYER_VECTORS).parent_path().parent_path();

struct recorded_round {
  std::uint64_t round;
  std::string signature;
  std::string randomness;
};

simdjson::dom::element recorded() {
  static simdjson::dom::parser parser;
  static simdjson::dom::element root = parser.load((tests_dir / "data" / "drand-quicknet-rounds.json").string());
  return root;
}

std::vector<recorded_round> recorded_rounds() {
  std::vector<recorded_round> out;
  for (auto r : recorded()["rounds"].get_array()) {
    out.push_back({r["round"].get_uint64().value(), std::string(r["signature"].get_string().value()),
                   std::string(r["randomness"].get_string().value())});
  }
  return out;
}

std::string answer(std::uint64_t round, std::string_view randomness, std::string_view signature) {
  return json_object().num("round", round).str("randomness", randomness).str("signature", signature).done();
}

std::string flip_bit(std::string hex, std::size_t bit) {
  auto& c = hex[bit / 4];
  int nibble = std::stoi(std::string(1, c), nullptr, 16) ^ (1 << (bit % 4));
  c = "0123456789abcdef"[nibble];
  return hex;
}

}  // namespace

TEST_CASE("drand: the pinned chain is quicknet as drand publishes it") {
  auto info = recorded()["info"];
  CHECK(drand::chain_hash == info["chain_hash"].get_string().value());
  CHECK(drand::public_key == info["public_key"].get_string().value());
  CHECK(drand::period_s == info["period"].get_int64().value());
  CHECK(drand::genesis_s == info["genesis_time"].get_int64().value());
  CHECK(drand::scheme == info["scheme"].get_string().value());
  CHECK(drand::relay_path(30662982) ==
        "/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/public/30662982");
}

TEST_CASE("drand: round times follow genesis and period, as web/js/drand.js counts them") {
  constexpr std::int64_t genesis_ms = 1692803367000;
  CHECK(drand::time_of_round_ms(1) == genesis_ms);
  CHECK(drand::time_of_round_ms(2) == genesis_ms + 3000);
  // Worked by hand: (1692803367 + (r - 1) × 3) s.
  CHECK(drand::time_of_round_ms(12040883) == 1728926013000);
  CHECK(drand::time_of_round_ms(30662982) == 1784792310000);

  CHECK(drand::round_at(genesis_ms - 1) == 0);
  CHECK(drand::round_at(genesis_ms) == 1);
  CHECK(drand::round_at(genesis_ms + 2999) == 1);
  CHECK(drand::round_at(genesis_ms + 3000) == 2);
  CHECK(drand::round_at(1784792312999) == 30662982);

  CHECK(drand::first_round_at_or_after(0) == 1);
  CHECK(drand::first_round_at_or_after(genesis_ms) == 1);
  CHECK(drand::first_round_at_or_after(genesis_ms + 1) == 2);
  CHECK(drand::first_round_at_or_after(1784792307001) == 30662982);
  CHECK(drand::first_round_at_or_after(1784792310000) == 30662982);
  CHECK(drand::first_round_at_or_after(1784792310001) == 30662983);
  for (std::int64_t ms = genesis_ms - 7000; ms < genesis_ms + 20000; ms += 250) {
    auto r = drand::first_round_at_or_after(ms);
    INFO(ms);
    CHECK(drand::time_of_round_ms(r) >= ms);
    CHECK((r == 1 || drand::time_of_round_ms(r - 1) < ms));
    CHECK(drand::round_at(drand::time_of_round_ms(r)) == r);
  }
}

TEST_CASE("drand: every recorded relay answer parses, with its randomness") {
  auto rounds = recorded_rounds();
  REQUIRE(rounds.size() >= 5);
  for (const auto& r : rounds) {
    INFO(r.round);
    auto parsed = drand::parse_answer(answer(r.round, r.randomness, r.signature), r.round);
    REQUIRE(std::holds_alternative<drand::round_value>(parsed));
    const auto& value = std::get<drand::round_value>(parsed);
    CHECK(value.round == r.round);
    CHECK(to_hex(value.sig) == r.signature);
    CHECK(to_hex(value.randomness) == r.randomness);
    CHECK(to_hex(drand::randomness(value.sig)) == r.randomness);
  }
}

TEST_CASE("drand: a relay answer that does not hold together is refused") {
  const auto r = recorded_rounds().at(4);
  auto error = [&](std::string_view json, std::uint64_t round) {
    auto parsed = drand::parse_answer(json, round);
    REQUIRE(std::holds_alternative<drand::answer_error>(parsed));
    return std::get<drand::answer_error>(parsed);
  };
  using drand::answer_error;
  CHECK(error(answer(r.round, r.randomness, r.signature), r.round + 1) == answer_error::wrong_round);
  CHECK(error(answer(r.round, r.randomness, flip_bit(r.signature, 200)), r.round) == answer_error::wrong_randomness);
  CHECK(error(answer(r.round, flip_bit(r.randomness, 3), r.signature), r.round) == answer_error::wrong_randomness);
  CHECK(error(answer(r.round, r.randomness, r.signature.substr(2)), r.round) == answer_error::signature_size);
  CHECK(error(answer(r.round, r.randomness, r.signature + "00"), r.round) == answer_error::signature_size);
  CHECK(error(answer(r.round, r.randomness, "zz" + r.signature.substr(2)), r.round) == answer_error::malformed);
  CHECK(error("", r.round) == answer_error::malformed);
  CHECK(error("[]", r.round) == answer_error::malformed);
  CHECK(error(R"({"round":"30662992","randomness":"00","signature":"00"})", r.round) == answer_error::malformed);
  CHECK(error(json_object().num("round", r.round).str("signature", r.signature).done(), r.round) ==
        answer_error::malformed);
  // Other members, as relays add (previous_signature on chained networks), are ignored.
  auto extra = json_object()
                   .str("randomness", r.randomness)
                   .num("round", r.round)
                   .str("previous_signature", "")
                   .str("signature", r.signature)
                   .done();
  CHECK(std::holds_alternative<drand::round_value>(drand::parse_answer(extra, r.round)));
}

// The split of the work: the server's checks pass a signature with a flipped bit and its
// SHA-256 as randomness (a relay that lies consistently); the audit's pairing check must
// refuse it, and accept every real round.
TEST_CASE("drand: the audit's verifier (node, web/js/drand.js) agrees on every round the parser accepts") {
  auto list = fs::temp_directory_path() / ("foyer-drand-" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream out(list);
    for (const auto& r : recorded_rounds()) {
      for (bool forged : {false, true}) {
        auto sig_hex = forged ? flip_bit(r.signature, 383) : r.signature;
        auto sig = from_hex_fixed<drand::signature_size>(sig_hex).value();
        auto parsed = drand::parse_answer(answer(r.round, to_hex(drand::randomness(sig)), sig_hex), r.round);
        REQUIRE(std::holds_alternative<drand::round_value>(parsed));
        out << r.round << ' ' << to_hex(std::get<drand::round_value>(parsed).sig) << ' '
            << (forged ? "invalid" : "valid") << '\n';
      }
    }
  }
  auto log = list.string() + ".log";
  auto command = "node '" + (tests_dir / "lib" / "drand-verify.js").string() + "' '" + list.string() + "' >'" + log +
                 "' 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(log);
  std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(list);
  fs::remove(log);
  INFO(output);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

TEST_CASE("drand: a round is drawn on once two relays agree, or from the only relay configured; with two or "
          "more configured, never on one relay's word, however long the wait") {
  using drand::beacon_check;
  drand::round_value a{7, {1}, {2}};
  drand::round_value b{7, {3}, {4}};
  using answers = std::vector<std::optional<drand::round_value>>;
  auto decide = [](const answers& given) { return drand::decide_beacon(given); };

  struct agreement {
    answers given;
    std::vector<std::size_t> agreed;
  };
  for (const auto& agree : {agreement{{a, a}, {0, 1}}, agreement{{std::nullopt, a, a}, {1, 2}},
                            agreement{{b, a, a}, {1, 2}}, agreement{{a, b, a}, {0, 2}}}) {
    auto d = decide(agree.given);
    REQUIRE(d.value);
    CHECK(*d.value == a);
    CHECK(d.check == beacon_check::two_relays);
    CHECK(d.agreed == agree.agreed);  // the relays named as those that agreed
  }
  // One relay configured: its round at once, with nothing behind it.
  auto only = decide({a});
  CHECK(only.value == a);
  CHECK(only.check == beacon_check::none);
  CHECK(only.agreed.empty());
  // Two configured, one answered (the other knocked offline): wait, with no fallback to it.
  for (const auto& lone : {answers{a, std::nullopt}, answers{std::nullopt, a}, answers{std::nullopt, std::nullopt, a}}) {
    auto d = decide(lone);
    CHECK_FALSE(d.value);
    CHECK_FALSE(d.contradicted);
  }
  // Two relays that contradict each other: never, and said so.
  auto d = decide({a, b});
  CHECK_FALSE(d.value);
  CHECK(d.contradicted);
  CHECK_FALSE(decide({std::nullopt, std::nullopt}).value);
  CHECK_FALSE(decide({}).value);
  CHECK(drand::to_string(beacon_check::two_relays) == "two_relays");
  CHECK(drand::to_string(beacon_check::none) == "none");
}
