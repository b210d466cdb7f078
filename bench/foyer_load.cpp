// Load generator for Foyer and for a fixed-response reference (nginx) measured the
// same way: many keep-alive connections on loopback, one request at a time on each,
// proofs of work solved natively. Bounded by a count of operations and/or a time.
//
// Scenarios:
//   polls  status polls with tickets obtained before the clock starts
//   joins  challenge -> solve -> join on keep-alive connections; every 201's place kept.
//          With --solved-ahead N, N challenges are fetched and solved before the clock
//          starts and only the N joins are timed: the capacity of the join endpoint as
//          a rush meets it, visitors arriving with their proof after seconds of work
//   mixed  per connection, every tenth operation a join, the rest polls
//   lobby  an opening rush: each visitor opens a connection, gets a challenge, joins,
//          polls once and leaves; lobby indexes (or places) kept
//   long   mixed, reported every --report-every seconds (default 10) for --duration
//          (default 600 s)
//   fixed  GET --path and expect 200: the reference server's side of a ratio
//   holds  seat holds on a room with inventory: --visitors admitted visitors are made
//          first (join, poll until the pass comes, hold a seat the site releases at once,
//          which frees their slot for the next), then every operation is one hold attempt
//          of --seats with a visitor's pass and a fresh Idempotency-Key: 201 (placed, and
//          released by --site-token --hold-for-ms later on a connection of its own) or
//          409 (sold_out, live_hold_exists). With --rate the attempts are an open loop:
//          each connection sends on its own schedule and a latency counts from the time
//          its attempt was due, so a slow answer is not hidden by the sends it delayed
//
// With --server-pid, the server's CPU time is read from /proc around the timed phase alone,
// split by thread: its event loop (the main thread), its I/O threads ("foyer-io-N"), the
// storage thread ("foyer-store"), RocksDB's background threads ("rocksdb:...") and the
// rest; with --solved-ahead also around the whole visit, the challenges fetched before the clock included. With
// --alloc-counts, its allocations are counted the same way (bench/alloc_count).
//
// Only loopback targets are accepted: this tool is a flood by design.
//
// The last line of the output is `RESULT {json}` for scripts (bench/run.sh).

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "alloc_count/alloc_counts.hpp"
#include "core/gate/pow.hpp"

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;
using net::redirect_error;
using net::use_awaitable;
using boost::system::error_code;

constexpr std::size_t read_chunk = 16 * 1024;
constexpr std::size_t max_response_bytes = 1 << 20;
constexpr std::size_t histogram_us = 100'000;  // 1 µs buckets up to 100 ms; slower lands in the last
constexpr std::size_t setup_connections = 32;
constexpr std::uint64_t join_every = 10;  // mixed: one operation in ten is a join
constexpr auto reconnect_backoff = std::chrono::milliseconds(20);
constexpr auto stop_grace = std::chrono::seconds(5);
constexpr auto admission_poll = std::chrono::milliseconds(20);
constexpr auto admission_wait = std::chrono::seconds(60);
// The status answer that brings a pass does not wait for the pass's claim to be written, and
// a hold frees the slot only of a claim the room knows: give the write time first.
constexpr auto claim_settle = std::chrono::milliseconds(250);

// Completion of every coroutine: an exception ends the run loudly instead of vanishing.
void rethrow(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

enum class scenario { polls, joins, mixed, lobby, long_run, fixed, holds };
enum class kind : std::size_t { status, challenge, join, fixed, visit, hold, release, count };
constexpr std::size_t kinds = static_cast<std::size_t>(kind::count);
constexpr std::string_view kind_names[kinds] = {"status", "challenge", "join", "fixed", "visit", "hold", "release"};

struct options {
  scenario what = scenario::polls;
  std::string target = "127.0.0.1:8080";
  std::string room = "demo";
  std::string path = "/";
  std::size_t connections = 256;
  std::size_t threads = 1;
  std::uint64_t requests = 0;  // operations; 0 = bounded by time only
  double duration_s = 0;       // 0 = bounded by count only
  std::size_t tickets = 0;     // polls and mixed; 0 = one per connection
  bool no_pow = false;
  double report_every_s = 0;
  std::string places_out;
  std::size_t solved_ahead = 0;  // joins: challenges solved before the clock starts
  std::string sample_body;    // where to write the body of one status answer
  std::string sample_ticket;  // where to write the ticket of that poll
  std::string bearer;         // fixed: sent as a poll sends its ticket
  std::size_t visitors = 400;  // holds: admitted visitors whose passes make the attempts
  double rate = 0;             // holds: attempts per second in all, open loop; 0 = closed loop
  std::string site_token;      // holds: releases the placed holds
  std::uint32_t seats = 2;     // holds: seats asked for by each attempt
  double hold_for_ms = 200;    // holds: how long a placed hold stays before the site releases it
  std::vector<std::string> codes;  // --codes: access codes the joins carry in turn ("": none)
  int server_pid = 0;              // whose CPU to measure; 0: none
  std::string alloc_counts;        // with server_pid: the counting allocator's file; "": none
};

// What a server's threads have used so far (CPU clock ticks, or allocations), summed by
// kind of thread.
constexpr std::array<std::string_view, 5> thread_parts{"loop", "io", "storage", "rocksdb", "other"};
using by_part = std::array<std::uint64_t, thread_parts.size()>;

// Which part a thread of the server is: its event loop (the main thread, which owns the
// rooms), its I/O threads, the storage thread, RocksDB's background threads, or the rest.
std::size_t part_of(int pid, std::string_view tid, std::string_view name) {
  return tid == std::to_string(pid)          ? 0
         : name.starts_with("foyer-io-")     ? 1
         : name == "foyer-store"             ? 2
         : name.starts_with("rocksdb")       ? 3
                                             : 4;
}

by_part read_server_cpu(int pid) {
  by_part out{};
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // "tid (comm) state ...": the name may hold spaces and parentheses, the last ')' ends it.
    auto open = stat.find('(');
    auto close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 > stat.size()) continue;
    std::string name = stat.substr(open + 1, close - open - 1);
    std::istringstream rest(stat.substr(close + 2));
    std::vector<std::string> fields{std::istream_iterator<std::string>(rest), std::istream_iterator<std::string>()};
    if (fields.size() < 13) continue;  // utime and stime are fields 14 and 15, 12th and 13th after the name
    out[part_of(pid, task.path().filename().string(), name)] += std::stoull(fields[11]) + std::stoull(fields[12]);
  }
  return out;
}

// The server's allocations so far, from the file its counting allocator keeps
// (bench/alloc_count); a thread that has ended counts as "other".
by_part read_server_allocations(int pid, const std::string& file) {
  by_part out{};
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes(foyer::bench::alloc_counts_bytes);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw std::runtime_error(fmt::format("cannot read the allocation counts in {}", file));
  }
  for (std::size_t i = 0; i < foyer::bench::alloc_slots; ++i) {
    std::int64_t tid = 0;
    std::uint64_t count = 0;
    std::memcpy(&tid, bytes.data() + i * sizeof(foyer::bench::alloc_slot), sizeof tid);
    std::memcpy(&count, bytes.data() + i * sizeof(foyer::bench::alloc_slot) + sizeof tid, sizeof count);
    if (tid == 0) continue;
    std::ifstream comm(fmt::format("/proc/{}/task/{}/comm", pid, tid));
    std::string name;
    std::getline(comm, name);
    out[part_of(pid, std::to_string(tid), name)] += count;
  }
  return out;
}

// `{"total":..,"loop":..,...}`: what the server used per operation between two readings,
// each reading's unit times `scale`, and the same as text.
std::pair<std::string, std::string> per_op(const by_part& from, const by_part& to, std::uint64_t ops, double scale,
                                           std::string_view unit) {
  double each = scale / static_cast<double>(std::max<std::uint64_t>(ops, 1));
  double total = 0;
  std::string json, text;
  for (std::size_t i = 0; i < thread_parts.size(); ++i) {
    double used = static_cast<double>(to[i] - from[i]) * each;
    total += used;
    json += fmt::format(R"(,"{}":{:.2f})", thread_parts[i], used);
    text += fmt::format("{}{} {:.1f}", i == 0 ? "" : ", ", thread_parts[i], used);
  }
  return {fmt::format(R"({{"total":{:.2f}{}}})", total, json), fmt::format("{:.1f}{} ({})", total, unit, text)};
}

// µs of server CPU per operation.
std::pair<std::string, std::string> cpu_per_op(const by_part& from, const by_part& to, std::uint64_t ops) {
  return per_op(from, to, ops, 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK)), " µs");
}

// µs of CPU this process has used so far, all its threads.
double own_cpu_us() {
  rusage r{};
  ::getrusage(RUSAGE_SELF, &r);
  auto us = [](timeval t) { return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec); };
  return us(r.ru_utime) + us(r.ru_stime);
}

class histogram {
 public:
  histogram() : counts_(histogram_us + 1) {}
  void record(steady::duration d) {
    auto us = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
    ++counts_[std::min<std::uint64_t>(us, histogram_us)];
    max_us_ = std::max(max_us_, us);
    ++total_;
  }
  void merge(const histogram& o) {
    for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
    max_us_ = std::max(max_us_, o.max_us_);
    total_ += o.total_;
  }
  std::uint64_t percentile_us(double q) const {
    if (total_ == 0) return 0;
    auto rank = static_cast<std::uint64_t>(q * static_cast<double>(total_ - 1)) + 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank) return i;
    }
    return max_us_;
  }
  std::uint64_t max_us() const { return max_us_; }
  std::uint64_t total() const { return total_; }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t max_us_ = 0;
  std::uint64_t total_ = 0;
};

// Counters every thread adds to; read by the progress reporter.
struct shared_state {
  std::atomic<std::uint64_t> ops_taken{0};
  std::atomic<std::uint64_t> ops_done{0};
  std::atomic<std::uint64_t> ok[kinds]{};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<bool> sampled{false};
  // --solved-ahead: join requests ready to send, taken in order by every worker.
  const std::vector<std::string>* solved_joins = nullptr;
  std::atomic<std::size_t> solved_taken{0};
  // holds: the visitors' passes, taken in turn by every attempt.
  const std::vector<std::string>* passes = nullptr;
  std::atomic<std::size_t> passes_taken{0};
  // --codes: the joins' codes, taken in turn.
  std::atomic<std::size_t> codes_taken{0};
  // When the clock started; set before the threads start.
  steady::time_point start;
};

// What one thread saw; merged at the end.
struct worker_stats {
  histogram latency[kinds];
  std::map<std::string, std::uint64_t> errors;  // "status 503", "connect: ...", ...
  std::vector<std::uint64_t> places;
  std::vector<std::uint64_t> lobby_indexes;
  std::map<std::string, std::uint64_t> outcomes;  // holds: "placed", "sold_out", ...
};

struct http_result {
  unsigned status = 0;
  std::string_view body;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

// The text of "name":"value" in a flat JSON object; enough for the API's own answers.
std::optional<std::string_view> json_string(std::string_view body, std::string_view name) {
  std::string key = fmt::format("\"{}\":\"", name);
  auto at = body.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  auto start = at + key.size();
  auto end = body.find('"', start);
  if (end == std::string_view::npos) return std::nullopt;
  return body.substr(start, end - start);
}

std::optional<std::uint64_t> json_uint(std::string_view body, std::string_view name) {
  std::string key = fmt::format("\"{}\":", name);
  auto at = body.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::uint64_t v = 0;
  std::size_t i = at + key.size();
  if (i >= body.size() || body[i] < '0' || body[i] > '9') return std::nullopt;  // null
  for (; i < body.size() && body[i] >= '0' && body[i] <= '9'; ++i) v = v * 10 + static_cast<std::uint64_t>(body[i] - '0');
  return v;
}

// One keep-alive HTTP/1.1 connection with a minimal response parser: status line,
// Content-Length and Connection: close are all it needs from the reply.
class connection {
 public:
  connection(net::any_io_executor ex, tcp::endpoint ep) : socket_(ex), endpoint_(ep) {}

  bool open() const { return socket_.is_open(); }

  net::awaitable<error_code> connect() {
    error_code ec;
    socket_ = tcp::socket(socket_.get_executor());
    co_await socket_.async_connect(endpoint_, redirect_error(use_awaitable, ec));
    if (!ec) socket_.set_option(tcp::no_delay(true), ec);
    size_ = 0;
    consumed_ = 0;
    co_return ec;
  }

  void adopt(tcp::socket s) { socket_ = std::move(s); }

  void close() {
    error_code ignored;
    socket_.close(ignored);
  }

  // Sends one request and reads its whole response. `out.body` stays valid until the
  // next call.
  net::awaitable<error_code> exchange(std::string_view request, http_result& out) {
    std::memmove(buf_.data(), buf_.data() + consumed_, size_ - consumed_);
    size_ -= consumed_;
    consumed_ = 0;
    error_code ec;
    // A request is a few hundred bytes: one write_some nearly always takes it all.
    for (std::size_t sent = 0; sent < request.size();) {
      sent += co_await socket_.async_write_some(net::buffer(request.substr(sent)), redirect_error(use_awaitable, ec));
      if (ec) co_return ec;
    }
    std::size_t header_end = std::string_view::npos;
    std::size_t total = 0;
    bool close_after = false;
    for (;;) {
      std::string_view have(buf_.data(), size_);
      if (header_end == std::string_view::npos) {
        header_end = have.find("\r\n\r\n");
        if (header_end != std::string_view::npos) {
          auto parsed = parse_head(have.substr(0, header_end), out.status, close_after);
          if (!parsed) co_return net::error::make_error_code(net::error::invalid_argument);
          total = header_end + 4 + *parsed;
        }
      }
      if (header_end != std::string_view::npos && size_ >= total) break;
      if (size_ > max_response_bytes) co_return net::error::make_error_code(net::error::message_size);
      if (buf_.size() - size_ < read_chunk / 4) buf_.resize(buf_.size() * 2);
      std::size_t n = co_await socket_.async_read_some(net::buffer(buf_.data() + size_, buf_.size() - size_),
                                                       redirect_error(use_awaitable, ec));
      size_ += n;
      if (ec) co_return ec;
    }
    out.body = std::string_view(buf_.data() + header_end + 4, total - header_end - 4);
    consumed_ = total;
    if (close_after) close();
    co_return error_code{};
  }

 private:
  // Content-Length of the response, or nullopt if the head is unreadable.
  static std::optional<std::size_t> parse_head(std::string_view head, unsigned& status, bool& close_after) {
    if (head.size() < 12 || !head.starts_with("HTTP/1.")) return std::nullopt;
    status = static_cast<unsigned>((head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0'));
    std::optional<std::size_t> length;
    std::size_t pos = head.find("\r\n");
    while (pos != std::string_view::npos) {
      std::size_t next = head.find("\r\n", pos + 2);
      auto line = head.substr(pos + 2, next == std::string_view::npos ? std::string_view::npos : next - pos - 2);
      auto colon = line.find(':');
      if (colon != std::string_view::npos) {
        auto name = line.substr(0, colon);
        auto value = trim(line.substr(colon + 1));
        if (iequals(name, "content-length")) {
          std::size_t v = 0;
          for (char c : value) v = v * 10 + static_cast<std::size_t>(c - '0');
          length = v;
        } else if (iequals(name, "connection") && iequals(value, "close")) {
          close_after = true;
        }
      }
      pos = next;
    }
    return length;
  }

  tcp::socket socket_;
  tcp::endpoint endpoint_;
  // Allocated once, never zero-filled again: size_ bytes received, consumed_ of them
  // belong to the previous response.
  std::vector<char> buf_ = std::vector<char>(read_chunk);
  std::size_t size_ = 0;
  std::size_t consumed_ = 0;
};

class worker {
 public:
  worker(const options& opts, tcp::endpoint ep, shared_state& shared, const std::vector<std::string>& poll_requests,
         const steady::time_point& deadline)
      : opts_(opts), endpoint_(ep), shared_(shared), poll_requests_(poll_requests), deadline_(deadline) {
    challenge_request_ = fmt::format(
        "POST /api/v1/rooms/{}/challenge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", opts.room);
    // With --bearer the reference gets the very request a poll sends, ticket and all.
    fixed_request_ = fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n{}\r\n", opts.path,
                                 opts.bearer.empty() ? "" : fmt::format("Authorization: Bearer {}\r\n", opts.bearer));
    hold_for_ = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double, std::milli>(opts.hold_for_ms));
  }

  net::io_context& ioc() { return ioc_; }
  worker_stats& stats() { return stats_; }
  // When the last operation ended: the site's releases left after the attempts are not timed.
  steady::time_point finished() const { return finished_; }

  void add_connection(tcp::socket s, std::size_t index) {
    auto c = std::make_unique<connection>(ioc_.get_executor(), endpoint_);
    c->adopt(std::move(s));
    net::co_spawn(ioc_, run(std::move(c), index), rethrow);
  }
  void add_visitor_slot(std::size_t index) { net::co_spawn(ioc_, run_visitors(index), rethrow); }
  void add_release_slot() { net::co_spawn(ioc_, run_releases(), rethrow); }

  void run_until_done() {
    bool timed = opts_.duration_s > 0;
    net::steady_timer watchdog(ioc_);
    if (timed) {
      // Requests stuck on a server that stopped answering must not hold the run open.
      watchdog.expires_at(deadline_ + stop_grace);
      watchdog.async_wait([this](error_code ec) {
        if (!ec) ioc_.stop();
      });
    }
    net::co_spawn(ioc_, wait_for_connections(timed ? &watchdog : nullptr), rethrow);
    ioc_.run();
    if (finished_ == steady::time_point{}) finished_ = steady::now();
  }

  // A join request with a fresh challenge solved (an empty body with --no-pow);
  // nullopt if no challenge could be had.
  net::awaitable<std::optional<std::string>> join_request(connection& c) {
    std::string body;
    if (!opts_.codes.empty()) {
      const auto& code = opts_.codes[shared_.codes_taken.fetch_add(1, std::memory_order_relaxed) % opts_.codes.size()];
      if (!code.empty()) body = fmt::format(R"("code":"{}")", code);
    }
    if (!opts_.no_pow) {
      http_result r;
      if (!co_await timed(c, kind::challenge, challenge_request_, 200, r)) co_return std::nullopt;
      auto token = json_string(r.body, "challenge");
      if (!token) {
        fail("challenge without a token");
        co_return std::nullopt;
      }
      std::string nonce = foyer::pow::solve(*token);
      body = fmt::format(R"("challenge":"{}","nonce":"{}"{}{})", *token, nonce, body.empty() ? "" : ",", body);
    }
    if (!body.empty()) body = "{" + body + "}";
    co_return fmt::format(
        "POST /api/v1/rooms/{}/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: {}\r\n\r\n{}",
        opts_.room, body.size(), body);
  }

  // Joins once on `c` (challenge, solve, join; or a join solved ahead); the ticket lands
  // in `ticket` if given.
  net::awaitable<bool> join(connection& c, std::string* ticket) {
    std::string request;
    if (shared_.solved_joins) {
      auto i = shared_.solved_taken.fetch_add(1, std::memory_order_relaxed);
      if (i >= shared_.solved_joins->size()) co_return fail("no solved challenge left");
      request = (*shared_.solved_joins)[i];
    } else if (auto made = co_await join_request(c)) {
      request = std::move(*made);
    } else {
      co_return false;
    }
    http_result r;
    if (!co_await timed(c, kind::join, request, 201, r)) co_return false;
    if (auto place = json_uint(r.body, "place")) {
      stats_.places.push_back(*place);
    } else if (auto index = json_uint(r.body, "lobby_index")) {
      stats_.lobby_indexes.push_back(*index);
    } else {
      co_return fail("201 without a place or lobby index");
    }
    if (ticket) {
      auto t = json_string(r.body, "ticket");
      if (!t) co_return fail("201 without a ticket");
      *ticket = std::string(*t);
    }
    co_return true;
  }

  // The pass of the visitor with `ticket`, polled for until they are admitted. With
  // seats, the room admits no further than the seats available and the slots freed by a
  // hold, so the visitor then holds a seat (once their claim is written) and the site
  // releases it at once.
  net::awaitable<std::optional<std::string>> admitted_pass(connection& c, const std::string& ticket) {
    auto poll = fmt::format("GET /api/v1/rooms/{}/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n",
                            opts_.room, ticket);
    auto give_up = steady::now() + admission_wait;
    std::string pass;
    while (pass.empty()) {
      http_result r;
      if (!co_await timed(c, kind::status, poll, 200, r)) co_return std::nullopt;
      if (auto p = json_string(r.body, "pass")) {
        pass = *p;
      } else if (steady::now() > give_up) {
        fail("not admitted in time");
        co_return std::nullopt;
      } else {
        co_await pause(admission_poll);
      }
    }
    co_await pause(claim_settle);
    http_result r;
    if (!co_await timed(c, kind::hold, hold_request(pass, fmt::format("{:016x}-setup-{}", run_id_, setup_holds_++), 1), 201, r)) {
      co_return std::nullopt;
    }
    auto hold = json_string(r.body, "hold_id");
    if (!hold) {
      fail("201 without a hold_id");
      co_return std::nullopt;
    }
    if (!co_await timed(c, kind::release, release_request(std::string(*hold)), 200, r)) co_return std::nullopt;
    co_return pass;
  }

 private:
  bool take_op() {
    if (opts_.duration_s > 0 && steady::now() >= deadline_) return false;
    if (opts_.requests > 0 && shared_.ops_taken.fetch_add(1, std::memory_order_relaxed) >= opts_.requests) return false;
    return true;
  }

  bool fail(std::string_view what) {
    ++stats_.errors[std::string(what)];
    shared_.errors.fetch_add(1, std::memory_order_relaxed);
    return false;
  }

  net::awaitable<bool> timed(connection& c, kind k, std::string_view request, unsigned expect, http_result& r) {
    if (!c.open()) {
      if (auto ec = co_await c.connect()) {
        fail(fmt::format("connect: {}", ec.message()));
        co_await pause(reconnect_backoff);
        co_return false;
      }
    }
    auto t0 = steady::now();
    auto ec = co_await c.exchange(request, r);
    if (ec) {
      c.close();
      co_return fail(fmt::format("{}: {}", kind_names[static_cast<std::size_t>(k)], ec.message()));
    }
    if (r.status != expect) {
      co_return fail(fmt::format("{}: status {}", kind_names[static_cast<std::size_t>(k)], r.status));
    }
    stats_.latency[static_cast<std::size_t>(k)].record(steady::now() - t0);
    shared_.ok[static_cast<std::size_t>(k)].fetch_add(1, std::memory_order_relaxed);
    co_return true;
  }

  net::awaitable<void> pause(steady::duration d) { co_await pause_until(steady::now() + d); }

  net::awaitable<void> pause_until(steady::time_point t) {
    net::steady_timer timer(ioc_, t);
    error_code ignored;
    co_await timer.async_wait(redirect_error(use_awaitable, ignored));
  }

  std::string hold_request(std::string_view pass, std::string_view key, std::uint32_t seats) const {
    auto body = fmt::format(R"({{"seats":{}}})", seats);
    return fmt::format(
        "POST /api/v1/rooms/{}/holds HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n"
        "Idempotency-Key: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        opts_.room, pass, key, body.size(), body);
  }

  // The site's release of a hold; its key is the hold's, so a retry counts once.
  std::string release_request(const std::string& hold) const {
    return fmt::format(
        "POST /api/v1/rooms/{}/holds/{}/release HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n"
        "Idempotency-Key: release-{}\r\nContent-Length: 0\r\n\r\n",
        opts_.room, hold, opts_.site_token, hold);
  }

  // One attempt, due at `due`: a visitor's pass in turn and a fresh key. A placed hold is
  // queued for the site's release; a refusal is counted by its code.
  net::awaitable<void> attempt_hold(connection& c, std::size_t index, std::uint64_t k, steady::time_point due) {
    if (!c.open()) {
      if (auto ec = co_await c.connect()) {
        fail(fmt::format("connect: {}", ec.message()));
        co_await pause(reconnect_backoff);
        co_return;
      }
    }
    const auto& passes = *shared_.passes;
    const auto& pass = passes[shared_.passes_taken.fetch_add(1, std::memory_order_relaxed) % passes.size()];
    // Unique across runs too: a key the server kept from an earlier run would be answered
    // from its receipt.
    auto request = hold_request(pass, fmt::format("{:016x}-{}-{}", run_id_, index, k), opts_.seats);
    http_result r;
    if (auto ec = co_await c.exchange(request, r)) {
      c.close();
      fail(fmt::format("hold: {}", ec.message()));
      co_return;
    }
    if (r.status == 201) {
      auto hold = json_string(r.body, "hold_id");
      if (!hold) {
        fail("201 without a hold_id");
        co_return;
      }
      releases_.emplace_back(steady::now() + hold_for_, std::string(*hold));
      ++stats_.outcomes["placed"];
    } else if (r.status == 409) {
      auto code = json_string(r.body, "error");
      ++stats_.outcomes[code ? std::string(*code) : "409 without a code"];
    } else {
      fail(fmt::format("hold: status {}", r.status));
      co_return;
    }
    stats_.latency[static_cast<std::size_t>(kind::hold)].record(steady::now() - due);
    shared_.ok[static_cast<std::size_t>(kind::hold)].fetch_add(1, std::memory_order_relaxed);
  }

  // The site: releases each placed hold when its time comes, and every one left once the
  // attempts are over, so that the next run finds the seats free.
  net::awaitable<void> run_releases() {
    ++live_;
    connection c(ioc_.get_executor(), endpoint_);
    while (attempting_ > 0 || !releases_.empty()) {
      if (releases_.empty() || (attempting_ > 0 && releases_.front().first > steady::now())) {
        co_await pause(std::chrono::milliseconds(1));
        continue;
      }
      auto request = release_request(releases_.front().second);
      releases_.pop_front();
      http_result r;
      co_await timed(c, kind::release, request, 200, r);
    }
    c.close();
    --live_;
  }

  net::awaitable<void> run(std::unique_ptr<connection> c, std::size_t index) {
    ++live_;
    ++attempting_;
    // --rate: each connection sends on its own schedule, the connections staggered.
    const bool paced = opts_.rate > 0;
    const auto interval = std::chrono::duration_cast<steady::duration>(
        std::chrono::duration<double>(paced ? static_cast<double>(opts_.connections) / opts_.rate : 0));
    auto due = shared_.start + interval * static_cast<std::int64_t>(index) / static_cast<std::int64_t>(opts_.connections);
    std::uint64_t k = 0;
    for (;;) {
      if (paced) co_await pause_until(due);
      if (!take_op()) break;
      if (opts_.what == scenario::holds) {
        co_await attempt_hold(*c, index, k++, paced ? due : steady::now());
        due += interval;
        shared_.ops_done.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      bool join_now = opts_.what == scenario::joins ||
                      ((opts_.what == scenario::mixed || opts_.what == scenario::long_run) &&
                       (k + index) % join_every == join_every - 1);
      ++k;
      if (opts_.what == scenario::fixed) {
        http_result r;
        co_await timed(*c, kind::fixed, fixed_request_, 200, r);
      } else if (join_now) {
        co_await join(*c, nullptr);
      } else {
        http_result r;
        if (co_await timed(*c, kind::status, poll_requests_[(index + k) % poll_requests_.size()], 200, r)) {
          if (r.body.find("\"state\":") == std::string_view::npos) fail("status without a state");
          if (!opts_.sample_body.empty() && !shared_.sampled.exchange(true)) {
            std::ofstream(opts_.sample_body) << r.body;
            std::string_view sent = poll_requests_[(index + k) % poll_requests_.size()];
            auto from = sent.find("Bearer ") + 7;
            if (!opts_.sample_ticket.empty()) std::ofstream(opts_.sample_ticket) << sent.substr(from, sent.find('\r', from) - from);
          }
        }
      }
      shared_.ops_done.fetch_add(1, std::memory_order_relaxed);
    }
    c->close();
    if (--attempting_ == 0) finished_ = steady::now();
    --live_;
  }

  // The opening rush: each visit is a fresh connection that joins, polls once and leaves.
  net::awaitable<void> run_visitors(std::size_t) {
    ++live_;
    while (take_op()) {
      auto t0 = steady::now();
      connection c(ioc_.get_executor(), endpoint_);
      if (auto ec = co_await c.connect()) {
        fail(fmt::format("connect: {}", ec.message()));
        co_await pause(reconnect_backoff);
        continue;
      }
      std::string ticket;
      if (co_await join(c, &ticket)) {
        auto poll = fmt::format("GET /api/v1/rooms/{}/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n",
                                opts_.room, ticket);
        http_result r;
        if (co_await timed(c, kind::status, poll, 200, r)) {
          stats_.latency[static_cast<std::size_t>(kind::visit)].record(steady::now() - t0);
          shared_.ok[static_cast<std::size_t>(kind::visit)].fetch_add(1, std::memory_order_relaxed);
        }
      }
      c.close();
      shared_.ops_done.fetch_add(1, std::memory_order_relaxed);
    }
    --live_;
  }

  net::awaitable<void> wait_for_connections(net::steady_timer* watchdog) {
    co_await pause(std::chrono::milliseconds(1));
    while (live_ > 0) co_await pause(std::chrono::milliseconds(5));
    if (watchdog) watchdog->cancel();
  }

  const options& opts_;
  tcp::endpoint endpoint_;
  shared_state& shared_;
  const std::vector<std::string>& poll_requests_;
  const steady::time_point& deadline_;  // set before the threads start
  net::io_context ioc_{1};
  worker_stats stats_;
  std::string challenge_request_;
  std::string fixed_request_;
  std::size_t live_ = 0;
  std::size_t attempting_ = 0;  // connections still taking operations
  std::uint64_t setup_holds_ = 0;
  steady::time_point finished_;
  // holds: placed holds and when the site releases them, in that order.
  std::deque<std::pair<steady::time_point, std::string>> releases_;
  steady::duration hold_for_;
  std::uint64_t run_id_ = std::random_device{}() * std::uint64_t{0x100000000} + std::random_device{}();
};

tcp::endpoint loopback_endpoint(const std::string& target) {
  auto colon = target.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--target must be HOST:PORT");
  std::string host = target.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") host = "127.0.0.1";
  error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec || !address.is_loopback() || (address.is_v4() && address.to_string() != "127.0.0.1")) {
    throw std::invalid_argument(fmt::format("refusing target '{}': only 127.0.0.1 and ::1 are allowed", target));
  }
  return {address, static_cast<unsigned short>(std::stoul(target.substr(colon + 1)))};
}

// `count` strings made before the clock starts by `make(worker, connection)` on
// `connections` connections at once; throws, with the errors seen, if too many fail.
template <typename Make>
std::vector<std::string> prepare(const options& opts, tcp::endpoint ep, std::size_t count, std::size_t connections,
                                 std::string_view what, Make make) {
  shared_state shared;
  const std::vector<std::string> no_polls;
  const auto never = steady::time_point::max();
  worker w(opts, ep, shared, no_polls, never);
  std::vector<std::string> made;
  std::size_t failed = 0;
  auto fetch = [&]() -> net::awaitable<void> {
    connection c(w.ioc().get_executor(), ep);  // connected by the first request
    while (made.size() < count && failed < count) {
      if (auto one = co_await make(w, c)) {
        made.push_back(std::move(*one));
      } else {
        ++failed;
      }
    }
  };
  for (std::size_t i = 0; i < std::min(count, connections); ++i) net::co_spawn(w.ioc(), fetch(), rethrow);
  w.ioc().run();
  if (made.size() < count) {
    std::string why;
    for (const auto& [error, n] : w.stats().errors) why += fmt::format(" {} x{};", error, n);
    throw std::runtime_error(fmt::format("could get only {} of {} {}:{}", made.size(), count, what, why));
  }
  made.resize(count);
  return made;
}

// Tickets for the polls.
std::vector<std::string> obtain_tickets(const options& opts, tcp::endpoint ep, std::size_t count) {
  return prepare(opts, ep, count, setup_connections, "tickets",
                 [](worker& w, connection& c) -> net::awaitable<std::optional<std::string>> {
                   std::string ticket;
                   if (!co_await w.join(c, &ticket)) co_return std::nullopt;
                   co_return ticket;
                 });
}

// The passes of `count` admitted visitors (holds).
std::vector<std::string> obtain_passes(const options& opts, tcp::endpoint ep, std::size_t count) {
  auto tickets = obtain_tickets(opts, ep, count);
  std::size_t next = 0;
  return prepare(opts, ep, count, setup_connections, "passes",
                 [&](worker& w, connection& c) -> net::awaitable<std::optional<std::string>> {
                   if (next == tickets.size()) co_return std::nullopt;
                   co_return co_await w.admitted_pass(c, tickets[next++]);
                 });
}

// Join requests with their challenges solved; as many connections as the timed run,
// since challenges expire and must be minted fast.
std::vector<std::string> obtain_solved_joins(const options& opts, tcp::endpoint ep, std::size_t count) {
  return prepare(opts, ep, count, opts.connections, "solved challenges",
                 [](worker& w, connection& c) { return w.join_request(c); });
}

double ms(std::uint64_t us) { return static_cast<double>(us) / 1000.0; }

std::size_t duplicates(std::vector<std::uint64_t>& v) {
  std::sort(v.begin(), v.end());
  std::size_t dup = 0;
  for (std::size_t i = 1; i < v.size(); ++i) dup += v[i] == v[i - 1];
  return dup;
}

int run(const options& opts) {
  auto ep = loopback_endpoint(opts.target);
  bool polls = opts.what == scenario::polls || opts.what == scenario::mixed || opts.what == scenario::long_run;
  std::vector<std::string> poll_requests;
  if (polls) {
    std::size_t n = opts.tickets ? opts.tickets : opts.connections;
    for (const auto& t : obtain_tickets(opts, ep, n)) {
      poll_requests.push_back(fmt::format(
          "GET /api/v1/rooms/{}/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n", opts.room, t));
    }
  }

  std::vector<std::string> passes;
  if (opts.what == scenario::holds) {
    auto t0 = steady::now();
    passes = obtain_passes(opts, ep, opts.visitors);
    fmt::print("admitted visitors: {} passes in {:.2f} s (not timed)\n", passes.size(),
               std::chrono::duration<double>(steady::now() - t0).count());
  }

  std::optional<by_part> cpu_at_visit;
  std::vector<std::string> solved_joins;
  if (opts.what == scenario::joins && opts.solved_ahead > 0) {
    if (opts.server_pid > 0) cpu_at_visit = read_server_cpu(opts.server_pid);
    auto t0 = steady::now();
    solved_joins = obtain_solved_joins(opts, ep, opts.solved_ahead);
    fmt::print("solved ahead: {} challenges fetched and solved in {:.2f} s (not timed)\n", solved_joins.size(),
               std::chrono::duration<double>(steady::now() - t0).count());
  }

  shared_state shared;
  if (!solved_joins.empty()) shared.solved_joins = &solved_joins;
  if (!passes.empty()) shared.passes = &passes;
  auto deadline = steady::time_point::max();
  std::vector<std::unique_ptr<worker>> workers;
  for (std::size_t t = 0; t < opts.threads; ++t) {
    workers.push_back(std::make_unique<worker>(opts, ep, shared, poll_requests, deadline));
  }
  // Connections are opened before the clock starts, so the figures are steady state.
  for (std::size_t i = 0; i < opts.connections; ++i) {
    auto& w = *workers[i % workers.size()];
    if (opts.what == scenario::lobby) {
      w.add_visitor_slot(i);
      continue;
    }
    tcp::socket s(w.ioc());
    s.connect(ep);
    s.set_option(tcp::no_delay(true));
    w.add_connection(std::move(s), i);
  }
  if (opts.what == scenario::holds) {
    for (auto& w : workers) w->add_release_slot();
  }
  std::optional<by_part> cpu_at_start;
  std::optional<by_part> allocs_at_start;
  if (opts.server_pid > 0) cpu_at_start = read_server_cpu(opts.server_pid);
  if (!opts.alloc_counts.empty()) allocs_at_start = read_server_allocations(opts.server_pid, opts.alloc_counts);
  double own_cpu_at_start = own_cpu_us();
  auto start = steady::now();
  shared.start = start;
  if (opts.duration_s > 0) {
    deadline = start + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(opts.duration_s));
  }
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->run_until_done(); });

  std::atomic<bool> done{false};
  std::thread reporter;
  if (opts.report_every_s > 0) {
    reporter = std::thread([&] {
      auto every = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(opts.report_every_s));
      auto next = start + every;
      std::uint64_t last_ops = 0;
      while (!done.load()) {
        std::this_thread::sleep_until(std::min(next, steady::now() + std::chrono::milliseconds(100)));
        if (steady::now() < next) continue;
        std::uint64_t ops = shared.ops_done.load();
        fmt::print("  t={:7.1f}s ops {:>10} ({:>9.0f}/s) joins {:>9} polls {:>10} errors {}\n",
                   std::chrono::duration<double>(steady::now() - start).count(), ops,
                   static_cast<double>(ops - last_ops) / opts.report_every_s, shared.ok[static_cast<std::size_t>(kind::join)].load(),
                   shared.ok[static_cast<std::size_t>(kind::status)].load(),
                   shared.errors.load());
        std::fflush(stdout);
        last_ops = ops;
        next += every;
      }
    });
  }
  for (auto& t : threads) t.join();
  double own_cpu_used = own_cpu_us() - own_cpu_at_start;
  std::optional<by_part> cpu_at_end;
  std::optional<by_part> allocs_at_end;
  if (opts.server_pid > 0) cpu_at_end = read_server_cpu(opts.server_pid);
  if (allocs_at_start) allocs_at_end = read_server_allocations(opts.server_pid, opts.alloc_counts);
  done = true;
  if (reporter.joinable()) reporter.join();

  auto end = start;
  worker_stats all;
  for (auto& w : workers) {
    end = std::max(end, w->finished());
    auto& s = w->stats();
    for (std::size_t k = 0; k < kinds; ++k) all.latency[k].merge(s.latency[k]);
    for (const auto& [what, n] : s.errors) all.errors[what] += n;
    all.places.insert(all.places.end(), s.places.begin(), s.places.end());
    all.lobby_indexes.insert(all.lobby_indexes.end(), s.lobby_indexes.begin(), s.lobby_indexes.end());
    for (const auto& [what, n] : s.outcomes) all.outcomes[what] += n;
  }
  double seconds = std::chrono::duration<double>(end - start).count();
  std::uint64_t ops = shared.ops_done.load();
  std::uint64_t errors = shared.errors.load();

  static constexpr std::string_view names[] = {"polls", "joins", "mixed", "lobby", "long", "fixed", "holds"};
  std::string_view name = names[static_cast<std::size_t>(opts.what)];
  fmt::print("foyer_load: {} against {}, {} connections, {} thread(s), {:.2f} s\n", name, opts.target,
             opts.connections, opts.threads, seconds);
  std::string json = fmt::format(R"({{"scenario":"{}","target":"{}","connections":{},"threads":{},"seconds":{:.3f},"ops":{},"ops_per_s":{:.1f},"errors":{})",
                                 name, opts.target, opts.connections, opts.threads, seconds, ops,
                                 static_cast<double>(ops) / seconds, errors);
  for (std::size_t k = 0; k < kinds; ++k) {
    const auto& h = all.latency[k];
    if (h.total() == 0) continue;
    double rps = static_cast<double>(h.total()) / seconds;
    fmt::print("  {:<9} ok {:>10}  {:>10.1f}/s  p50 {:6.2f} ms  p99 {:6.2f} ms  max {:7.2f} ms\n", kind_names[k],
               h.total(), rps, ms(h.percentile_us(0.5)), ms(h.percentile_us(0.99)), ms(h.max_us()));
    json += fmt::format(R"(,"{}":{{"ok":{},"per_s":{:.1f},"p50_us":{},"p99_us":{},"max_us":{}}})", kind_names[k],
                        h.total(), rps, h.percentile_us(0.5), h.percentile_us(0.99), h.max_us());
  }
  fmt::print("  operations {} in {:.2f} s: {:.1f}/s; errors {}\n", ops, seconds, static_cast<double>(ops) / seconds,
             errors);
  // The load generator shares the machine: what it takes is what the server cannot have.
  double own_per_op = own_cpu_used / static_cast<double>(std::max<std::uint64_t>(ops, 1));
  fmt::print("  load generator CPU per operation, timed phase: {:.1f} µs\n", own_per_op);
  json += fmt::format(R"(,"load_cpu_us":{:.2f})", own_per_op);
  if (cpu_at_end) {
    auto [timed_json, timed_text] = cpu_per_op(*cpu_at_start, *cpu_at_end, ops);
    fmt::print("  server CPU per operation, timed phase: {}\n", timed_text);
    json += fmt::format(R"(,"server_cpu_us":{})", timed_json);
    if (cpu_at_visit) {
      auto [visit_json, visit_text] = cpu_per_op(*cpu_at_visit, *cpu_at_end, ops);
      fmt::print("  server CPU per visit (challenge fetched ahead, then join): {}\n", visit_text);
      json += fmt::format(R"(,"visit_cpu_us":{})", visit_json);
    }
  }
  if (allocs_at_end) {
    auto [allocs_json, allocs_text] = per_op(*allocs_at_start, *allocs_at_end, ops, 1, "");
    fmt::print("  server allocations per operation, timed phase: {}\n", allocs_text);
    json += fmt::format(R"(,"server_allocs":{})", allocs_json);
  }
  for (const auto& [what, n] : all.errors) fmt::print("    error {} x{}\n", what, n);
  if (opts.what == scenario::holds) {
    std::string outcomes;
    for (const auto& [what, n] : all.outcomes) {
      fmt::print("    attempts {} {} ({:.1f}/s)\n", what, n, static_cast<double>(n) / seconds);
      outcomes += fmt::format(R"({}"{}":{})", outcomes.empty() ? "" : ",", what, n);
    }
    json += fmt::format(R"(,"rate":{:.1f},"visitors":{},"outcomes":{{{}}})", opts.rate, opts.visitors, outcomes);
  }

  if (!opts.places_out.empty()) {
    std::ofstream out(opts.places_out);
    for (auto p : all.places) out << p << '\n';
    for (auto i : all.lobby_indexes) out << "lobby " << i << '\n';
  }
  std::size_t dup_places = duplicates(all.places);
  std::size_t dup_lobby = duplicates(all.lobby_indexes);
  if (!all.places.empty() || !all.lobby_indexes.empty()) {
    fmt::print("  places recorded {} (duplicates {}), lobby indexes recorded {} (duplicates {})\n", all.places.size(),
               dup_places, all.lobby_indexes.size(), dup_lobby);
  }
  json += fmt::format(R"(,"places":{},"duplicate_places":{},"lobby_indexes":{},"duplicate_lobby_indexes":{}}})",
                      all.places.size(), dup_places, all.lobby_indexes.size(), dup_lobby);
  fmt::print("RESULT {}\n", json);
  return dup_places + dup_lobby > 0 ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  options opts;
  CLI::App app{"Foyer load generator: keep-alive HTTP load on loopback, with native proof-of-work solving"};
  std::map<std::string, scenario> scenarios{{"polls", scenario::polls}, {"joins", scenario::joins},
                                            {"mixed", scenario::mixed}, {"lobby", scenario::lobby},
                                            {"long", scenario::long_run}, {"fixed", scenario::fixed},
                                            {"holds", scenario::holds}};
  app.add_option("--scenario", opts.what, "polls, joins, mixed, lobby, long, fixed or holds")
      ->transform(CLI::CheckedTransformer(scenarios, CLI::ignore_case));
  app.add_option("--target", opts.target, "HOST:PORT on loopback (127.0.0.1 or [::1])");
  app.add_option("--room", opts.room, "room id");
  app.add_option("--path", opts.path, "fixed: the path to GET");
  app.add_option("--connections,-c", opts.connections, "concurrent connections (lobby: concurrent visitors)")
      ->check(CLI::Range(1, 60000));
  app.add_option("--threads,-t", opts.threads, "threads, each with its own share of the connections")
      ->check(CLI::Range(1, 64));
  app.add_option("--requests,-n", opts.requests, "stop after this many operations (0: no count bound)");
  app.add_option("--duration,-d", opts.duration_s, "stop after this many seconds (0: no time bound)");
  app.add_option("--tickets", opts.tickets, "polls: distinct tickets to poll with (default: one per connection)");
  app.add_option("--solved-ahead", opts.solved_ahead,
                 "joins: fetch and solve this many challenges first, then time only the joins (implies -n)");
  std::string codes_file;
  app.add_option("--codes", codes_file,
                 "a file of access codes, one a line, that the joins (the polls' tickets' too) carry in turn, "
                 "from the first again after the last; an empty line: a join without a code")
      ->check(CLI::ExistingFile);
  app.add_flag("--no-pow", opts.no_pow, "join with an empty body (server has base_bits = 0)");
  app.add_option("--report-every", opts.report_every_s, "print progress every this many seconds");
  app.add_option("--places-out", opts.places_out, "write every place (and lobby index) from a 201 to this file");
  app.add_option("--sample-body", opts.sample_body, "write the body of one status answer to this file");
  app.add_option("--sample-ticket", opts.sample_ticket, "with --sample-body: write the ticket of that poll to this file");
  app.add_option("--bearer", opts.bearer, "fixed: send 'Authorization: Bearer' with this token, as a poll does");
  app.add_option("--visitors", opts.visitors, "holds: admitted visitors whose passes make the attempts")
      ->check(CLI::Range(1, 100000));
  app.add_option("--rate", opts.rate, "holds: attempts per second in all, an open loop (0: closed loop)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--site-token", opts.site_token, "holds: the site token that releases the placed holds");
  app.add_option("--seats", opts.seats, "holds: seats each attempt asks for")->check(CLI::Range(1, 1000));
  app.add_option("--hold-for-ms", opts.hold_for_ms, "holds: a placed hold is released this long after")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--server-pid", opts.server_pid,
                 "measure this server's CPU per operation around the timed phase, by thread (and the visit's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--alloc-counts", opts.alloc_counts,
                 "with --server-pid: the file of the server's counting allocator (FOYER_ALLOC_COUNTS of "
                 "bench/alloc_count), to report its allocations per operation by thread")
      ->needs("--server-pid");
  CLI11_PARSE(app, argc, argv);
  if (opts.solved_ahead > 0) {
    if (opts.what != scenario::joins || opts.no_pow) {
      fmt::print(stderr, "foyer_load: --solved-ahead is for --scenario joins with proofs of work\n");
      return 2;
    }
    if (opts.requests == 0 || opts.requests > opts.solved_ahead) opts.requests = opts.solved_ahead;
  }
  if (opts.what == scenario::holds && opts.site_token.empty()) {
    fmt::print(stderr, "foyer_load: --scenario holds needs --site-token to release the holds it places\n");
    return 2;
  }
  if (opts.rate > 0 && opts.what != scenario::holds) {
    fmt::print(stderr, "foyer_load: --rate is for --scenario holds\n");
    return 2;
  }
  if (opts.requests == 0 && opts.duration_s <= 0) {
    if (opts.what != scenario::long_run) {
      fmt::print(stderr, "foyer_load: give --requests, --duration or both\n");
      return 2;
    }
    opts.duration_s = 600;
  }
  if (opts.what == scenario::long_run && opts.report_every_s <= 0) opts.report_every_s = 10;
  opts.threads = std::min(opts.threads, opts.connections);
  if (!codes_file.empty()) {
    std::ifstream in(codes_file);
    for (std::string line; std::getline(in, line);) opts.codes.push_back(line);
    if (opts.codes.empty()) {
      fmt::print(stderr, "foyer_load: {} holds no line\n", codes_file);
      return 2;
    }
  }
  try {
    return run(opts);
  } catch (const std::exception& e) {
    fmt::print(stderr, "foyer_load: {}\n", e.what());
    return 2;
  }
}
