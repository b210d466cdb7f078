// The session's failure matrix (http/session_loop.hpp) on beast::test::stream, as Beast's
// failMatrix tests do: each script of requests is served again and again, the stream
// failing its n-th read or write for n = 0, 1, 2, ... until a run meets no failure. Every
// run must stop at the failure (no read or write after it) and leave no session and no
// pending work behind; the peer must see a prefix of the failure-free run's bytes, cut
// where an answer ends (inside one only when a write of a split answer failed); the
// handler must be called only for whole requests, once each, and every call but one whose
// answer failed to go out must be answered.
// The handler records the requests it is given: the state a request could change, in
// place of the rooms. The sweeper's timeouts are left out: they reach sockets only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/_experimental/test/fail_count.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <fmt/core.h>

#include "http/session_loop.hpp"

using namespace foyer::http;
namespace test = boost::beast::test;
namespace bhttp = boost::beast::http;

namespace {

constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();

// How the stream hands bytes over: at most this many per read and per write.
struct stream_shape {
  std::size_t read_size = unlimited;
  std::size_t write_size = unlimited;
};

struct script {
  std::string name;
  std::string bytes;                 // what the client sends before it closes its side
  std::vector<unsigned> statuses;    // the answers of a run without failures
  std::vector<std::string> handled;  // the handler's calls then, as "METHOD target body"
};

const std::vector<script>& scripts() {
  static const std::vector<script> all{
      {"one GET", "GET /one HTTP/1.1\r\nHost: x\r\n\r\n", {200}, {"GET /one "}},
      {"a POST with a body", "POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world", {200},
       {"POST /post hello world"}},
      {"two pipelined requests", "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", {200, 200},
       {"GET /a ", "GET /b "}},
      {"keep-alive, then close",
       "GET /keep HTTP/1.1\r\nHost: x\r\n\r\nGET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
       "GET /unread HTTP/1.1\r\nHost: x\r\n\r\n",
       {200, 200},
       {"GET /keep ", "GET /last "}},
      {"headers over the limit", "GET /big HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(300, 'p') + "\r\n\r\n",
       {431},
       {}},
      {"a malformed request line after a request", "GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /bad HTP/1.1\r\n\r\n",
       {200, 400},
       {"GET /ok "}},
      {"a body over its limit", "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'b'),
       {413},
       {}},
      {"a chunked body",
       "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
       {200},
       {"POST /chunked hello world"}},
      {"a handler that throws, then a request", "GET /throw HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n",
       {500, 200},
       {"GET /throw ", "GET /after "}},
  };
  return all;
}

struct answer {
  unsigned status;
  std::size_t end;  // the offset just past it in what the peer received
};

// The answers in `bytes`, which must be whole answers only.
std::vector<answer> split_answers(std::string_view bytes) {
  std::vector<answer> answers;
  std::size_t at = 0;
  while (at < bytes.size()) {
    bhttp::response_parser<bhttp::string_body> parser;
    parser.eager(true);
    boost::beast::error_code ec;
    while (!parser.is_done() && !ec && at < bytes.size()) at += parser.put(net::buffer(bytes.substr(at)), ec);
    REQUIRE_FALSE(ec);
    REQUIRE(parser.is_done());
    answers.push_back({parser.get().result_int(), at});
  }
  return answers;
}

// What one run did.
struct outcome {
  std::string received;              // by the peer
  std::vector<std::string> handled;  // by the handler
  std::size_t reads = 0;             // the stream's reads and writes, the failed one included
  std::size_t writes = 0;
  bool idle = false;                 // no work left on the io_context
};

struct session_matrix {
  static server_limits small_limits() {
    server_limits limits;
    limits.header_limit = 256;
    limits.body_limit = 64;
    return limits;
  }

  task<response> handle(request& req) {
    handled.push_back(fmt::format("{} {} {}", std::string_view(req.method_string()), std::string_view(req.target()),
                                  req.body()));
    if (req.target() == "/throw") throw std::runtime_error("the handler failed");
    co_return response::json(response::status::ok, req.version(), fmt::format(R"({{"call":{}}})", handled.size()));
  }

  // Serves `bytes` on a stream whose operation `fail_at` (0 and 1 both name the first)
  // and every later one fail.
  outcome serve(const std::string& bytes, const stream_shape& shape, std::size_t fail_at) {
    handled.clear();
    test::fail_count failures(fail_at);
    test::stream connection(ioc, failures, bytes);
    test::stream client(ioc);
    connection.connect(client);
    connection.read_size(shape.read_size);
    connection.write_size(shape.write_size);
    connection.close_remote();  // the client has sent everything
    srv.serve<test::stream&>(connection, peer{net::ip::make_address("192.0.2.1")});
    ioc.restart();
    ioc.run_for(std::chrono::seconds(5));
    bool ended = srv.session_count() == 0;
    if (!ended) {
      // A hung session is freed before its stream goes, so that the failure is reported.
      connection.close();
      ioc.restart();
      ioc.run_for(std::chrono::seconds(1));
    }
    REQUIRE(ended);
    return {std::string(client.str()), handled, connection.nread(), connection.nwrite(), ioc.stopped()};
  }

  void check_every_failure(const stream_shape& shape) {
    for (const auto& s : scripts()) {
      INFO(s.name);
      auto clean = serve(s.bytes, shape, unlimited);
      auto answers = split_answers(clean.received);
      std::vector<unsigned> statuses;
      for (const auto& a : answers) statuses.push_back(a.status);
      REQUIRE(statuses == s.statuses);
      REQUIRE(clean.handled == s.handled);
      CHECK(clean.idle);
      CHECK(log_lines_but_handler_faults() == 0);

      std::size_t reads_failed = 0;
      std::size_t writes_failed = 0;
      std::size_t writes_before = 0;  // the writes of the run that failed the operation before
      for (std::size_t n = 0;; ++n) {
        INFO("failing operation " << n);
        auto run = serve(s.bytes, shape, n);
        CHECK(run.idle);
        CHECK(log_lines_but_handler_faults() == 0);
        bool failed = run.reads + run.writes >= std::max<std::size_t>(n, 1);
        if (!failed) {
          CHECK(run.received == clean.received);
          CHECK(run.handled == clean.handled);
          break;
        }
        REQUIRE(n <= clean.reads + clean.writes);
        // The failure ends the session: it neither reads on nor answers after it.
        CHECK(run.reads + run.writes == std::max<std::size_t>(n, 1));
        // Runs are deterministic up to the failure: the failed operation is a write when
        // this run made one more than the run that failed the operation before.
        bool failed_write = n >= 2 && run.writes > writes_before;
        writes_before = run.writes;
        if (n >= 1) ++(failed_write ? writes_failed : reads_failed);

        REQUIRE(clean.received.starts_with(run.received));
        auto whole = std::count_if(answers.begin(), answers.end(),
                                   [&](const answer& a) { return a.end <= run.received.size(); });
        bool at_an_end = run.received.size() == (whole == 0 ? 0 : answers[static_cast<std::size_t>(whole) - 1].end);
        CHECK((at_an_end || (failed_write && shape.write_size != unlimited)));

        REQUIRE(run.handled.size() <= clean.handled.size());
        CHECK(std::equal(run.handled.begin(), run.handled.end(), clean.handled.begin()));
        auto answered_calls = static_cast<std::size_t>(std::count_if(
            answers.begin(), answers.begin() + whole, [](const answer& a) { return a.status == 200 || a.status == 500; }));
        CHECK(run.handled.size() >= answered_calls);
        CHECK(run.handled.size() <= answered_calls + (failed_write ? 1 : 0));
      }
      // Every read and every write of the clean run was failed once.
      CHECK(reads_failed == clean.reads);
      CHECK(writes_failed == clean.writes);
      CHECK(clean.writes >= s.statuses.size());
    }
  }

  // Lines logged since the last call, but those of a handler's fault (the answer is a 500).
  std::size_t log_lines_but_handler_faults() {
    auto n = std::count_if(log.begin(), log.end(),
                           [](const std::string& line) { return !line.starts_with("GET /throw failed: "); });
    log.clear();
    return static_cast<std::size_t>(n);
  }

  net::io_context ioc{1};
  std::vector<std::string> handled;
  std::vector<std::string> log;
  // Never started: its listener accepts no connection; the sessions come through serve().
  server srv{ioc, {net::ip::make_address("127.0.0.1"), 0}, small_limits(),
             [this](request& req, const peer&) { return handle(req); },
             [this](std::string_view line) { log.emplace_back(line); }};
};

}  // namespace

TEST_CASE_METHOD(session_matrix, "every failing read or write ends the session cleanly: whole reads and writes") {
  check_every_failure({});
}

TEST_CASE_METHOD(session_matrix, "every failing read or write ends the session cleanly: reads of one byte") {
  check_every_failure({.read_size = 1, .write_size = unlimited});
}

TEST_CASE_METHOD(session_matrix, "every failing read or write ends the session cleanly: answers written in pieces") {
  check_every_failure({.read_size = 7, .write_size = 16});
}
