#include <catch2/catch.hpp>

#include "core/base/public_origin.hpp"

using namespace foyer;

TEST_CASE("a public address is an http(s) origin, kept as a browser's Origin field writes it", "[public_origin]") {
  CHECK(public_origin().link("/r/demo") == "http://127.0.0.1:8080/r/demo");
  CHECK(public_origin::parse("https://Queue.Example.com")->origin() == "https://queue.example.com");
  CHECK(public_origin::parse("https://queue.example.com/")->origin() == "https://queue.example.com");
  CHECK(public_origin::parse("https://queue.example.com:443")->origin() == "https://queue.example.com");
  CHECK(public_origin::parse("http://queue.example.com:80")->origin() == "http://queue.example.com");
  // A port other than the scheme's default stays in every link.
  CHECK(public_origin::parse("https://queue.example.com:8443")->link("/r/demo/resume/x") ==
        "https://queue.example.com:8443/r/demo/resume/x");
  CHECK(public_origin::parse("http://[::1]:8080")->origin() == "http://[::1]:8080");

  for (const char* bad : {"queue.example.com", "ftp://queue.example.com", "https://queue.example.com/shop",
                          "https://queue.example.com/?a", "https://queue.example.com#top", "https://u@queue.example.com",
                          "https://queue.example.com:0", "https://que<ue.example.com", "https://queue example.com", ""}) {
    INFO(bad);
    CHECK_FALSE(public_origin::parse(bad));
  }
}
