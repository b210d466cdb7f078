#pragma once
// Drives the rooms' clocks: closes lobbies on schedule and makes each open room's
// frontier durable about once a second (room::due). The frontier visitors see does
// not wait for these steps: it is rate × time from the last durable one. Each room
// has at most one step in flight, applied once it is durable.

#include <chrono>
#include <functional>
#include <set>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>

#include "app/log.hpp"
#include "core/rooms/journal.hpp"

namespace foyer::app {

class ticker {
 public:
  // How late a lobby may close after its time.
  static constexpr std::chrono::milliseconds period{20};

  ticker(boost::asio::io_context& ioc, journal& rooms, const clock& clock);
  // Runs a first step at once (after a restart: an overdue lobby closes, an open room
  // writes a step if one is due) and calls `caught_up` when it is durable, then keeps
  // stepping.
  void start(std::function<void()> caught_up);
  void stop();

 private:
  void schedule();
  void step(std::function<void()> done);

  boost::asio::steady_timer timer_;
  journal& rooms_;
  const clock& clock_;
  std::set<std::string, std::less<>> in_flight_;
  // A failing step fails again at every tick, 50 times a second per room.
  log::repeated_errors failures_{10'000};
  bool stopped_ = false;
};

}  // namespace foyer::app
