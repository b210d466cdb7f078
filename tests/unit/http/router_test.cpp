#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "http/problem.hpp"
#include "http/router.hpp"

using namespace foyer::http;
using verb = router::verb;

namespace {

// A handler that answers with its name and what it captured.
route_handler named(std::string name) {
  return [name](request&, const peer&, route_params p) -> task<response> {
    response res{response::status::ok, 11};
    res.body() = name + ":" + std::string(p["room"]);
    co_return res;
  };
}

struct router_fixture {
  router r;
  net::io_context ioc;

  router_fixture() {
    r.add({verb::get}, "/api/v1/rooms/{room}/status", named("status"));
    r.add({verb::post}, "/api/v1/rooms/{room}/join", named("join"));
    r.add({verb::get}, "/api/v1/rooms", named("list"));
    r.add({verb::get}, "/api/v1/rooms/{room}", named("room"));
    r.add({verb::put}, "/api/v1/rooms/{room}", named("put-room"));
    r.add({verb::get}, "/api/v1/admin/rooms", named("admin"));
    r.add({verb::get}, "/", named("front"));
    r.guard("/api/v1/admin", [](const request& req) -> std::optional<response> {
      if (req[beast::http::field::authorization] == "Bearer ok") return std::nullopt;
      return problem(req, foyer::errc::admin_token_required, "token");
    });
  }

  response answer(verb method, std::string target, std::string authorization = "Bearer ok", std::string body = "",
                  std::string content_type = "") {
    request req{method, target, 11};
    req.set(beast::http::field::authorization, authorization);
    req.body() = body;
    if (!content_type.empty()) req.set(beast::http::field::content_type, content_type);
    std::optional<response> out;
    net::co_spawn(ioc, r.handle(req, peer{}), [&](std::exception_ptr e, response res) {
      if (e) std::rethrow_exception(e);
      out = std::move(res);
    });
    ioc.run();
    ioc.restart();
    REQUIRE(out);
    return std::move(*out);
  }
};

std::string wire(const response& res) {
  std::string out;
  res.serialize(out);
  return out;
}

}  // namespace

TEST_CASE_METHOD(router_fixture, "a path and method find their route and what it captured") {
  auto m = r.match(verb::get, "/api/v1/rooms/demo/status");
  REQUIRE(m.handler);
  CHECK(m.params["room"] == "demo");
  CHECK(m.params["nothing"].empty());
  CHECK(answer(verb::get, "/api/v1/rooms/demo/status?x=1").body() == "status:demo");
  CHECK(answer(verb::post, "/api/v1/rooms/shop/join").body() == "join:shop");
  CHECK(answer(verb::get, "/api/v1/rooms").body() == "list:");
  CHECK(answer(verb::get, "/").body() == "front:");
  // Routes of one path and different methods are one resource.
  CHECK(answer(verb::put, "/api/v1/rooms/shop").body() == "put-room:shop");
  CHECK(answer(verb::get, "/api/v1/rooms/shop").body() == "room:shop");
}

TEST_CASE_METHOD(router_fixture, "a path no route has is 404 not_found") {
  for (const char* path : {"/api/v1/rooms/demo/nothing", "/api/v1/room", "/api/v2/rooms", "/nope",
                           "/api/v1/rooms/demo/status/more", "/a/b/c/d/e/f/g/h/i/j"}) {
    CAPTURE(path);
    CHECK_FALSE(r.match(verb::get, path).handler);
    CHECK(r.match(verb::get, path).allowed == 0);
    auto res = answer(verb::get, path);
    CHECK(res.result_int() == 404);
    CHECK(res.body().find("\"error\":\"not_found\"") != std::string::npos);
  }
}

TEST_CASE_METHOD(router_fixture, "a known path asked with another method is 405 with Allow") {
  auto m = r.match(verb::delete_, "/api/v1/rooms/demo");
  CHECK_FALSE(m.handler);
  CHECK(router::allow(m.allowed) == "GET, HEAD, PUT");
  auto res = answer(verb::delete_, "/api/v1/rooms/demo");
  CHECK(res.result_int() == 405);
  CHECK(wire(res).find("\r\nAllow: GET, HEAD, PUT\r\n") != std::string::npos);
  CHECK(res.body().find("\"error\":\"method_not_allowed\"") != std::string::npos);

  auto join = answer(verb::get, "/api/v1/rooms/demo/join");
  CHECK(join.result_int() == 405);
  CHECK(wire(join).find("\r\nAllow: POST\r\n") != std::string::npos);
  CHECK(answer(verb::post, "/api/v1/rooms/demo/status").result_int() == 405);
}

TEST_CASE_METHOD(router_fixture, "HEAD is answered wherever GET is") {
  CHECK(r.match(verb::head, "/api/v1/rooms/demo/status").handler);
  CHECK(answer(verb::head, "/api/v1/rooms").body() == "list:");
  CHECK_FALSE(r.match(verb::head, "/api/v1/rooms/demo/join").handler);
}

TEST_CASE_METHOD(router_fixture, "empty segments, a trailing slash among them, are not part of the path") {
  CHECK(answer(verb::get, "/api/v1/rooms/demo/status/").body() == "status:demo");
  CHECK(answer(verb::get, "//api/v1//rooms/demo/status").body() == "status:demo");
  CHECK(answer(verb::get, "/api/v1/rooms/").body() == "list:");
}

TEST_CASE_METHOD(router_fixture, "below an exact prefix only the canonical spelling is answered") {
  r.add({verb::get}, "/metrics", named("metrics"));
  r.exact("/metrics");
  r.exact("/api/v1/admin");
  CHECK(answer(verb::get, "/metrics").body() == "metrics:");
  CHECK(answer(verb::get, "/metrics?x=1").body() == "metrics:");
  for (const char* path : {"/metrics/", "//metrics", "//metrics//", "/metrics//", "/api/v1/admin/rooms/",
                           "/api//v1/admin/rooms", "//api/v1/admin/rooms"}) {
    CAPTURE(path);
    auto res = answer(verb::get, path);
    CHECK(res.result_int() == 404);
    CHECK(res.body().find("\"error\":\"not_found\"") != std::string::npos);
  }
  // The guard still answers first, whatever the spelling.
  CHECK(answer(verb::get, "//api/v1/admin/rooms", "Bearer wrong").result_int() == 401);
  CHECK(answer(verb::get, "/").body() == "front:");
}

TEST_CASE_METHOD(router_fixture, "the admin guard answers first for every path below it, and only there") {
  auto refused = answer(verb::get, "/api/v1/admin/rooms", "Bearer wrong");
  CHECK(refused.result_int() == 401);
  // Neither a path that does not exist nor a wrong method tells the caller more.
  CHECK(answer(verb::get, "/api/v1/admin/nothing", "Bearer wrong").result_int() == 401);
  CHECK(answer(verb::delete_, "/api/v1/admin/rooms", "Bearer wrong").result_int() == 401);
  CHECK(answer(verb::get, "//api/v1/admin/rooms", "Bearer wrong").result_int() == 401);
  CHECK(answer(verb::get, "/api/v1/admin", "Bearer wrong").result_int() == 401);
  // A segment that starts like "admin" is another path.
  CHECK(answer(verb::get, "/api/v1/adminX", "Bearer wrong").result_int() == 404);

  CHECK(answer(verb::get, "/api/v1/admin/rooms").body() == "admin:");
  // Not the room list: paths match segment by segment, not by prefix.
  CHECK(answer(verb::get, "/api/v1/admin/roomsX").result_int() == 404);
  CHECK(answer(verb::get, "/api/v1/admin/rooms/x").result_int() == 404);
}

TEST_CASE("a pattern with more captures than a route holds is refused") {
  router r;
  CHECK_THROWS_AS(r.add({verb::get}, "/{a}/{b}/{c}/{d}/{e}", named("x")), std::invalid_argument);
  CHECK_THROWS_AS(r.add({}, "/a", named("x")), std::invalid_argument);
  CHECK_NOTHROW(r.add({verb::get}, "/{a}/{b}/{c}/{d}", named("x")));
}

TEST_CASE_METHOD(router_fixture, "a request is named by the pattern of the route that has its path, for the metrics") {
  CHECK(r.patterns().at(r.match(verb::get, "/api/v1/rooms/demo/status").route) == "/api/v1/rooms/{room}/status");
  // 405: the path's first route; 404: none.
  CHECK(r.patterns().at(r.match(verb::delete_, "/api/v1/rooms/shop").route) == "/api/v1/rooms/{room}");
  CHECK(r.match(verb::get, "/api/v1/nope").route == router::unmatched);
  CHECK(r.patterns().size() == 7);
}

TEST_CASE_METHOD(router_fixture, "a body is read only when it says it is JSON, on every route", "[router]") {
  const std::string body = R"({"challenge":"c","nonce":"n"})";
  for (const char* type : {"", "application/x-www-form-urlencoded", "text/plain", "application/jsonp"}) {
    INFO(type);
    auto res = answer(verb::post, "/api/v1/rooms/a/join", "", body, type);
    CHECK(res.result_int() == 415);
    CHECK(res.body().find("unsupported_media_type") != std::string::npos);
  }
  for (const char* type : {"application/json", "Application/JSON; charset=utf-8", "application/json ;charset=UTF-8"}) {
    INFO(type);
    CHECK(answer(verb::post, "/api/v1/rooms/a/join", "", body, type).body() == "join:a");
  }
  // Without a body nothing is read, so nothing need be declared.
  CHECK(answer(verb::post, "/api/v1/rooms/a/join", "").body() == "join:a");
  // No such path, and a guard's refusal, come first.
  CHECK(answer(verb::post, "/nowhere", "", body).result_int() == 404);
  CHECK(answer(verb::get, "/api/v1/admin/rooms", "Bearer no", body).result_int() == 401);
}
