#include "app/guard.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fmt/core.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "app/guard_discovery.hpp"
#include "core/gate/network.hpp"
#include "core/passes/pass.hpp"
#include "core/passes/pass_gate.hpp"
#include "http/guard_handler.hpp"
#include "http/http_get.hpp"
#include "http/server.hpp"

namespace foyer::app {
namespace {

namespace net = boost::asio;
using steady = std::chrono::steady_clock;

constexpr std::chrono::milliseconds fetch_timeout{5'000};
// Passes under a kid the guard does not know trigger a refresh, at most this often, so a
// stream of made-up kids cannot turn into a stream of requests to Foyer.
constexpr std::chrono::seconds min_early_refresh_gap{10};
constexpr std::int64_t max_refresh_seconds = 24 * 3600;

struct guard_options {
  std::string foyer;
  std::string jwks;
  std::string listen = "127.0.0.1:8081";
  std::string room;
  std::string issuer;
  std::string login_url;
  std::int64_t leeway_seconds = 5;
  std::int64_t refresh_seconds = 300;
  bool single_use = false;
  bool secure_cookie = false;
  std::size_t cache_size = pass::gate_settings{}.cache_capacity;
  std::size_t single_use_capacity = pass::gate_settings{}.single_use_capacity;
};

std::shared_ptr<const pass_verifier> make_verifier(std::string_view jwks, const pass_expectations& expect) {
  return std::make_shared<const pass_verifier>(jwks, expect, std::vector<key_kind>{pass::es256_key_kind()});
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The file's bytes if it is a regular file of at most `limit` bytes. Reads at most limit + 1
// bytes whatever the file holds, and never waits for a writer (a FIFO is refused): this runs
// on the guard's only loop. Throws std::runtime_error naming the file.
std::string read_capped_file(const std::string& path, std::size_t limit) {
  int raw = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (raw < 0) throw std::runtime_error(fmt::format("{}: cannot be opened: {}", path, std::strerror(errno)));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } closes{raw};
  struct stat st {};
  if (::fstat(raw, &st) != 0 || !S_ISREG(st.st_mode)) throw std::runtime_error(path + ": is not a regular file");
  std::string text(limit + 1, '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    auto n = ::read(raw, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done > limit) throw std::runtime_error(fmt::format("{}: larger than {} KiB, refused unread", path, limit / 1024));
  text.resize(done);
  return text;
}

// A URL the guard may fetch from, for `flag`'s message: https://, or plain http:// to a
// loopback or private address, since keys fetched in the clear across the internet could be
// swapped on the way.
http::http_url fetchable_url(std::string_view flag, const std::string& location) {
  auto url = parse_url(location);
  if (!url) throw std::invalid_argument(fmt::format("{}: '{}' is not an http[s]://host[:port]/path URL", flag, location));
  if (!url->tls && !loopback_or_private(url->host)) {
    throw std::invalid_argument(fmt::format("{}: plain http:// only to a loopback or private address (got "
                                            "'{}'); elsewhere, use https://",
                                            flag, url->host));
  }
  return *url;
}

// Where the keys come from: Foyer's JWKS URL, or a file (re-read at each refresh, so a copy
// kept fresh by a timer works too). `flag` names the option it came from, for messages.
class key_source {
 public:
  key_source(std::string_view flag, std::string location) : location_(std::move(location)) {
    if (location_.starts_with("https://") || location_.starts_with("http://")) url_ = fetchable_url(flag, location_);
  }

  const std::string& location() const { return location_; }

  net::awaitable<std::string> load() const {
    if (url_) co_return co_await http::http_get(*url_, fetch_timeout, pass_verifier::max_jwks_size);
    co_return read_capped_file(location_, pass_verifier::max_jwks_size);
  }

 private:
  std::string location_;
  std::optional<http::http_url> url_;
};

// Re-reads the keys in the background and swaps them into the gate when they change. Runs on
// the event loop, like the gate.
class key_refresher {
 public:
  key_refresher(net::io_context& ioc, const key_source& source, pass_expectations expect, pass::gate& gate,
                std::string current_text, std::chrono::seconds interval)
      : ioc_(ioc), source_(source), expect_(std::move(expect)), gate_(gate), text_(std::move(current_text)),
        interval_(interval), timer_(ioc), last_attempt_(steady::now()) {}

  void start() {
    net::co_spawn(ioc_, loop(), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);  // a bug, not the network: let it end the process
    });
  }

  void stop() {
    stopping_ = true;
    timer_.cancel();
  }

  // New keys may have been published since the last refresh.
  void refresh_soon() {
    if (stopping_ || steady::now() - last_attempt_ < min_early_refresh_gap) return;
    timer_.cancel();
  }

 private:
  net::awaitable<void> loop() {
    while (!stopping_) {
      timer_.expires_at(last_attempt_ + interval_);
      boost::system::error_code ec;
      co_await timer_.async_wait(net::redirect_error(net::use_awaitable, ec));  // cancelled: refresh now
      if (stopping_) co_return;
      last_attempt_ = steady::now();
      co_await refresh();
    }
  }

  net::awaitable<void> refresh() {
    std::string text;
    try {
      text = co_await source_.load();
      if (text == text_) co_return;
      gate_.replace_verifier(make_verifier(text, expect_));
    } catch (const std::exception& e) {
      fmt::print(stderr, "foyer guard: cannot refresh the keys, keeping {}: {}\n", joined(gate_.verifier().key_ids()),
                 e.what());
      co_return;
    }
    text_ = std::move(text);
    fmt::print("foyer guard: keys from {} are now {}\n", source_.location(), joined(gate_.verifier().key_ids()));
    std::fflush(stdout);
  }

  net::io_context& ioc_;
  const key_source& source_;
  pass_expectations expect_;
  pass::gate& gate_;
  std::string text_;  // the JWKS in use, to skip unchanged ones
  std::chrono::seconds interval_;
  net::steady_timer timer_;
  steady::time_point last_attempt_;
  bool stopping_ = false;
};

net::ip::tcp::endpoint listen_endpoint(net::io_context& ioc, const std::string& listen) {
  check_listen(listen);
  auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  net::ip::tcp::resolver resolver(ioc);
  boost::system::error_code ec;
  auto results = resolver.resolve(host, listen.substr(colon + 1),
                                  net::ip::tcp::resolver::passive | net::ip::tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) throw std::invalid_argument(fmt::format("--listen: cannot resolve '{}'", host));
  return results.begin()->endpoint();
}

std::string endpoint_text(const net::ip::tcp::endpoint& e) {
  return e.address().is_v6() ? fmt::format("[{}]:{}", e.address().to_string(), e.port())
                             : fmt::format("{}:{}", e.address().to_string(), e.port());
}

// Runs `fetch` to its end on the loop before the guard listens (the first keys: without them
// it could only refuse; the discovery document).
std::string fetch_at_start(net::io_context& ioc, net::awaitable<std::string> fetch) {
  std::string text;
  std::exception_ptr failure;
  net::co_spawn(ioc, std::move(fetch), [&](std::exception_ptr e, std::string loaded) {
    failure = e;
    text = std::move(loaded);
  });
  ioc.run();
  ioc.restart();
  if (failure) std::rethrow_exception(failure);
  return text;
}

// With --foyer: the issuer and the keys' location from the server's discovery document,
// checked against --issuer and --room. Without: --issuer and --jwks as given.
std::pair<std::string, std::string> issuer_and_keys(net::io_context& ioc, const guard_options& options) {
  if (options.foyer.empty()) {
    if (options.jwks.empty()) throw std::invalid_argument("--foyer URL or --jwks FILE|URL: where the keys are");
    if (options.issuer.empty()) throw std::invalid_argument("--issuer: Foyer's issuer is required with --jwks");
    return {options.issuer, options.jwks};
  }
  auto source = discovery_url(options.foyer);
  auto url = fetchable_url("--foyer", source);
  auto text = fetch_at_start(ioc, http::http_get(url, fetch_timeout, max_discovery_size));
  foyer_discovery server;
  std::string jwks;
  try {
    server = parse_discovery(text);
    jwks = jwks_location(options.foyer, server.jwks_uri);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", source, e.what()));
  }
  return {agreed_issuer(server, options.issuer, options.room, source), jwks};
}

void run_guard(const guard_options& options) {
  if (options.login_url.empty()) throw std::invalid_argument("--login-url: the waiting room's URL is required");
  if (!http::is_field_value(options.login_url)) {
    throw std::invalid_argument("--login-url: control characters cannot go into a Location header");
  }
  system_clock clock;
  net::io_context ioc{1};
  auto endpoint = listen_endpoint(ioc, options.listen);
  auto [issuer, jwks] = issuer_and_keys(ioc, options);
  pass_expectations expect{issuer, options.room, options.leeway_seconds};
  key_source source(options.foyer.empty() ? "--jwks" : "--foyer", jwks);
  auto text = fetch_at_start(ioc, source.load());
  pass::gate gate(make_verifier(text, expect),
                  {options.cache_size, options.single_use, options.single_use_capacity});
  key_refresher refresher(ioc, source, expect, gate, std::move(text), std::chrono::seconds(options.refresh_seconds));
  http::guard_handler handler(gate, clock, {options.login_url, options.secure_cookie},
                              [&refresher] { refresher.refresh_soon(); },
                              [](std::string_view line) {
                                fmt::print(stderr, "{}\n", line);
                                std::fflush(stderr);
                              });

  http::server_limits limits;
  // nginx forwards every header of the visitor's request, cookies of the whole site included.
  limits.header_limit = 64 * 1024;
  http::server server(ioc, endpoint, limits, [&handler](http::request& req, const http::peer&) -> http::task<http::response> {
    co_return handler.handle(req);
  });
  server.start();
  refresher.start();
  fmt::print("foyer guard: listening on http://{} for room '{}' of issuer '{}'{}, keys {} from {}\n",
             endpoint_text(server.local_endpoint()), options.room, issuer, options.single_use ? " (single use)" : "",
             joined(gate.verifier().key_ids()), source.location());
  std::fflush(stdout);

  auto work = net::make_work_guard(ioc);
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (ec) return;
    refresher.stop();
    server.stop([&] { work.reset(); });
  });
  ioc.run();
}

}  // namespace

void add_guard_command(CLI::App& app) {
  auto options = std::make_shared<guard_options>();
  auto* cmd = app.add_subcommand("guard", "Check visitors' passes for nginx auth_request, with the public keys alone.");
  auto* foyer = cmd->add_option("--foyer", options->foyer,
                                 "Foyer's URL: issuer and keys from its /.well-known/foyer.json");
  cmd->add_option("--jwks", options->jwks, "Foyer's JWKS: a file, or https://HOST/.well-known/jwks.json")
      ->excludes(foyer);
  cmd->add_option("--room", options->room, "The room whose passes are accepted (the aud claim)")->required();
  cmd->add_option("--issuer", options->issuer,
                  "Foyer's issuer setting (the iss claim; Foyer's default: foyer); with --foyer, checked against it");
  cmd->add_option("--login-url", options->login_url, "The waiting room, where visitors without a valid pass go")
      ->required();
  cmd->add_option("--listen", options->listen, "HOST:PORT to listen on (default 127.0.0.1:8081)");
  cmd->add_option("--leeway", options->leeway_seconds, "Clock skew tolerated on exp and nbf, in seconds (default 5)")
      ->check(CLI::Range(std::int64_t{0}, pass_verifier::max_leeway_seconds));
  cmd->add_option("--refresh", options->refresh_seconds, "Seconds between key refreshes (default 300)")
      ->check(CLI::Range(std::int64_t{1}, max_refresh_seconds));
  cmd->add_flag("--single-use", options->single_use, "Accept each pass (jti) once, e.g. for a checkout step");
  cmd->add_flag("--secure-cookie", options->secure_cookie, "Mark the pass cookie Secure (the site uses HTTPS)");
  cmd->add_option("--cache-size", options->cache_size, "Verified passes remembered; 0 turns the cache off (default 100000)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{100'000'000}));
  cmd->add_option("--single-use-capacity", options->single_use_capacity,
                  "Spent pass ids remembered until they expire (default 1000000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000'000}));
  cmd->callback([options] {
    try {
      run_guard(*options);
    } catch (const std::exception& e) {
      fmt::print(stderr, "foyer guard: {}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace foyer::app
