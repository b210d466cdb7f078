#include "core/ops/free_space.hpp"

#include <catch2/catch.hpp>

using foyer::ops::device_space;
using foyer::ops::free_space_limits;
using foyer::ops::free_space_watch;

namespace {
constexpr std::uint64_t mib = std::uint64_t{1} << 20;
constexpr std::uint64_t reserve = 64 * mib;
}  // namespace

TEST_CASE("far from full, the free space is looked at once an interval") {
  free_space_watch watch(free_space_limits{100, 1024 * mib});
  CHECK(watch.must_look(0));
  watch.looked(0, device_space{10'000 * mib, reserve});
  CHECK(watch.has_room());
  CHECK_FALSE(watch.must_look(1));
  CHECK_FALSE(watch.must_look(99));
  CHECK(watch.must_look(100));
}

TEST_CASE("near the reserve, every write looks, and writes stop at it and resume once space is freed") {
  free_space_watch watch(free_space_limits{100, 1024 * mib});
  watch.looked(0, device_space{reserve + 1000 * mib, reserve});  // less than 1 GiB beyond the reserve
  CHECK(watch.has_room());
  CHECK(watch.must_look(1));
  watch.looked(1, device_space{reserve, reserve});
  CHECK_FALSE(watch.has_room());
  CHECK(watch.must_look(2));
  watch.looked(2, device_space{reserve + mib, reserve});
  CHECK(watch.has_room());
}

TEST_CASE("what the store writes between looks brings the next look forward") {
  free_space_watch watch(free_space_limits{100, 1024 * mib});
  watch.looked(0, device_space{reserve + 1100 * mib, reserve});
  CHECK_FALSE(watch.must_look(10));
  watch.wrote(50 * mib);
  CHECK_FALSE(watch.must_look(20));
  watch.wrote(60 * mib);  // 110 MiB written: now less than 1 GiB beyond the reserve
  CHECK(watch.must_look(30));
}

TEST_CASE("free space that cannot be read lets the write go and the next one look again") {
  free_space_watch watch;
  watch.looked(0, std::nullopt);
  CHECK(watch.has_room());
  CHECK(watch.must_look(1));
}
