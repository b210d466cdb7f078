#include <catch2/catch.hpp>
#include <simdjson.h>

#include <cstdint>
#include <limits>

#include "core/base/json.hpp"

using namespace foyer;

TEST_CASE("json_quote escapes what JSON requires and passes the rest through") {
  CHECK(json_quote("") == R"("")");
  CHECK(json_quote("plain text") == R"("plain text")");
  CHECK(json_quote(R"(say "hi" \ bye)") == R"("say \"hi\" \\ bye")");
  CHECK(json_quote("a\nb\rc\td") == R"("a\nb\rc\td")");
  CHECK(json_quote(std::string_view("\x01\x1f", 2)) == R"("\u0001\u001f")");
  CHECK(json_quote("\"") == R"("\"")");
  CHECK(json_quote("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // UTF-8 stays as it is
}

TEST_CASE("json_quote replaces every byte that is not part of valid UTF-8, so the text is always JSON") {
  CHECK(json_quote("\xff") == R"("\ufffd")");
  CHECK(json_quote("room-\xc3") == R"("room-\ufffd")");            // a sequence cut short
  CHECK(json_quote("\xc0\xaf") == R"("\ufffd\ufffd")");          // an overlong '/'
  CHECK(json_quote("\xed\xa0\x80") == R"("\ufffd\ufffd\ufffd")");  // a surrogate
  CHECK(json_quote("\xf4\x90\x80\x80") == R"("\ufffd\ufffd\ufffd\ufffd")");  // past U+10FFFF
  CHECK(json_quote("\xe2\x82\xac \xf0\x9f\x8e\x9f") == "\"\xe2\x82\xac \xf0\x9f\x8e\x9f\"");  // valid stays
  CHECK(json_quote("a\x80\"b") == R"("a\ufffd\"b")");
}

TEST_CASE("json_object builds objects that parse back to the same values") {
  CHECK(json_object().done() == "{}");
  auto text = json_object()
                  .str("name", "Ann \"A\"\n")
                  .num("low", std::numeric_limits<std::int64_t>::min())
                  .num("high", std::numeric_limits<std::uint64_t>::max())
                  .num("zero", std::uint64_t{0})
                  .boolean("yes", true)
                  .null("none")
                  .raw("list", "[1,2]")
                  .opt_str("missing", std::nullopt)
                  .opt_num("count", std::uint64_t{7})
                  .done();
  CHECK(text ==
        R"({"name":"Ann \"A\"\n","low":-9223372036854775808,"high":18446744073709551615,"zero":0,)"
        R"("yes":true,"none":null,"list":[1,2],"missing":null,"count":7})");
  simdjson::dom::parser parser;
  auto doc = parser.parse(text);
  CHECK(std::string_view(doc["name"].get_string().value()) == "Ann \"A\"\n");
  CHECK(doc["high"].get_uint64().value() == std::numeric_limits<std::uint64_t>::max());
}
