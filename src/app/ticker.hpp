#pragma once
// Drives the rooms' clocks: closes lobbies on schedule, makes each open room's rate
// durable when the rate controller moves it, and its frontier about once a second
// (room::due). The single place where admission is decided: the order in which the
// rate, no-shows and max_active compose is in core/rooms/rate_control.hpp. The frontier visitors see does
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
#include "core/rooms/rate_control.hpp"

namespace foyer::app {

class ticker {
 public:
  // How late a lobby may close after its time.
  static constexpr std::chrono::milliseconds period{20};

  ticker(boost::asio::io_context& ioc, journal& rooms, rate_controller& rates, const clock& clock);
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
  rate_controller& rates_;
  const clock& clock_;
  std::set<std::string, std::less<>> in_flight_;
  // A failing step fails again at every tick, 50 times a second per room.
  log::repeated_errors failures_{10'000};
  // Rooms whose seat ledger froze, said once each: refused holds are the operator's to look at.
  std::set<std::string, std::less<>> frozen_said_;
  bool stopped_ = false;
};

}  // namespace foyer::app
