#include "app/audit_cli.hpp"

#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <fmt/core.h>

#include <chrono>
#include <exception>
#include <memory>

#include "core/base/url.hpp"
#include "core/fairness/draw_audit.hpp"
#include "delivery/http_get.hpp"

namespace foyer::app {
namespace {

// The largest file a log publishes: a bundle of 256 entries of up to 65,535 bytes each.
constexpr std::size_t file_limit = 256 * (2 + 65'535);
constexpr std::chrono::seconds file_timeout{30};

struct audit_options {
  std::string url;
  std::string room;
  std::string vkey;
  std::vector<std::string> witnesses;
  std::size_t quorum = 0;
};

// GETs `path` below `base`: the body, nullopt on a 404; throws naming the URL and the cause.
std::optional<std::string> fetch(const http_url& base, const std::string& path) {
  auto url = base;
  if (!url.target.ends_with('/')) url.target += '/';
  url.target += path;
  boost::asio::io_context ioc;
  std::string body;
  std::exception_ptr failure;
  boost::asio::co_spawn(ioc, delivery::http_get(url, file_timeout, file_limit),
                        [&](std::exception_ptr e, std::string b) {
                          failure = e;
                          body = std::move(b);
                        });
  ioc.run();
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const delivery::http_status_error& e) {
      if (e.status == 404) return std::nullopt;
      throw;
    }
  }
  return body;
}

void run_audit(const audit_options& options) {
  auto base = parse_url(options.url);
  if (!base) {
    fmt::print(stderr, "foyer audit: {} is not an http:// or https:// URL\n", options.url);
    throw CLI::RuntimeError(2);
  }
  audit::pins pins;
  if (!options.vkey.empty()) pins.vkey = options.vkey;
  pins.witnesses = options.witnesses;
  if (options.quorum != 0) pins.quorum = options.quorum;
  auto report = audit::audit_draw(options.room, pins, [&](const std::string& path) { return fetch(*base, path); });

  fmt::print("Audit of room {} at {}\n", options.room, options.url);
  for (const auto& c : report.checks) {
    auto label = c.status == audit::state::fail ? "FAIL" : audit::to_string(c.status);
    fmt::print("{:<6}  {}{}: {}\n", label, c.name, c.lane.empty() ? "" : " [lane " + c.lane + "]", c.detail);
  }
  auto failed = report.count(audit::state::fail);
  auto absent = report.count(audit::state::absent);
  // Only what passed counts as passed: an absent guarantee is named, never counted in.
  fmt::print("\n{}: {} of {} checks passed, {} failed, {} absent\n",
             failed > 0 ? "FAIL" : absent > 0 ? "INCOMPLETE" : "PASS", report.count(audit::state::pass),
             report.checks.size(), failed, absent);
  if (failed > 0) throw CLI::RuntimeError(1);
  if (absent > 0) throw CLI::RuntimeError(3);
}

}  // namespace

void add_audit_command(CLI::App& app) {
  auto options = std::make_shared<audit_options>();
  auto* cmd = app.add_subcommand("audit", "Check a whole draw from what a Foyer server publishes (docs/fairness.md).");
  cmd->add_option("url", options->url, "The server's base URL, e.g. https://queue.example.com")->required();
  cmd->add_option("room", options->room, "The room whose draw to check")->required();
  cmd->add_option("--vkey", options->vkey,
                  "The ledger's note vkey, from a source you trust (default: the one the server publishes, "
                  "reported as absent)");
  cmd->add_option("--witness", options->witnesses,
                  "A witness's cosignature vkey to pin, from a source you trust; repeatable (default: the "
                  "witnesses the server lists, reported as absent)");
  auto* quorum = cmd->add_option("--quorum", options->quorum,
                                 "How many pinned witnesses must cosign (default: all of them)");
  quorum->needs(cmd->get_option("--witness"))->check(CLI::PositiveNumber);
  cmd->callback([options] {
    if (options->quorum > options->witnesses.size()) {
      fmt::print(stderr, "foyer audit: --quorum {} is more than the {} pinned witnesses\n", options->quorum,
                 options->witnesses.size());
      throw CLI::RuntimeError(2);
    }
    run_audit(*options);
  });
}

}  // namespace foyer::app
