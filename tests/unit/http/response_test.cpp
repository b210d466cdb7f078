#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "http/response.hpp"

using foyer::http::response;
using status = response::status;
namespace bhttp = boost::beast::http;

namespace {

std::string wire(const response& res) {
  std::string out = "bytes of the previous answer";
  res.serialize(out);
  return out;
}

}  // namespace

TEST_CASE("an API answer is JSON, not cached, not sniffed, with its length") {
  auto res = response::json(status::created, 11, R"({"a":1})");
  CHECK(wire(res) ==
        "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
        "X-Content-Type-Options: nosniff\r\nContent-Length: 7\r\n\r\n{\"a\":1}");
}

TEST_CASE("a field set again replaces the first, whatever the case of its name") {
  auto res = response::json(status::ok, 11, "{}");
  res.set(bhttp::field::cache_control, "public, max-age=1");
  res.set("x-content-type-options", "nosniff");
  // A name that is the start of another is a different field.
  res.set("Cache", "x");
  CHECK(wire(res) ==
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: public, max-age=1\r\n"
        "x-content-type-options: nosniff\r\nCache: x\r\nContent-Length: 2\r\n\r\n{}");
}

TEST_CASE("204 and 304 carry no length and no body; HEAD names a length it does not send") {
  response not_modified{status::not_modified, 11};
  not_modified.set(bhttp::field::etag, "\"abc\"");
  not_modified.body() = "never sent";
  CHECK(wire(not_modified) == "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n\r\n");
  CHECK(wire(response{status::no_content, 11}) == "HTTP/1.1 204 No Content\r\n\r\n");

  response head{status::ok, 11};
  head.content_length(1234);
  CHECK(wire(head) == "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n");
}

TEST_CASE("keep-alive and close are said as each HTTP version needs") {
  response old{status::ok, 10};
  CHECK(wire(old) == "HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n");
  old.keep_alive(false);
  CHECK(wire(old) == "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n");

  response closing{status::service_unavailable, 11};
  closing.keep_alive(false);
  CHECK(wire(closing) == "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
}

TEST_CASE("a value with CR, LF, NUL or another control character is refused, and nothing is set") {
  using namespace std::string_literals;
  for (const std::string& bad :
       {"/a\r\nSet-Cookie: x=1"s, "a\rb"s, "a\nb"s, "a\0b"s, "\r\n"s, "a\x01"s, "a\x1f"s, "a\x7f"s}) {
    CAPTURE(bad);
    response res{status::found, 11};
    CHECK_THROWS_AS(res.set(bhttp::field::location, bad), std::invalid_argument);
    CHECK_THROWS_WITH(res.set("X-Foyer-Visitor", bad), Catch::Contains("X-Foyer-Visitor") && Catch::Contains("CR, LF"));
    CHECK(wire(res) == "HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n");
  }
}

TEST_CASE("a value set in parts is written whole, and refused whole if any part holds a control character") {
  response res{status::ok, 11};
  res.set_parts(bhttp::field::set_cookie, {"t=", "abc", "; Path=/r", "", "; HttpOnly"});
  res.set_parts(bhttp::field::set_cookie, {"t=", "def", "; Path=/r"});  // replaces, as set does
  CHECK_THROWS_AS(res.set_parts(bhttp::field::set_cookie, {"t=", "x\r\nLocation: /evil", "; Path=/"}),
                  std::invalid_argument);
  CHECK(wire(res) == "HTTP/1.1 200 OK\r\nSet-Cookie: t=def; Path=/r\r\nContent-Length: 0\r\n\r\n");
}

TEST_CASE("a value may hold spaces, tabs and bytes beyond ASCII") {
  response res{status::no_content, 11};
  res.set("X-Note", "a\tb c \xc3\xa9");
  res.set("X-Empty", "");
  CHECK(wire(res) == "HTTP/1.1 204 No Content\r\nX-Note: a\tb c \xc3\xa9\r\nX-Empty: \r\n\r\n");
}

TEST_CASE("a field name must be an RFC 9110 token") {
  using namespace std::string_literals;
  for (const std::string& bad : {""s, "X Foo"s, "X-Foo:"s, "X-Foo\r\nX-Bar"s, "X\0"s, "(x)"s, "X\"y"s, "\xc3\xa9"s}) {
    CAPTURE(bad);
    response res{status::ok, 11};
    CHECK_THROWS_AS(res.set(bad, "v"), std::invalid_argument);
    CHECK(wire(res) == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  }
  response res{status::ok, 11};
  CHECK_THROWS_AS(res.set(bhttp::field::unknown, "v"), std::invalid_argument);
  res.set("!#$%&'*+-.^_`|~09azAZ", "v");
  CHECK(wire(res) == "HTTP/1.1 200 OK\r\n!#$%&'*+-.^_`|~09azAZ: v\r\nContent-Length: 0\r\n\r\n");
}

TEST_CASE("is_field_name and is_field_value say beforehand what set accepts") {
  using foyer::http::is_field_name;
  using foyer::http::is_field_value;
  CHECK(is_field_name("Location"));
  CHECK_FALSE(is_field_name("Loc ation"));
  CHECK(is_field_value("/shop/?a=b"));
  CHECK_FALSE(is_field_value("/shop/\r\n"));
  CHECK_FALSE(is_field_value(std::string_view("a\0", 2)));
}
