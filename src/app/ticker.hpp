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
  // Five steps per visitor of the fastest room: a visitor due is admitted at most a
  // fifth of a visitor late, so the frontier stays within one of rate × time. A step
  // that admits nobody writes nothing. Within these bounds.
  static constexpr int steps_per_visitor = 5;
  static constexpr std::chrono::milliseconds min_period{10};
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
