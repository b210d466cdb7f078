#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "http/request_fields.hpp"

using foyer::http::from_own_origin;
using foyer::http::percent_decode;
using foyer::http::trim_ows;

TEST_CASE("percent_decode turns %XX escapes and '+' back into bytes") {
  CHECK(percent_decode("") == "");
  CHECK(percent_decode("a%2Fb+c") == "a/b c");
  CHECK(percent_decode("%41%6a%6A%00z") == std::string("Ajj\0z", 5));
  CHECK(percent_decode("%e2%82%AC") == "\xe2\x82\xac");
}

TEST_CASE("percent_decode refuses an escape that is short or not hex") {
  for (const char* bad : {"%", "%4", "ab%", "ab%4", "%zz", "%4g", "%g4", "%%41", "%-1", "% 4"}) {
    CAPTURE(bad);
    CHECK_FALSE(percent_decode(bad));
  }
}

TEST_CASE("trim_ows drops spaces and tabs around a value, and only those") {
  CHECK(trim_ows(" \tchunked\t ") == "chunked");
  CHECK(trim_ows("a b") == "a b");
  CHECK(trim_ows(" \t ").empty());
  CHECK(trim_ows("").empty());
}

TEST_CASE("a bearer token follows its scheme in any case, after one or more spaces") {
  auto token = [](const char* value) {
    foyer::http::request req{boost::beast::http::verb::get, "/", 11};
    req.set(boost::beast::http::field::authorization, value);
    // A copy: the token is a view into the request, which goes with this call.
    auto found = foyer::http::bearer(req);
    return found ? std::optional<std::string>(*found) : std::nullopt;
  };
  CHECK(token("Bearer abc") == "abc");
  CHECK(token("bearer abc") == "abc");
  CHECK(token("BEARER  abc") == "abc");
  for (const char* bad : {"Bearer", "Bearer ", "Bearer   ", "Bearerabc", "Basic abc", "Bear abc", ""}) {
    CAPTURE(bad);
    CHECK_FALSE(token(bad));
  }
}

TEST_CASE("a request is from the own origin by Sec-Fetch-Site where sent, else by Origin") {
  constexpr std::string_view origin = "https://queue.example.com";
  auto with = [](std::initializer_list<std::pair<const char*, const char*>> fields) {
    foyer::http::request req;
    for (auto [name, value] : fields) req.set(name, value);
    return req;
  };
  CHECK(from_own_origin(with({}), origin));
  CHECK(from_own_origin(with({{"Origin", "https://queue.example.com"}}), origin));
  CHECK_FALSE(from_own_origin(with({{"Origin", "https://evil.example"}}), origin));
  CHECK_FALSE(from_own_origin(with({{"Origin", "null"}}), origin));
  CHECK_FALSE(from_own_origin(with({{"Origin", "https://queue.example.com:8443"}}), origin));
  for (const char* site : {"same-origin", "none"}) {
    CHECK(from_own_origin(with({{"Sec-Fetch-Site", site}, {"Origin", "https://elsewhere.example"}}), origin));
  }
  // A sibling subdomain (user content on *.example.com) is the same site, not the waiting room.
  for (const char* site : {"same-site", "cross-site"}) {
    CHECK_FALSE(from_own_origin(with({{"Sec-Fetch-Site", site}, {"Origin", "https://queue.example.com"}}), origin));
  }
  CHECK_FALSE(from_own_origin(with({{"Sec-Fetch-Site", "garbage"}}), origin));
}
