#include <catch2/catch.hpp>

#include <regex>

#include "core/base/qr_svg.hpp"

using namespace foyer;

TEST_CASE("a QR code's SVG: modules with their quiet zone, one drawing per text, nothing for a text too long") {
  auto small = qr_svg("https://example.test/r/sale/resume/abc");
  REQUIRE(small);
  std::smatch m;
  REQUIRE(std::regex_search(*small, m, std::regex(R"re(viewBox="0 0 (\d+) \1")re")));
  // Versions 1 to 40 are 21 to 177 modules wide, in steps of 4; the quiet zone adds 8.
  auto size = std::stoi(m[1]) - 8;
  CHECK(size >= 21);
  CHECK((size - 21) % 4 == 0);
  // The top-left finder pattern's first row: seven dark modules inside the quiet zone.
  CHECK(small->find("M4 4h7v1h-7z") != std::string::npos);
  CHECK(small->starts_with("<svg "));
  CHECK(small->ends_with("</svg>"));

  auto longer = qr_svg(std::string(300, 'x'));
  REQUIRE(longer);
  REQUIRE(std::regex_search(*longer, m, std::regex(R"re(viewBox="0 0 (\d+) \1")re")));
  CHECK(std::stoi(m[1]) - 8 > size);
  CHECK(*qr_svg("a") != *qr_svg("b"));
  CHECK_FALSE(qr_svg(std::string(4000, 'x')));
}
