#include <catch2/catch.hpp>

#include <string>

#include <simdjson.h>

#include "core/base/json.hpp"
#include "http/problem.hpp"

using namespace foyer::http;
using foyer::errc;

namespace {

std::string wire(const response& res) {
  std::string out;
  res.serialize(out);
  return out;
}

request get(unsigned version = 11) { return request{beast::http::verb::get, "/", version}; }

}  // namespace

TEST_CASE("every errc has an error status and a title") {
  for (int v = 1; v <= static_cast<int>(errc::internal_error); ++v) {
    auto e = static_cast<errc>(v);
    CAPTURE(to_string(e));
    auto type = type_of(e);
    CHECK(type.status >= 400);
    CHECK(type.status <= 599);
    CHECK_FALSE(type.title.empty());
    CHECK(problem(get(), e, "detail").result_int() == type.status);
  }
  CHECK(type_of(errc::unknown_room).status == 404);
  CHECK(type_of(errc::invalid_room).status == 422);
  CHECK(type_of(errc::internal_error).status == 500);
}

TEST_CASE("a problem's body has the RFC 9457 members and the first API's error and message") {
  auto res = problem(get(), errc::invalid_room, "rate_per_minute must be at least 1.",
                     {{"field", foyer::json_quote("rate_per_minute")}, {"limit", "1"}});
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(res.body());
  CHECK(std::string_view(doc["type"]) == "urn:foyer:problem:invalid_room");
  CHECK(std::string_view(doc["title"]) == type_of(errc::invalid_room).title);
  CHECK(std::int64_t(doc["status"]) == 422);
  CHECK(std::string_view(doc["detail"]) == "rate_per_minute must be at least 1.");
  CHECK(std::string_view(doc["error"]) == "invalid_room");
  CHECK(std::string_view(doc["message"]) == "rate_per_minute must be at least 1.");
  CHECK(std::string_view(doc["field"]) == "rate_per_minute");
  CHECK(std::int64_t(doc["limit"]) == 1);
}

TEST_CASE("a problem is served as application/problem+json, not cached, not sniffed") {
  auto text = wire(problem(get(), errc::not_found, "No such path."));
  CHECK(text.starts_with("HTTP/1.1 404 Not Found\r\n"));
  CHECK(text.find("\r\nContent-Type: application/problem+json\r\n") != std::string::npos);
  CHECK(text.find("\r\nCache-Control: no-store\r\n") != std::string::npos);
  CHECK(text.find("\r\nX-Content-Type-Options: nosniff\r\n") != std::string::npos);
  CHECK(text.find("Retry-After") == std::string::npos);
}

TEST_CASE("problems worth retrying say when, and answers follow the request's version") {
  CHECK(wire(problem(get(), errc::storage_unavailable, "x")).find("\r\nRetry-After: 2\r\n") != std::string::npos);
  CHECK(wire(problem(get(), errc::proof_rejected, "x")).find("\r\nRetry-After: 1\r\n") != std::string::npos);
  auto old = problem(get(10), errc::bad_index, "x");
  CHECK(old.version() == 10);
  CHECK_FALSE(old.keep_alive());
}

TEST_CASE("json_error names its code as given, titled by the status") {
  auto res = json_error(405, "method_not_allowed", "Use GET for this path.", 11, /*keep_alive=*/true);
  CHECK(res.result_int() == 405);
  CHECK(res.keep_alive());
  CHECK(res.body() ==
        R"({"type":"urn:foyer:problem:method_not_allowed","title":"Method Not Allowed","status":405,)"
        R"("detail":"Use GET for this path.","error":"method_not_allowed","message":"Use GET for this path."})");
}
