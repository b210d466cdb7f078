#pragma once
// Finding a field in an encoding, to corrupt it in a test.

#include <algorithm>
#include <cstddef>
#include <string>

#include <catch2/catch.hpp>

namespace foyer::test {

// The offset of the first byte where two encodings differ: where the field that
// differs between them sits.
inline std::size_t first_difference(const std::string& a, const std::string& b) {
  auto [in_a, in_b] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  REQUIRE(in_a != a.end());
  return static_cast<std::size_t>(in_a - a.begin());
}

}  // namespace foyer::test
