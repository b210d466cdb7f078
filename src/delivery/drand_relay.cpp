#include "delivery/drand_relay.hpp"

#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/co_spawn.hpp>
#include <fmt/core.h>

#include <exception>
#include <stdexcept>

#include "delivery/http_get.hpp"

namespace foyer::delivery {
namespace {

// The relay's URL with the round's path below its own ("https://relay.example/drand" asks
// /drand/<chain hash>/public/<round>).
http_url round_url(http_url relay, std::uint64_t round) {
  if (relay.target.ends_with('/')) relay.target.pop_back();
  relay.target += drand::relay_path(round);
  return relay;
}

std::string describe(const http_url& url) {
  return fmt::format("{}://{}{}", url.tls ? "https" : "http", url.authority, url.target);
}

net::awaitable<drand_fetch> ask(std::vector<http_url> relays, std::uint64_t round, std::chrono::milliseconds timeout) {
  drand_fetch fetch;
  for (const auto& relay : relays) {
    auto url = round_url(relay, round);
    std::string body;
    auto& answer = fetch.answers.emplace_back();
    try {
      body = co_await http_get(url, timeout, drand_answer_limit);
    } catch (const std::runtime_error& e) {
      fetch.problems.emplace_back(e.what());
      continue;
    }
    auto parsed = drand::parse_answer(body, round);
    if (auto* error = std::get_if<drand::answer_error>(&parsed)) {
      fetch.problems.push_back(fmt::format("{}: answered {}", describe(url), drand::to_string(*error)));
      continue;
    }
    answer = std::get<drand::round_value>(parsed);
    if (drand::decide_beacon(fetch.answers).check == drand::beacon_check::two_relays) break;
  }
  co_return fetch;
}

}  // namespace

void fetch_drand_round(boost::asio::io_context& ioc, std::vector<http_url> relays, std::uint64_t round,
                       std::chrono::milliseconds timeout, std::function<void(drand_fetch)> done) {
  net::co_spawn(ioc, ask(std::move(relays), round, timeout),
                [done = std::move(done)](std::exception_ptr failure, drand_fetch fetch) {
                  if (failure) fetch.problems.emplace_back("the drand fetch failed unexpectedly");
                  done(std::move(fetch));
                });
}

}  // namespace foyer::delivery
