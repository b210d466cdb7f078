#include <catch2/catch.hpp>

#include "core/base/log_line.hpp"

using namespace foyer;

TEST_CASE("a log event is one line of JSON: time, level, message, then the fields") {
  CHECK(log_line(1'796'099'400'250, "info", "serving 1 room(s)", {{"rooms", std::size_t{1}}, {"listen", "127.0.0.1:80"}}) ==
        R"x({"ts":"2026-12-01T04:30:00.250Z","level":"info","msg":"serving 1 room(s)","rooms":1,"listen":"127.0.0.1:80"})x");
  CHECK(log_line(0, "error", "config: \"x\"\nbad", {}) ==
        R"({"ts":"1970-01-01T00:00:00.000Z","level":"error","msg":"config: \"x\"\nbad"})");
}
