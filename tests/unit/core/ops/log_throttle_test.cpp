#include <catch2/catch.hpp>

#include <string>

#include "core/ops/log_throttle.hpp"

using foyer::ops::log_throttle;

TEST_CASE("log_throttle writes the first occurrence, then one line per interval with the count held back") {
  log_throttle throttle(10'000);
  CHECK(throttle.occur("expired", 1'000) == 0u);
  CHECK_FALSE(throttle.occur("expired", 1'001));
  CHECK_FALSE(throttle.occur("expired", 10'999));
  // Another key has its own interval.
  CHECK(throttle.occur("wrong_issuer", 5'000) == 0u);
  CHECK(throttle.occur("expired", 11'000) == 2u);
  CHECK_FALSE(throttle.occur("expired", 20'999));
  // After a quiet while the next line comes at once, with the one held back before.
  CHECK(throttle.occur("expired", 40'000) == 1u);
  CHECK(throttle.occur("expired", 50'000) == 0u);
  CHECK_FALSE(throttle.occur("wrong_issuer", 14'999));
  CHECK(throttle.occur("wrong_issuer", 15'000) == 1u);
}

TEST_CASE("log_throttle holds back keys beyond its bound") {
  log_throttle throttle(10'000);
  for (std::size_t i = 0; i < log_throttle::max_keys; ++i) CHECK(throttle.occur("k" + std::to_string(i), 0) == 0u);
  CHECK_FALSE(throttle.occur("one_more", 0));
  CHECK_FALSE(throttle.occur("one_more", 100'000));
  CHECK(throttle.occur("k0", 100'000) == 0u);
}
