#include "core/ops/cores.hpp"

#include <catch2/catch.hpp>

using foyer::ops::default_io_threads;
using foyer::ops::quota_cores;

TEST_CASE("by default no I/O thread below 4 cores, then the cores less the loop's, at most 4") {
  CHECK(default_io_threads(1) == 0);
  CHECK(default_io_threads(2) == 0);
  CHECK(default_io_threads(3) == 0);
  CHECK(default_io_threads(4) == 3);
  CHECK(default_io_threads(5) == 4);
  CHECK(default_io_threads(64) == 4);
}

TEST_CASE("a cgroup's CPU quota counts as its cores rounded up; no quota, or a text that is not one, counts as none") {
  CHECK(quota_cores("150000 100000\n") == 2);
  CHECK(quota_cores("400000 100000") == 4);
  CHECK(quota_cores("50000 100000") == 1);
  CHECK_FALSE(quota_cores("max 100000\n"));
  CHECK_FALSE(quota_cores(""));
  CHECK_FALSE(quota_cores("100000"));
  CHECK_FALSE(quota_cores("0 100000"));
  CHECK_FALSE(quota_cores("100000 0"));
  CHECK_FALSE(quota_cores("12x 100000"));
}
