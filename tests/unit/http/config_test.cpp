// The config loader's refusals of numbers, from text (app/config.cpp). Runs in the server's
// test binary, which links the loader; the sanitized build makes the float case exact.
#include <catch2/catch.hpp>

#include "app/config.hpp"

using namespace foyer;

TEST_CASE("a float where a whole number belongs is refused, however large") {
  // 1e105 overflowed toml++'s float-to-integer conversion (undefined behaviour), found by
  // the config fuzz target (tests/fuzz/corpus/config/float-beyond-int64-as-integer).
  for (const char* value : {"1e105", "-1e105", "2.5", "500.0", "nan", "inf"}) {
    INFO(value);
    CHECK_THROWS_WITH(app::parse_config(std::string("[server]\nheader_timeout_ms = ") + value + "\n", "t.toml"),
                      Catch::Contains("config: server.header_timeout_ms: must be a whole number from"));
  }
  CHECK(app::parse_config("[server]\nheader_timeout_ms = 5000\n", "t.toml").limits.header_timeout.count() == 5000);
}

TEST_CASE("text that is not TOML names the source, line and column") {
  CHECK_THROWS_WITH(app::parse_config("[server\n", "t.toml"), Catch::StartsWith("config: t.toml:1:"));
}
