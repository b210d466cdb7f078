#include <catch2/catch.hpp>

#include "core/base/time_text.hpp"

using namespace foyer;

TEST_CASE("RFC 3339 text is read with its offset and written as UTC") {
  CHECK(parse_rfc3339_ms("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_rfc3339_ms("2026-12-01T10:00:00+05:30") == 1'796'099'400'000);
  CHECK(parse_rfc3339_ms("2026-12-01T04:30:00.25Z") == 1'796'099'400'250);
  CHECK(parse_rfc3339_ms("2026-12-01t04:30:00.250z") == 1'796'099'400'250);
  CHECK(parse_rfc3339_ms("2026-11-30T23:00:00-05:30") == 1'796'099'400'000);
  for (auto bad : {"", "2026-12-01", "2026-12-01T10:00:00", "2026-02-30T10:00:00Z", "2026-12-01T24:00:00Z",
                   "2026-12-01T10:00:00+5:30", "2026-12-01T10:00:00.Z", "2026-12-01T10:00:00Zx",
                   "2026-12-01T10:00:00+24:00", "x026-12-01T10:00:00Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_rfc3339_ms(bad));
  }
  CHECK(format_rfc3339_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_rfc3339_ms(1'796'099'400'250) == "2026-12-01T04:30:00.250Z");
  CHECK(parse_rfc3339_ms(format_rfc3339_ms(1'796'099'400'250)) == 1'796'099'400'250);
}
