#include <catch2/catch.hpp>

#include "core/gate/join_pressure.hpp"

using namespace foyer;
using namespace foyer::pow;

namespace {

network_key net(std::string_view address) { return network_of(*parse_ip(address)); }

// Window 60 s, threshold 16, at most 6 extra bits: the defaults.
struct pressure_fixture {
  config cfg;
  join_pressure pressure{cfg};
  network_key busy = net("198.51.100.1");
  network_key quiet = net("203.0.113.1");
  std::uint64_t t0 = 1'000 * cfg.pressure_window_ms;  // the start of a window

  void burst(const network_key& network, int joins, std::uint64_t at) {
    for (int i = 0; i < joins; ++i) pressure.record(network, at);
  }
};

}  // namespace

TEST_CASE_METHOD(pressure_fixture, "one extra bit per doubling above the threshold, capped") {
  struct step {
    int joins;
    std::uint32_t bits;
  };
  int recorded = 0;
  for (auto [joins, bits] : {step{1, 0}, step{15, 0}, step{16, 1}, step{31, 1}, step{32, 2}, step{63, 2},
                             step{64, 3}, step{128, 4}, step{256, 5}, step{511, 5}, step{512, 6},
                             step{5000, 6}}) {
    INFO(joins << " joins");
    burst(busy, joins - recorded, t0 + 10);
    recorded = joins;
    CHECK(pressure.joins(busy, t0 + 10) == static_cast<std::uint64_t>(joins));
    CHECK(pressure.extra_bits(busy, t0 + 10) == bits);
  }
}

TEST_CASE_METHOD(pressure_fixture, "a burst raises only its own network's price") {
  burst(quiet, 3, t0);
  burst(busy, 100, t0 + 1'000);
  CHECK(pressure.extra_bits(busy, t0 + 1'000) == 3);
  CHECK(pressure.extra_bits(quiet, t0 + 1'000) == 0);
  CHECK(pressure.extra_bits(net("198.51.101.1"), t0 + 1'000) == 0);  // the next /24
  CHECK(pressure.extra_bits(net("198.51.100.250"), t0 + 1'000) == 3);  // same /24
  CHECK(pressure.joins(quiet, t0 + 1'000) == 3);
}

TEST_CASE_METHOD(pressure_fixture, "the price decays back once the burst ends") {
  const std::uint64_t w = cfg.pressure_window_ms;
  burst(busy, 64, t0);
  CHECK(pressure.extra_bits(busy, t0 + w - 1) == 3);
  // In the next window the old one counts by its remaining overlap with the sliding window.
  CHECK(pressure.joins(busy, t0 + w) == 64);
  CHECK(pressure.joins(busy, t0 + w + w / 2) == 32);
  CHECK(pressure.extra_bits(busy, t0 + w + w / 2) == 2);
  CHECK(pressure.joins(busy, t0 + w + 3 * w / 4) == 16);
  CHECK(pressure.extra_bits(busy, t0 + w + 3 * w / 4) == 1);
  CHECK(pressure.extra_bits(busy, t0 + w + 3 * w / 4 + 1) == 0);
  CHECK(pressure.joins(busy, t0 + 2 * w) == 0);
  CHECK(pressure.joins(busy, t0 + 10 * w) == 0);
}

TEST_CASE_METHOD(pressure_fixture, "a sustained rate keeps its price across window boundaries") {
  const std::uint64_t w = cfg.pressure_window_ms;
  // 40 joins per window, one every 1.5 s, for five windows.
  for (std::uint64_t t = t0; t < t0 + 5 * w; t += 1'500) {
    pressure.record(busy, t);
    if (t > t0 + w) {
      INFO("at " << (t - t0));
      auto joins = pressure.joins(busy, t);
      CHECK(joins >= 39);
      CHECK(joins <= 41);
      CHECK(pressure.extra_bits(busy, t) == 2);
    }
  }
}

TEST_CASE_METHOD(pressure_fixture, "memory is bounded: the least recently recorded network goes first") {
  config small = cfg;
  small.tracked_networks = 3;
  join_pressure bounded(small);
  auto a = net("192.0.2.1"), b = net("198.51.100.1"), c = net("203.0.113.1"), d = net("2001:db8::1");
  for (int i = 0; i < 20; ++i) bounded.record(a, t0);
  bounded.record(b, t0 + 1);
  bounded.record(c, t0 + 2);
  bounded.record(a, t0 + 3);  // a is recent again; b is now the oldest
  bounded.record(d, t0 + 4);
  CHECK(bounded.tracked() == 3);
  CHECK(bounded.joins(a, t0 + 5) == 21);
  CHECK(bounded.joins(b, t0 + 5) == 0);
  CHECK(bounded.joins(c, t0 + 5) == 1);
  CHECK(bounded.joins(d, t0 + 5) == 1);
  CHECK(bounded.extra_bits(a, t0 + 5) == 1);
}

TEST_CASE_METHOD(pressure_fixture, "networks idle for two windows are dropped as joins pass") {
  const std::uint64_t w = cfg.pressure_window_ms;
  burst(busy, 5, t0);
  burst(quiet, 5, t0 + w);
  CHECK(pressure.tracked() == 2);
  pressure.record(net("192.0.2.1"), t0 + 2 * w);
  CHECK(pressure.tracked() == 2);  // busy went idle for two windows
  CHECK(pressure.joins(busy, t0 + 2 * w) == 0);
  CHECK(pressure.joins(quiet, t0 + 2 * w) == 5);
}

TEST_CASE_METHOD(pressure_fixture, "a clock step backwards neither resets nor inflates the count") {
  const std::uint64_t w = cfg.pressure_window_ms;
  burst(busy, 20, t0 + w);
  burst(busy, 20, t0);  // the clock stepped back one window
  CHECK(pressure.joins(busy, t0 + w) == 40);
  CHECK(pressure.joins(busy, t0) == 40);
  CHECK(pressure.extra_bits(busy, t0) == 2);
}
