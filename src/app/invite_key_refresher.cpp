#include "app/invite_key_refresher.hpp"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fmt/core.h>

#include "app/log.hpp"
#include "delivery/http_get.hpp"

namespace foyer::app {

namespace net = boost::asio;

invite_key_refresher::invite_key_refresher(net::io_context& ioc, const clock& clock, http_url url,
                                           invite::site_keys& keys)
    : ioc_(ioc), clock_(clock), url_(std::move(url)), keys_(keys), timer_(ioc) {
  // A missed kid may make the next fetch due sooner: the wait is worked out again.
  keys_.on_key_missed([this] { timer_.cancel(); });
}

void invite_key_refresher::start() {
  net::co_spawn(ioc_, loop(), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);  // a bug, not the network: let it end the process
  });
}

void invite_key_refresher::stop() {
  stopped_ = true;
  timer_.cancel();
}

net::awaitable<void> invite_key_refresher::loop() {
  while (!stopped_) {
    auto wait = keys_.next_fetch_ms() - clock_.steady_ms();
    if (wait > 0) {
      timer_.expires_after(std::chrono::milliseconds(wait));
      boost::system::error_code ec;
      co_await timer_.async_wait(net::redirect_error(net::use_awaitable, ec));  // cancelled: look again
      continue;
    }
    co_await fetch();
  }
}

net::awaitable<void> invite_key_refresher::fetch() {
  auto where = fmt::format("{}://{}{}", url_.tls ? "https" : "http", url_.authority, url_.target);
  keys_.fetch_started(clock_.steady_ms());
  invite::fetch_outcome outcome = invite::fetch_outcome::invalid;
  std::optional<std::string> problem;
  try {
    auto answer = co_await delivery::http_get_answer(url_, fetch_timeout, invite::max_jwks_bytes);
    problem = keys_.answered(answer.body, answer.cache_control, clock_.steady_ms());
    if (problem) *problem = fmt::format("{}: {}", where, *problem);
  } catch (const std::runtime_error& e) {
    outcome = invite::fetch_outcome::failed;
    problem = e.what();
    keys_.failed(clock_.steady_ms());
  }
  if (!problem) {
    if (keys_.changed() || failing_) {
      log::info(fmt::format("invite keys: {} key(s) in use, from {}", keys_.keys()->size(), where),
                {{"keys", keys_.keys()->size()}});
    }
    failing_ = false;
    co_return;
  }
  failing_ = true;
  if (auto held = throttle_.occur(invite::to_string(outcome), clock_.steady_ms())) {
    auto kept = keys_.keys() ? "keeping the keys in use" : "invites are answered 503 until a fetch is good";
    log::warn(fmt::format("invite keys: {}; {}", *problem, kept),
              {{"outcome", std::string(invite::to_string(outcome))}, {"repeated", *held}});
  }
}

void invite_key_refresher::collect(ops::metrics_writer& w) const {
  w.family("foyer_invite_keys_fetches_total", "counter", "Fetches of the site's invite keys, by outcome.");
  for (auto outcome : {invite::fetch_outcome::ok, invite::fetch_outcome::failed, invite::fetch_outcome::invalid}) {
    w.sample("foyer_invite_keys_fetches_total", {{"outcome", invite::to_string(outcome)}},
             keys_.fetches()[static_cast<std::size_t>(outcome)]);
  }
  w.family("foyer_invite_keys", "gauge", "Invite keys in use (0 until the first good fetch).");
  w.sample("foyer_invite_keys", {}, std::uint64_t{keys_.keys() ? keys_.keys()->size() : 0});
}

}  // namespace foyer::app
