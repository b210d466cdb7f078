// The guard's reading of the server's discovery document (app/guard_discovery.cpp).
#include <catch2/catch.hpp>

#include "app/guard_discovery.hpp"

using namespace foyer::app;

TEST_CASE("the discovery document gives the issuer, the keys' location and the rooms") {
  auto d = parse_discovery(R"({"issuer":"https://queue.example","jwks_uri":"/.well-known/jwks.json","rooms":["a","b"]})");
  CHECK(d.issuer == "https://queue.example");
  CHECK(d.jwks_uri == "/.well-known/jwks.json");
  CHECK(d.rooms == std::vector<std::string>{"a", "b"});

  for (const char* bad : {"", "[]", "{", R"({"jwks_uri":"/k","rooms":[]})", R"({"issuer":"","jwks_uri":"/k","rooms":[]})",
                          R"({"issuer":"i","jwks_uri":7,"rooms":[]})", R"({"issuer":"i","jwks_uri":"/k"})",
                          R"({"issuer":"i","jwks_uri":"/k","rooms":[1]})"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_discovery(bad), std::invalid_argument);
  }
}

TEST_CASE("the keys' location: an absolute jwks_uri as it is, a path on the server") {
  CHECK(discovery_url("http://10.0.0.5:8080") == "http://10.0.0.5:8080/.well-known/foyer.json");
  CHECK(discovery_url("http://10.0.0.5:8080/") == "http://10.0.0.5:8080/.well-known/foyer.json");
  CHECK(discovery_url("http://10.0.0.5/queue/") == "http://10.0.0.5/queue/.well-known/foyer.json");
  CHECK(jwks_location("http://10.0.0.5:8080/", "/.well-known/jwks.json") == "http://10.0.0.5:8080/.well-known/jwks.json");
  CHECK(jwks_location("http://10.0.0.5/queue", "/keys.json") == "http://10.0.0.5/keys.json");
  CHECK(jwks_location("http://10.0.0.5:8080", "http://10.0.0.6/jwks.json") == "http://10.0.0.6/jwks.json");
  CHECK(jwks_location("http://10.0.0.5:8080", "https://queue.example/k.json") == "https://queue.example/k.json");
  // Never a file of the guard's machine.
  for (const char* bad : {"etc/passwd", "file:///etc/passwd", "jwks.json", "//evil.example/k"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(jwks_location("http://10.0.0.5:8080", bad), std::invalid_argument);
  }
}

TEST_CASE("an --issuer or a --room that disagrees with the server stops the guard, naming both") {
  foyer_discovery server{"foyer", "/.well-known/jwks.json", {"sale", "launch"}};
  const char* source = "http://127.0.0.1:8080/.well-known/foyer.json";
  CHECK(agreed_issuer(server, "", "sale", source) == "foyer");
  CHECK(agreed_issuer(server, "foyer", "launch", source) == "foyer");
  CHECK_THROWS_WITH(agreed_issuer(server, "https://queue.example.com", "sale", source),
                    "--issuer 'https://queue.example.com' disagrees with the server's issuer 'foyer' (from "
                    "http://127.0.0.1:8080/.well-known/foyer.json): every pass would be refused; leave --issuer out "
                    "to take the server's");
  CHECK_THROWS_WITH(agreed_issuer(server, "", "spring", source),
                    "--room 'spring' is not a room of the server (from "
                    "http://127.0.0.1:8080/.well-known/foyer.json; its rooms: sale, launch)");
  CHECK_THROWS_WITH(agreed_issuer({"foyer", "/k", {}}, "", "spring", source), Catch::Contains("its rooms: none"));
}
