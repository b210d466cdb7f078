#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <system_error>

#include "core/errc.hpp"

using foyer::errc;

TEST_CASE("every errc is an error_code of the foyer category, named by its code string") {
  std::set<std::string> codes;
  for (int v = 1; v <= static_cast<int>(errc::internal_error); ++v) {
    auto e = static_cast<errc>(v);
    std::error_code ec = e;
    CAPTURE(v);
    CHECK(ec);
    CHECK(ec.category().name() == std::string("foyer"));
    CHECK(ec == e);
    CHECK(to_string(e) != "unknown");
    CHECK(ec.message() == to_string(e));
    codes.emplace(to_string(e));
  }
  CHECK(codes.size() == static_cast<std::size_t>(errc::internal_error));  // no two alike
  CHECK(to_string(errc::unknown_room) == "unknown_room");
  CHECK(std::error_code(errc::closed) != std::error_code(EACCES, std::generic_category()));
}
