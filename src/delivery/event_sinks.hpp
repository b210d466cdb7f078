#pragma once
// The [[sinks]] of a server: follows the journal's applied events, turns them into
// CloudEvents envelopes (core/ops/cloud_event.hpp) and queues each for every sink whose
// `events` patterns take its type. A journal without sinks is not followed at all.
//
// Single-threaded: every member runs on the event loop.

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <foyer/clock.hpp>

#include "core/ops/cloud_event.hpp"
#include "core/ops/metrics.hpp"
#include "core/ops/outbox.hpp"
#include "core/rooms/journal.hpp"
#include "delivery/sink.hpp"

namespace foyer::delivery {

class event_sinks {
 public:
  // `source` is the CloudEvents source of every envelope. Opens the file sinks; throws
  // std::runtime_error naming the [[sinks]] table whose file cannot be opened.
  event_sinks(net::io_context& ioc, const clock& clock, std::string source, const std::vector<sink_config>& configs);

  // Feeds the sinks from what `rooms` applies from now on.
  void follow(journal& rooms);
  // SIGHUP: file sinks reopen their files.
  void reopen();
  void stop();
  // Each sink's counters, in the order of the [[sinks]] tables.
  std::vector<sink_stats> stats() const;
  // The same as Prometheus metrics: foyer_sink_queued{sink} and its counters.
  void collect(ops::metrics_writer& w) const;

 private:
  void emit(const envelope& e);
  void schedule_flush();

  const clock& clock_;
  std::vector<std::unique_ptr<sink>> sinks_;
  cloud_events events_;
  net::steady_timer flush_timer_;  // sends the join counts of seconds that are over
  bool stopped_ = false;
};

}  // namespace foyer::delivery
