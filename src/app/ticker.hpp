#pragma once
// Drives the rooms' clocks: closes lobbies on schedule and admits visitors by elapsed
// time. Each room has at most one step in flight, and a step's clock is committed
// only once it is durable (the journal applies it then).

#include <chrono>
#include <set>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>

#include "core/journal.hpp"

namespace foyer::app {

class ticker {
 public:
  // Default: four steps a second, so a visitor is admitted within ~250 ms of their turn.
  static constexpr std::chrono::milliseconds default_period{250};

  ticker(boost::asio::io_context& ioc, journal& rooms, const clock& clock,
         std::chrono::milliseconds period = default_period);
  void start();
  void stop();

 private:
  void schedule();
  void step();

  boost::asio::steady_timer timer_;
  journal& rooms_;
  const clock& clock_;
  std::chrono::milliseconds period_;
  std::set<std::string, std::less<>> in_flight_;
  bool stopped_ = false;
};

}  // namespace foyer::app
