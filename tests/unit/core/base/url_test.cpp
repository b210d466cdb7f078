#include <catch2/catch.hpp>

#include "core/base/url.hpp"

using namespace foyer;

TEST_CASE("http and https URLs split into host, port, authority and target") {
  auto u = parse_url("https://hooks.example.com/foyer?x=1");
  REQUIRE(u);
  CHECK(u->tls);
  CHECK(u->host == "hooks.example.com");
  CHECK(u->port == "443");
  CHECK(u->authority == "hooks.example.com");
  CHECK(u->target == "/foyer?x=1");

  u = parse_url("http://[::1]:9000");
  REQUIRE(u);
  CHECK_FALSE(u->tls);
  CHECK(u->host == "::1");
  CHECK(u->port == "9000");
  CHECK(u->authority == "[::1]:9000");
  CHECK(u->target == "/");

  CHECK(parse_url("http://127.0.0.1?a")->target == "/?a");
  CHECK(parse_url("http://10.0.0.1/x")->port == "80");
  CHECK_FALSE(parse_url("ftp://example.com/"));
  CHECK_FALSE(parse_url("http://user@example.com/"));
  CHECK_FALSE(parse_url("http://example.com:0/"));
  CHECK_FALSE(parse_url("http://example.com:70000/"));
  CHECK_FALSE(parse_url("https:///path"));
  CHECK_FALSE(parse_url("http://[::1/"));
}

TEST_CASE("a URL with a space or a control character is refused: its text would become lines of a request") {
  CHECK_FALSE(parse_url("https://hooks.example.com/foyer\r\nX-Injected: 1"));
  CHECK_FALSE(parse_url("https://hooks.example.com\r\n/foyer"));
  CHECK_FALSE(parse_url("http://10.0.0.1/a\nb"));
  CHECK_FALSE(parse_url(std::string_view("http://10.0.0.1/a\0b", 19)));
  CHECK_FALSE(parse_url("http://10.0.0.1/a b"));
  CHECK_FALSE(parse_url("http://10.0.0.1/a\tb"));
  CHECK_FALSE(parse_url("http://10.0.0.1/a\x7f"));
  CHECK(parse_url("http://10.0.0.1/caf\xc3\xa9"));
}

TEST_CASE("a URL's origin: the server it reaches, whatever the case, default port, trailing dot or path") {
  auto origin = [](std::string_view text) { return origin_of(*parse_url(text)); };
  CHECK(origin("https://r.example") == "https://r.example:443");
  CHECK(origin("https://r.example/") == origin("https://R.Example:443/other?x"));
  CHECK(origin("https://r.example.") == "https://r.example:443");
  CHECK(origin("http://r.example") == "http://r.example:80");
  CHECK(origin("http://r.example:8080/a") != origin("http://r.example/a"));
  CHECK(origin("https://r.example") != origin("http://r.example:443"));
  CHECK(origin("http://[::1]:9000/x") == "http://[::1]:9000");
}
