// Requests shaped to make the session hold bytes without end, to hide a second request in
// the first's body, or to slip a field past the header: each is refused whole, or its
// trap is defused, on beast::test::stream (http/session_loop.hpp).
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/_experimental/test/stream.hpp>

#include "http/session_loop.hpp"

using namespace foyer::http;
namespace test = boost::beast::test;
namespace bhttp = boost::beast::http;

namespace {

constexpr std::string_view chunked_head = "POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

struct hostile_session {
  static server_limits limits() {
    server_limits l;
    l.header_limit = 1024;
    l.body_limit = 1024;
    l.trailer_limit = 256;
    l.chunk_line_limit = 128;
    return l;
  }

  task<response> handle(request& req) {
    seen.push_back(req);
    co_return response::json(response::status::ok, req.version(), R"({"ok":true})");
  }

  struct outcome {
    std::string received;
    std::size_t reads = 0;
  };

  // Serves what a client sends before it closes its side.
  outcome serve(const std::string& bytes) {
    seen.clear();
    test::stream connection(ioc, bytes);
    test::stream client(ioc);
    connection.connect(client);
    connection.close_remote();
    srv.serve<test::stream&>(connection, peer{net::ip::make_address("192.0.2.1")});
    ioc.restart();
    ioc.run_for(std::chrono::seconds(5));
    REQUIRE(srv.session_count() == 0);
    return {std::string(client.str()), connection.nread()};
  }

  net::io_context ioc{1};
  std::vector<request> seen;
  server srv{ioc, {net::ip::make_address("127.0.0.1"), 0}, limits(),
             [this](request& req, const peer&) { return handle(req); }, [](std::string_view) {}};
};

// The status of the only answer, which must close the connection; 0 if none came.
unsigned only_answer(const std::string& received) {
  if (received.empty()) return 0;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.eager(true);
  boost::beast::error_code ec;
  auto used = parser.put(net::buffer(received), ec);
  REQUIRE_FALSE(ec);
  REQUIRE(parser.is_done());
  CHECK(used == received.size());
  CHECK_FALSE(parser.get().keep_alive());
  return parser.get().result_int();
}

}  // namespace

TEST_CASE_METHOD(hostile_session, "a trailer that never ends is refused at its limit, not held") {
  std::string small_fields;
  for (int i = 0; i < 100'000; ++i) small_fields += "X: 1\r\n";
  // One endless field, and endless small fields.
  for (const std::string& endless : {"X-Pad: " + std::string(1 << 20, 'a'), small_fields}) {
    auto run = serve(std::string(chunked_head) + "5\r\nhello\r\n0\r\n" + endless);
    CHECK(only_answer(run.received) == 431);
    CHECK(run.received.find("trailer must fit in 256 bytes") != std::string::npos);
    CHECK(seen.empty());
    // Refused once the buffer passed the limit: the rest of the megabyte was never read.
    CHECK(run.reads * read_chunk <= read_buffer_limit(limits()) + read_chunk);
  }
}

TEST_CASE_METHOD(hostile_session, "a chunk line that never ends (extensions, or zeros) is refused at its limit") {
  for (const std::string& line : {"5;name=" + std::string(1 << 20, 'v'), std::string(1 << 20, '0'),
                                  "0;" + std::string(1 << 20, 'e')}) {
    auto run = serve(std::string(chunked_head) + line);
    auto status = only_answer(run.received);
    INFO(line.substr(0, 8));
    // The last chunk's line counts towards the trailer's limit.
    CHECK((status == 400 || (line.starts_with("0;") && status == 431)));
    CHECK(seen.empty());
    CHECK(run.reads * read_chunk <= read_buffer_limit(limits()) + read_chunk);
  }
}

TEST_CASE_METHOD(hostile_session, "chunk extensions and a trailer within their limits are read, and the trailer's fields dropped") {
  auto run = serve(std::string(chunked_head) +
                   "5;name=value\r\nhello\r\n0;last\r\nAuthorization: Bearer from-the-trailer\r\nX-Other: 1\r\n\r\n"
                   "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].body() == "hello");
  CHECK(seen[0].find(bhttp::field::authorization) == seen[0].end());
  CHECK(seen[0].find("X-Other") == seen[0].end());
  CHECK(seen[0].find(bhttp::field::host) != seen[0].end());
  CHECK(seen[0].find(bhttp::field::transfer_encoding) != seen[0].end());
  CHECK(seen[1].target() == "/next");
}

TEST_CASE_METHOD(hostile_session, "a trailer field named like a header field is dropped, and every header field kept") {
  // Beast files a repeated name beside its first, not at the end: the trailer's fields are
  // not simply the last ones.
  auto run = serve(
      "POST /t HTTP/1.1\r\nCookie: a=1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nX-Last: kept\r\nConnection: close\r\n\r\n"
      "5\r\nhello\r\n0\r\nCookie: foyer_pass=from-the-trailer\r\n\r\n");
  REQUIRE(seen.size() == 1);
  std::vector<std::string> cookies;
  for (const auto& f : seen[0]) {
    if (f.name() == bhttp::field::cookie) cookies.emplace_back(f.value());
  }
  CHECK(cookies == std::vector<std::string>{"a=1"});
  CHECK(seen[0]["X-Last"] == "kept");
  CHECK(seen[0][bhttp::field::connection] == "close");
  CHECK(seen[0].body() == "hello");
}

TEST_CASE_METHOD(hostile_session, "a transfer coding other than a sole chunked is refused, and what follows is not run") {
  for (std::string_view coding : {"xchunked", "chunked, gzip", "gzip, chunked", "gzip", "chunked\r\nTransfer-Encoding: chunked",
                                  "chunked;q=1", ""}) {
    INFO(coding);
    auto run = serve(fmt::format("POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: {}\r\n\r\n"
                                 "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
                                 coding));
    CHECK(only_answer(run.received) == 400);
    CHECK(seen.empty());
  }
  auto run = serve("POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n0\r\n\r\n");
  CHECK(only_answer(run.received) == 200);
}

TEST_CASE_METHOD(hostile_session, "a header of more fields than the limit is refused, however small they are") {
  std::string fields;
  for (std::size_t i = 0; i < limits().max_header_fields; ++i) fields += "a:\r\n";
  auto run = serve("GET /a HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n");
  CHECK(only_answer(run.received) == 431);
  CHECK(run.received.find("at most 100 header fields") != std::string::npos);
  CHECK(seen.empty());
  run = serve("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + fields.substr(2 * 4) + "\r\n");
  CHECK(only_answer(run.received) == 200);
}

TEST_CASE_METHOD(hostile_session, "an HTTP/1.1 request without Host is refused; HTTP/1.0 may leave it out") {
  auto run = serve("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(only_answer(run.received) == 400);
  CHECK(run.received.find("HTTP/1.1 must name it") != std::string::npos);
  CHECK(seen.empty());
  run = serve("GET /a HTTP/1.0\r\n\r\n");
  CHECK(only_answer(run.received) == 200);
}

TEST_CASE_METHOD(hostile_session, "two Host fields, or one that is no host and port, are refused in any version") {
  for (std::string head : {"Host: a\r\nHost: b\r\n", "Host: a b\r\n", "Host: a/b\r\n", "Host: a\"b\r\n", "Host: a@b\r\n"}) {
    for (std::string version : {"1.1", "1.0"}) {
      CAPTURE(head, version);
      auto run = serve("GET /a HTTP/" + version + "\r\n" + head + "\r\n");
      CHECK(only_answer(run.received) == 400);
      CHECK(run.received.find("names its Host once") != std::string::npos);
      CHECK(seen.empty());
    }
  }
  for (std::string host : {"example.com", "example.com:8080", "127.0.0.1:80", "[::1]:8080", "xn--bcher-kva.example", ""}) {
    CAPTURE(host);
    CHECK(only_answer(serve("GET /a HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").received) == 200);
  }
}
