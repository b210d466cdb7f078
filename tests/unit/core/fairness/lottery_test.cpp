#include <catch2/catch.hpp>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/fairness/lottery.hpp"

using namespace foyer;
using lottery::permutation;

namespace {

simdjson::dom::element vectors() {
  static simdjson::dom::parser parser;
  static simdjson::dom::element root = parser.load(FOYER_VECTORS);
  return root;
}

digest hex32(std::string_view hex) {
  auto bytes = from_hex_fixed<32>(hex);
  REQUIRE(bytes);
  return *bytes;
}

// Deterministic, distinct keys for the statistical tests.
digest key_number(std::uint64_t counter) {
  std::uint8_t buf[8];
  put_be64(buf, counter);
  return sha256(buf);
}

double chi_square(const std::vector<std::uint64_t>& counts, double expected) {
  double sum = 0;
  for (auto c : counts) sum += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return sum;
}

// Spearman's rho between index and place; places of a bijection are already ranks.
double spearman(const permutation& p) {
  double n = static_cast<double>(p.size());
  double squares = 0;
  for (std::uint64_t i = 0; i < p.size(); ++i) {
    double d = static_cast<double>(p.place(i)) - static_cast<double>(i);
    squares += d * d;
  }
  return 1 - 6 * squares / (n * (n * n - 1));
}

}  // namespace

TEST_CASE("lottery commitment and key reproduce the vectors") {
  for (auto v : vectors()["key"].get_array()) {
    auto seed = hex32(v["seed"].get_string().value());
    auto root = hex32(v["lobby_root"].get_string().value());
    auto beacon = from_hex(v["beacon"].get_string().value());
    REQUIRE(beacon);
    CHECK(to_hex(lottery::commitment(seed)) == v["commitment"].get_string().value());
    CHECK(to_hex(lottery::derive_key(seed, root, *beacon)) == v["key"].get_string().value());
  }
}

TEST_CASE("lottery places reproduce the vectors") {
  for (auto v : vectors()["places"].get_array()) {
    std::uint64_t n = v["n"].get_uint64().value();
    std::uint64_t index = v["index"].get_uint64().value();
    std::uint64_t place = v["place"].get_uint64().value();
    permutation p(hex32(v["key"].get_string().value()), n);
    INFO("n = " << n << ", index = " << index);
    CHECK(p.place(index) == place);
    CHECK(p.holder(place) == index);
  }
  auto full = vectors()["full_permutation"];
  permutation p(hex32(full["key"].get_string().value()), full["n"].get_uint64().value());
  std::uint64_t index = 0;
  for (auto place : full["places"].get_array()) CHECK(p.place(index++) == place.get_uint64().value());
  CHECK(index == p.size());
}

TEST_CASE("lottery permutation refuses sizes and indexes outside its range") {
  digest key = key_number(0);
  CHECK_THROWS_AS(permutation(key, 0), std::invalid_argument);
  CHECK_THROWS_AS(permutation(key, lottery::lobby_size_limit), std::invalid_argument);
  CHECK_NOTHROW(permutation(key, lottery::lobby_size_limit - 1));
  permutation p(key, 5);
  CHECK_THROWS_AS(p.place(5), std::out_of_range);
  CHECK_THROWS_AS(p.holder(5), std::out_of_range);
}

TEST_CASE("lottery π is a bijection with inverse π⁻¹ for every N from 1 to 2000") {
  std::uint64_t first_bad_n = 0;
  for (std::uint64_t n = 1; n <= 2000 && first_bad_n == 0; ++n) {
    permutation p(key_number(n), n);
    std::vector<bool> taken(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t place = p.place(i);
      if (place >= n || taken[place] || p.holder(place) != i) {
        first_bad_n = n;
        break;
      }
      taken[place] = true;
    }
  }
  CHECK(first_bad_n == 0);
}

TEST_CASE("lottery π and π⁻¹ agree on samples of large lobbies") {
  for (std::uint64_t n : {std::uint64_t{10'000'000}, (std::uint64_t{1} << 40) + 3,
                          lottery::lobby_size_limit - 1}) {
    INFO("n = " << n);
    permutation p(key_number(n), n);
    constexpr std::uint64_t samples = 1000;
    std::vector<std::uint64_t> places;
    for (std::uint64_t s = 0; s < samples; ++s) {
      std::uint64_t index = s == samples - 1 ? n - 1 : s * (n / samples) + s;
      std::uint64_t place = p.place(index);
      REQUIRE(place < n);
      REQUIRE(p.holder(place) == index);
      places.push_back(place);
    }
    std::sort(places.begin(), places.end());
    CHECK(std::adjacent_find(places.begin(), places.end()) == places.end());
  }
}

TEST_CASE("lottery place of a fixed index is uniform over keys (chi-square)") {
  // Critical values of chi-square at p = 0.001; the keys are fixed, so this never flakes.
  // The large lobby is above table_lobby_limit, so each key's rounds are computed for the
  // one place asked rather than tabulated (40,960 HMACs a key at 10 million).
  struct scenario {
    std::uint64_t n, index, bins, keys;
    double critical;
  };
  for (auto s : {scenario{37, 0, 37, 7400, 67.985}, scenario{37, 36, 37, 7400, 67.985},
                 scenario{20'000'000, 12'345'678, 20, 4000, 43.820}}) {
    INFO("n = " << s.n << ", index = " << s.index);
    std::vector<std::uint64_t> counts(s.bins);
    for (std::uint64_t k = 0; k < s.keys; ++k) {
      permutation p(key_number(k), s.n);
      ++counts[p.place(s.index) * s.bins / s.n];
    }
    CHECK(chi_square(counts, static_cast<double>(s.keys) / static_cast<double>(s.bins)) <
          s.critical);
  }
}

TEST_CASE("lottery places are uncorrelated with join order (Spearman)") {
  // Under independence rho has standard deviation 1/sqrt(n - 1); allow five of them.
  for (std::uint64_t k = 0; k < 20; ++k) {
    permutation p(key_number(1000 + k), 4000);
    INFO("key " << k);
    CHECK(std::abs(spearman(p)) < 5 / std::sqrt(3999.0));
  }
  permutation large(key_number(2000), 50'000);
  CHECK(std::abs(spearman(large)) < 5 / std::sqrt(49'999.0));
}
