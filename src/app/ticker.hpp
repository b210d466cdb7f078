#pragma once
// Drives the rooms' clocks: closes lobbies on schedule and admits visitors by elapsed
// time. Each room has at most one step in flight, and a step's clock is committed
// only once it is durable (the journal applies it then).

#include <chrono>
#include <functional>
#include <set>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>

#include "core/journal.hpp"

namespace foyer::app {

class ticker {
 public:
  // A step at least as often as the fastest room admits one visitor, so the frontier
  // never trails rate × time by more than one; within these bounds.
  static constexpr std::chrono::milliseconds min_period{20};
  static constexpr std::chrono::milliseconds max_period{250};
  static std::chrono::milliseconds period_for(std::uint32_t fastest_rate_per_minute);

  ticker(boost::asio::io_context& ioc, journal& rooms, const clock& clock, std::chrono::milliseconds period);
  // Runs a first step at once (after a restart: the catch-up, within the elapsed cap)
  // and calls `caught_up` when it is durable, then keeps stepping.
  void start(std::function<void()> caught_up);
  void stop();

 private:
  void schedule();
  void step(std::function<void()> done);

  boost::asio::steady_timer timer_;
  journal& rooms_;
  const clock& clock_;
  std::chrono::milliseconds period_;
  std::set<std::string, std::less<>> in_flight_;
  bool stopped_ = false;
};

}  // namespace foyer::app
