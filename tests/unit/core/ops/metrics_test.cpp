#include <catch2/catch.hpp>

#include "core/ops/metrics.hpp"

using namespace foyer::ops;

TEST_CASE("a histogram counts each observation in the first bucket that holds it") {
  histogram h({0.1, 1});
  for (double v : {0.05, 0.1, 0.5, 2.0}) h.observe(v);
  CHECK(h.counts() == std::vector<std::uint64_t>{2, 1, 1});
  CHECK(h.count() == 4);
  CHECK(h.sum() == Approx(2.65));
  CHECK(exponential_bounds(1, 4, 4) == std::vector<double>{1, 4, 16, 64});
}

TEST_CASE("the registry writes each collector's families in the text format, labels escaped") {
  metrics_registry registry;
  registry.add([](metrics_writer& w) {
    w.family("foyer_x_total", "counter", "Xs.").sample("foyer_x_total", {{"room", "a\"b\\c"}}, std::uint64_t{3});
  });
  histogram h({0.5});
  h.observe(0.25);
  h.observe(1);
  registry.add([&h](metrics_writer& w) {
    w.family("foyer_t_seconds", "histogram", "Ts.").samples("foyer_t_seconds", {{"route", "/r"}}, h);
    w.family("foyer_g", "gauge", "G.").sample("foyer_g", {}, 0.5);
  });
  CHECK(registry.scrape() ==
        "# HELP foyer_x_total Xs.\n# TYPE foyer_x_total counter\n"
        "foyer_x_total{room=\"a\\\"b\\\\c\"} 3\n"
        "# HELP foyer_t_seconds Ts.\n# TYPE foyer_t_seconds histogram\n"
        "foyer_t_seconds_bucket{route=\"/r\",le=\"0.5\"} 1\n"
        "foyer_t_seconds_bucket{route=\"/r\",le=\"+Inf\"} 2\n"
        "foyer_t_seconds_sum{route=\"/r\"} 1.25\n"
        "foyer_t_seconds_count{route=\"/r\"} 2\n"
        "# HELP foyer_g G.\n# TYPE foyer_g gauge\nfoyer_g 0.5\n");
}
