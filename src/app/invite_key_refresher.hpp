#pragma once
// Fetches the site's invite keys from [invites] jwks_url and keeps them fresh: at start, at
// each refresh, after a failure with back-off, and soon after a token named a kid the set
// does not have (core/lanes/site_keys decides when). Each fetch is a GET through the
// delivery layer (delivery/http_get): https, or plain http to a loopback or private address
// only, no redirect followed, a deadline and a body of at most invite::max_jwks_bytes. The
// join path never waits on it: until a fetch is good, invites are answered 503.
//
// Single-threaded: every member runs on the event loop.

#include <chrono>
#include <cstdint>
#include <utility>  // boost/asio/awaitable.hpp uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>

#include "core/base/url.hpp"
#include "core/lanes/site_keys.hpp"
#include "core/ops/log_throttle.hpp"
#include "core/ops/metrics.hpp"

namespace foyer::app {

class invite_key_refresher {
 public:
  static constexpr std::chrono::milliseconds fetch_timeout{5'000};
  // A site that stays down is one log line per this, with how many failures it stands for.
  static constexpr std::int64_t log_interval_ms = 300'000;

  // `keys` was made by site_keys::fetched and outlives this.
  invite_key_refresher(boost::asio::io_context& ioc, const clock& clock, http_url url, invite::site_keys& keys);
  ~invite_key_refresher() { keys_.on_key_missed({}); }
  invite_key_refresher(const invite_key_refresher&) = delete;
  invite_key_refresher& operator=(const invite_key_refresher&) = delete;
  void start();
  // Stops after the fetch under way, if any (its deadline bounds the wait).
  void stop();
  // foyer_invite_keys_fetches_total{outcome} and foyer_invite_keys (the keys in use).
  void collect(ops::metrics_writer& w) const;

 private:
  boost::asio::awaitable<void> loop();
  boost::asio::awaitable<void> fetch();

  boost::asio::io_context& ioc_;
  const clock& clock_;
  http_url url_;
  invite::site_keys& keys_;
  boost::asio::steady_timer timer_;
  ops::log_throttle throttle_{log_interval_ms};
  bool failing_ = false;  // the last fetch was not good
  bool stopped_ = false;
};

}  // namespace foyer::app
