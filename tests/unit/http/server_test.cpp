#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/write.hpp>

#include "http/server.hpp"

using namespace foyer::http;

namespace {

// Sends `text` on one connection to `s`, reads until the server closes it, then stops it.
task<void> exchange(net::io_context& ioc, server& s, std::string text, std::string& got) {
  tcp_socket socket(ioc);
  co_await socket.async_connect(s.local_endpoint(), use_task);
  co_await net::async_write(socket, net::buffer(text), use_task);
  char buffer[4096];
  for (;;) {
    beast::error_code ec;
    std::size_t n = co_await socket.async_read_some(net::buffer(buffer), net::redirect_error(use_task, ec));
    if (ec) break;
    got.append(buffer, n);
  }
  s.stop([] {});
}

// What a server whose handler throws on /throw answers to `text`.
std::string answers(std::string text) {
  net::io_context ioc{1};
  server s(ioc, {net::ip::make_address("127.0.0.1"), 0}, server_limits{},
           [](request& req, const peer&) -> task<response> {
             if (req.target() == "/throw") throw std::invalid_argument("a header value with CR or LF");
             co_return response::json(response::status::ok, req.version(), R"({"ok":true})");
           });
  s.start();
  std::string got;
  net::co_spawn(ioc, exchange(ioc, s, std::move(text), got), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  ioc.run();
  return got;
}

}  // namespace

TEST_CASE("a handler that throws gets its request a 500 problem, and the connection serves on") {
  auto got = answers("GET /throw HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(got.starts_with("HTTP/1.1 500 Internal Server Error\r\n"));
  CHECK(got.find("Content-Type: application/problem+json\r\n") != std::string::npos);
  CHECK(got.find(R"("error":"internal_error")") != std::string::npos);
  CHECK(got.find("HTTP/1.1 200 OK\r\n") != std::string::npos);
  CHECK(got.ends_with(R"({"ok":true})"));
}

TEST_CASE("a HEAD answer names the length of the body and sends none") {
  auto got = answers("HEAD /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto head_end = got.find("\r\n\r\n");
  REQUIRE(head_end != std::string::npos);
  CHECK(got.substr(0, head_end).find("Content-Length: 11") != std::string::npos);
  CHECK(got.substr(head_end + 4).starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(got.ends_with(R"({"ok":true})"));
}

TEST_CASE("max_connections is kept within the descriptor limit beside the server's own descriptors") {
  CHECK(connections_that_fit(10'000, 20'000) == 10'000);
  CHECK(connections_that_fit(10'000, 10'000 + descriptor_headroom) == 10'000);
  CHECK(connections_that_fit(10'000, 4096) == 4096 - descriptor_headroom);
  // A limit that cannot hold the headroom twice over: half of it for connections.
  CHECK(connections_that_fit(10'000, 1024) == 512);
  CHECK(connections_that_fit(100, 1024) == 100);
  CHECK(connections_that_fit(10'000, 1) == 1);
}
