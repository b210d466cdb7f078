#pragma once
// The public ledger's dealings with the outside world, off every visitor's path: each new
// ledger checkpoint goes to the witnesses (tlog-witness), and what their quorum cosigned is
// recorded for the draws waiting on it (draw_witnessed); a drand room whose round is out
// gets it from the relays (beacon_supplied). Decided in core/rooms/draw_steps; this class
// only asks, waits and writes. A step runs every quarter second on the loop.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>

#include "app/config.hpp"
#include "app/log.hpp"
#include "core/fairness/ledger_publisher.hpp"
#include "core/rooms/journal.hpp"
#include "delivery/witness_client.hpp"

namespace foyer::app {

class ledger_service {
 public:
  static constexpr std::chrono::milliseconds period{250};
  // A relay that had no good answer is asked again after this.
  static constexpr std::int64_t beacon_retry_ms = 3'000;
  // Witnesses short of the quorum are asked again after this, with the same checkpoint.
  static constexpr std::int64_t witness_retry_ms = 2'000;

  ledger_service(boost::asio::io_context& ioc, journal& rooms, ledger::publisher& publisher, const clock& clock,
                 const ledger_settings& settings);
  void start();
  void stop();

 private:
  void schedule();
  void step();
  void submit_checkpoint();
  void record(const delivery::witness_round& round);
  void write_witnessed();
  void fetch_beacons();

  boost::asio::io_context& ioc_;
  boost::asio::steady_timer timer_;
  journal& rooms_;
  ledger::publisher& publisher_;
  const clock& clock_;
  std::vector<http_url> relays_;
  std::unique_ptr<delivery::witness_client> witnesses_;  // none without witnesses listed
  std::uint64_t submitted_size_ = 0;
  bool submitting_ = false;
  std::int64_t resubmit_at_ms_ = 0;  // short of the quorum: when to ask again
  // The newest checkpoint the quorum cosigned, as the witnesses' lines came back.
  std::uint64_t quorum_size_ = 0;
  std::string quorum_note_;
  std::set<std::string, std::less<>> writing_;       // rooms with a draw event in flight
  std::map<std::string, std::int64_t, std::less<>> beacon_next_try_;  // rooms fetching or waiting to retry
  log::repeated_errors failures_{60'000};
  bool stopped_ = false;
};

}  // namespace foyer::app
