// The server with I/O threads, over real loopback sockets: connections are carried by the
// I/O threads, every handler runs on the owner's thread, a connection's answers keep their
// order, the connection limit holds over all threads, a slow client holds up nobody, and a
// stop answers what is in flight before the drain ends.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <fmt/core.h>

#include "http/session_loop.hpp"

using namespace foyer::http;
namespace bhttp = boost::beast::http;
using namespace std::chrono_literals;

namespace {

using client_socket = net::ip::tcp::socket;

struct threaded_server {
  explicit threaded_server(server_limits limits, const near_answers_factory& near = {})
      : srv(ioc, {net::ip::make_address("127.0.0.1"), 0}, limits,
            [this](request& req, const peer&) { return handle(req); }, [](std::string_view) {}) {
    if (near) srv.answer_near(near);
    srv.start();
    owner = std::thread([this] { ioc.run(); });
    owner_id = owner.get_id();
  }
  ~threaded_server() {
    if (!stopped) stop().wait();
    owner.join();
  }

  // Stops the server from the owner's thread; ready once drained.
  std::future<void> stop() {
    stopped = true;
    net::post(ioc, [this] {
      srv.stop([this] {
        work.reset();
        drained.set_value();
      });
    });
    return drained.get_future();
  }

  task<response> handle(request& req) {
    if (std::this_thread::get_id() != owner_id) ++off_owner;
    ++handled;
    if (req.target() == "/hold") {
      holding = true;
      hold.wait();
    }
    if (req.target() == "/fail") throw std::runtime_error("the handler failed");
    if (req.target() == "/slow") {
      slow_started = true;
      steady_timer t(ioc);
      t.expires_after(100ms);
      co_await t.async_wait(use_task);
    }
    co_return response::json(response::status::ok, req.version(), fmt::format(R"({{"target":"{}"}})", req.target()));
  }

  client_socket connect() {
    client_socket s(client_ioc);
    s.connect(srv.local_endpoint());
    // A read that would wait past this fails instead of holding the test.
    timeval limit{5, 0};
    ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    return s;
  }

  net::io_context ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work{ioc.get_executor()};
  std::atomic<int> off_owner = 0;
  std::atomic<int> handled = 0;
  std::atomic<bool> slow_started = false;
  // "/hold" holds the owner's loop until this is ready.
  std::shared_future<void> hold;
  std::atomic<bool> holding = false;
  std::promise<void> drained;
  bool stopped = false;
  server srv;
  std::thread owner;
  std::thread::id owner_id;
  net::io_context client_ioc;
};

server_limits with_io_threads(std::size_t n) {
  server_limits limits;
  limits.io_threads = n;
  return limits;
}

std::string get(std::string_view target, bool close = false) {
  return fmt::format("GET {} HTTP/1.1\r\nHost: x\r\n{}\r\n", target, close ? "Connection: close\r\n" : "");
}

// The next answer on `s`, read whole.
bhttp::response<bhttp::string_body> answer(client_socket& s, boost::beast::flat_buffer& buffer) {
  bhttp::response<bhttp::string_body> res;
  bhttp::read(s, buffer, res);
  return res;
}

// The names of this process's threads.
std::multiset<std::string> thread_names() {
  std::multiset<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    names.insert(name);
  }
  return names;
}

// Answers "/near" on its own thread, naming the thread's io_context.
struct near_here final : near_answers {
  explicit near_here(net::io_context& home) : home(home) {}
  std::optional<response> answer(const request& req) override {
    if (req.target() != "/near") return std::nullopt;
    bool on_home = home.get_executor().running_in_this_thread();
    return response::json(response::status::ok, req.version(), fmt::format(R"({{"near":{}}})", on_home));
  }
  net::io_context& home;
};

// Makes near_here answers, counting them in `made`.
near_answers_factory counting_near(int& made) {
  return [&made](net::io_context& home) {
    ++made;
    return std::make_unique<near_here>(home);
  };
}

}  // namespace

TEST_CASE("with I/O threads, handlers run on the owner's thread and each connection's answers keep their order") {
  threaded_server t(with_io_threads(2));
  std::vector<client_socket> clients;
  for (int c = 0; c < 4; ++c) clients.push_back(t.connect());
  // Three pipelined requests per connection, in one write each.
  for (int c = 0; c < 4; ++c) {
    std::string bytes;
    for (int r = 0; r < 3; ++r) bytes += get(fmt::format("/c{}/r{}", c, r));
    net::write(clients[c], net::buffer(bytes));
  }
  for (int c = 0; c < 4; ++c) {
    boost::beast::flat_buffer buffer;
    for (int r = 0; r < 3; ++r) {
      auto res = answer(clients[c], buffer);
      CHECK(res.result_int() == 200);
      CHECK(res.body() == fmt::format(R"({{"target":"/c{}/r{}"}})", c, r));
    }
  }
  CHECK(t.handled == 12);
  CHECK(t.off_owner == 0);
  // Both threads carried connections (they take turns), so both have named themselves.
  auto names = thread_names();
  CHECK(names.count("foyer-io-1") == 1);
  CHECK(names.count("foyer-io-2") == 1);
}

TEST_CASE("with I/O threads, a handler that fails answers 500 and the connection's next request is served") {
  threaded_server t(with_io_threads(1));
  auto client = t.connect();
  net::write(client, net::buffer(get("/fail") + get("/after")));
  boost::beast::flat_buffer buffer;
  auto failed = answer(client, buffer);
  CHECK(failed.result_int() == 500);
  CHECK(failed[bhttp::field::content_type] == "application/problem+json");
  auto next = answer(client, buffer);
  CHECK(next.result_int() == 200);
  CHECK(next.body() == R"({"target":"/after"})");
}

TEST_CASE("with I/O threads, the connection limit counts the connections of every thread") {
  auto limits = with_io_threads(2);
  limits.max_connections = 2;
  threaded_server t(limits);
  boost::beast::flat_buffer buffer;
  auto first = t.connect();
  auto second = t.connect();
  for (auto* s : {&first, &second}) {
    net::write(*s, net::buffer(get("/open")));
    CHECK(answer(*s, buffer).result_int() == 200);
  }
  auto third = t.connect();
  net::write(third, net::buffer(get("/refused")));
  auto refused = answer(third, buffer);
  CHECK(refused.result_int() == 503);
  CHECK(refused.body().find("too_many_connections") != std::string::npos);
  CHECK(t.srv.session_count() == 2);

  // Once one closes, a new connection is served.
  net::write(first, net::buffer(get("/bye", true)));
  CHECK(answer(first, buffer).result_int() == 200);
  for (int i = 0; i < 500 && t.srv.session_count() > 1; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(t.srv.session_count() == 1);
  auto fourth = t.connect();
  net::write(fourth, net::buffer(get("/again")));
  CHECK(answer(fourth, buffer).result_int() == 200);
}

TEST_CASE("with one I/O thread, a client that stalls mid-request holds up nobody and is cut at its deadline") {
  auto limits = with_io_threads(1);
  limits.header_timeout = 300ms;
  threaded_server t(limits);
  auto stalled = t.connect();
  net::write(stalled, net::buffer(std::string_view("GET /half HTTP/1.1\r\nHost: x\r\n")));
  auto other = t.connect();
  boost::beast::flat_buffer buffer;
  for (int i = 0; i < 20; ++i) {
    net::write(other, net::buffer(get(fmt::format("/r{}", i))));
    CHECK(answer(other, buffer).result_int() == 200);
  }
  boost::beast::flat_buffer stalled_buffer;
  CHECK(answer(stalled, stalled_buffer).result_int() == 408);
  CHECK(t.handled == 20);
}

TEST_CASE("with I/O threads, a stop answers the request in flight, then the drain ends") {
  threaded_server t(with_io_threads(2));
  auto s = t.connect();
  auto idle = t.connect();
  net::write(s, net::buffer(get("/slow")));
  for (int i = 0; i < 500 && !t.slow_started; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(t.slow_started);
  auto drained = t.stop();
  boost::beast::flat_buffer buffer;
  auto res = answer(s, buffer);
  CHECK(res.result_int() == 200);
  CHECK_FALSE(res.keep_alive());
  CHECK(drained.wait_for(5s) == std::future_status::ready);
  // The idle connection was closed, not answered.
  boost::beast::error_code ec;
  std::array<char, 16> byte{};
  idle.read_some(net::buffer(byte), ec);
  CHECK(ec == net::error::eof);
  CHECK(t.off_owner == 0);
}

TEST_CASE("with I/O threads, near answers come from the connection's thread while the owner's loop is busy") {
  int made = 0;
  threaded_server t(with_io_threads(2), counting_near(made));
  CHECK(made == 2);
  // Accepted (by the owner's loop) and answered once, one connection on each thread.
  std::vector<client_socket> clients;
  for (int c = 0; c < 2; ++c) {
    clients.push_back(t.connect());
    boost::beast::flat_buffer buffer;
    net::write(clients.back(), net::buffer(get("/hello")));
    CHECK(answer(clients.back(), buffer).result_int() == 200);
  }
  // The owner's loop is held until the near answers are in.
  std::promise<void> release;
  auto held = release.get_future().share();
  net::post(t.ioc, [held] { held.wait(); });
  for (auto& c : clients) {
    boost::beast::flat_buffer buffer;
    net::write(c, net::buffer(get("/near")));
    auto res = answer(c, buffer);
    CHECK(res.result_int() == 200);
    CHECK(res.body() == R"({"near":true})");
  }
  CHECK(t.handled == 2);
  // Anything else waits for the loop, on the same connection after a near answer.
  boost::beast::flat_buffer buffer;
  net::write(clients[0], net::buffer(get("/far") + get("/near")));
  release.set_value();
  CHECK(answer(clients[0], buffer).body() == R"({"target":"/far"})");
  CHECK(answer(clients[0], buffer).body() == R"({"near":true})");
  CHECK(t.handled == 3);
  CHECK(t.off_owner == 0);
}

TEST_CASE("without I/O threads the loop answers everything: no near answers are made") {
  int made = 0;
  threaded_server t(with_io_threads(0), counting_near(made));
  CHECK(made == 0);
  auto c = t.connect();
  boost::beast::flat_buffer buffer;
  net::write(c, net::buffer(get("/near")));
  CHECK(answer(c, buffer).body() == R"({"target":"/near"})");
}

TEST_CASE("with I/O threads, a full queue to the owner's loop answers 503 with Retry-After at once") {
  auto limits = with_io_threads(1);
  limits.loop_queue = 1;
  threaded_server t(limits);
  std::promise<void> release;
  t.hold = release.get_future().share();
  auto first = t.connect();
  auto second = t.connect();
  net::write(first, net::buffer(get("/hold")));
  // The loop holds the first request: the one place in the queue is taken.
  for (int i = 0; i < 5000 && !t.holding; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(t.holding);
  boost::beast::flat_buffer buffer;
  net::write(second, net::buffer(get("/turned-away")));
  auto refused = answer(second, buffer);
  CHECK(refused.result_int() == 503);
  CHECK(refused[bhttp::field::retry_after] == "30");
  CHECK(refused.body().find("overloaded") != std::string::npos);
  release.set_value();
  boost::beast::flat_buffer held_buffer;
  CHECK(answer(first, held_buffer).body() == R"({"target":"/hold"})");
  // The queue emptied: the loop answers again.
  net::write(second, net::buffer(get("/again")));
  CHECK(answer(second, buffer).body() == R"({"target":"/again"})");
  CHECK(t.handled == 2);
}
