#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "core/lanes/lane_split.hpp"
#include "core/lanes/lane_spec.hpp"

using namespace foyer;

namespace {

// Admits one at a time, as a sequence of lane indexes.
std::vector<std::size_t> admit_one_by_one(std::vector<lane_load>& lanes, std::uint64_t count) {
  std::vector<std::size_t> order;
  for (std::uint64_t n = 0; n < count; ++n) {
    auto given = split_admissions(lanes, 1);
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (given[i] == 1) order.push_back(i);
    }
  }
  return order;
}

}  // namespace

TEST_CASE("admission splits by share: within one visitor from the start, within two over any window", "[lanes]") {
  std::mt19937_64 rng(7);
  // The exact bounds, one at a time.
  for (int trial = 0; trial < 200; ++trial) {
    std::size_t n = 2 + rng() % 4;
    std::vector<lane_load> lanes;
    std::vector<double> shares;
    std::uint64_t left = share_scale;
    for (std::size_t i = 0; i < n; ++i) {
      auto share = i + 1 == n ? static_cast<std::uint32_t>(left) : static_cast<std::uint32_t>(rng() % (left / 2 + 1));
      left -= share;
      lanes.push_back({share, false, 1'000'000, 0});
      shares.push_back(static_cast<double>(share) / share_scale);
    }
    auto order = admit_one_by_one(lanes, 400);
    for (std::size_t lane = 0; lane < n; ++lane) {
      std::vector<std::uint64_t> count{0};
      for (auto i : order) count.push_back(count.back() + (i == lane));
      for (std::size_t b = 1; b <= order.size(); ++b) {
        INFO("lane " << lane << " share " << shares[lane] << " after " << b);
        REQUIRE(std::abs(static_cast<double>(count[b]) - shares[lane] * static_cast<double>(b)) < 1.0);
        for (std::size_t a = 0; a < b; a += 13) {
          REQUIRE(std::abs(static_cast<double>(count[b] - count[a]) - shares[lane] * static_cast<double>(b - a)) < 2.0);
        }
      }
    }
  }
}

TEST_CASE("a step's split is the one-by-one split: the ticker's step size changes nothing", "[lanes]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<lane_load> stepped, single;
    for (std::uint32_t share : {500'000u, 300'000u, 200'000u}) {
      auto waiting = rng() % 200;
      stepped.push_back({share, trial % 2 == 0 && share == 200'000u, waiting, 0});
    }
    single = stepped;
    std::vector<std::uint64_t> by_step(3, 0), by_one(3, 0);
    for (int s = 0; s < 40; ++s) {
      auto count = rng() % 9;
      auto given = split_admissions(stepped, count);
      for (std::uint64_t k = 0; k < count; ++k) {
        auto one = split_admissions(single, 1);
        for (std::size_t i = 0; i < 3; ++i) by_one[i] += one[i];
      }
      for (std::size_t i = 0; i < 3; ++i) by_step[i] += given[i];
      REQUIRE(by_step == by_one);
    }
  }
}

TEST_CASE("a lane with nobody waiting gives its share to the others, and earns no burst for later", "[lanes]") {
  std::vector<lane_load> lanes{{600'000, false, 0, 0}, {300'000, false, 1000, 0}, {100'000, false, 1000, 0}};
  auto given = split_admissions(lanes, 400);
  // 0.3 : 0.1 of everything, none lost.
  CHECK(given == std::vector<std::uint64_t>{0, 300, 100});
  // Visitors come to the idle lane: from here it gets its share, not a catch-up.
  lanes[0].waiting = 1000;
  given = split_admissions(lanes, 100);
  CHECK(given[0] == 60);
  CHECK(given[1] == 30);
  CHECK(given[2] == 10);
}

TEST_CASE("a lane runs dry in the middle of a step: the rest of the step goes to the others", "[lanes]") {
  std::vector<lane_load> lanes{{500'000, false, 3, 0}, {500'000, false, 100, 0}};
  auto given = split_admissions(lanes, 50);
  CHECK(given == std::vector<std::uint64_t>{3, 47});
  CHECK(lanes[0].waiting == 0);
  CHECK(lanes[0].deficit == 0);
}

TEST_CASE("a priority lane takes its share in full while the others wait, and no more", "[lanes]") {
  // Members: priority up to 0.5; residents 0.25, general 0.25, general empty.
  std::vector<lane_load> lanes{{250'000, false, 0, 0}, {500'000, true, 1000, 0}, {250'000, false, 1000, 0}};
  auto given = split_admissions(lanes, 100);
  CHECK(given == std::vector<std::uint64_t>{0, 50, 50});
  // Alone, it takes everything.
  lanes[2].waiting = 0;
  given = split_admissions(lanes, 10);
  CHECK(given == std::vector<std::uint64_t>{0, 10, 0});
}

TEST_CASE("lanes whose shares are all 0 share alike; nothing waiting admits nothing", "[lanes]") {
  std::vector<lane_load> lanes{{0, false, 10, 0}, {0, false, 10, 0}};
  CHECK(split_admissions(lanes, 4) == std::vector<std::uint64_t>{2, 2});
  std::vector<lane_load> empty{{500'000, false, 0, 0}, {500'000, false, 0, 0}};
  CHECK(split_admissions(empty, 4) == std::vector<std::uint64_t>{0, 0});
}
