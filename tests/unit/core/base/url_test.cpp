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
