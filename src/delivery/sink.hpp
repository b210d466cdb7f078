#pragma once
// An event sink: a bounded buffer of envelopes and the loop that delivers them, in order,
// retrying with back-off. Subclasses only say how one attempt is made (webhook_sink,
// file_sink). Nothing here waits: a push queues and returns, so a receiver that is down,
// hangs or refuses costs the visitors nothing.
//
// Single-threaded: every member runs on the event loop.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "core/base/bytes.hpp"
#include "core/base/url.hpp"
#include "core/ops/outbox.hpp"

namespace foyer::delivery {

namespace net = boost::asio;

enum class sink_type { webhook, file };

// One [[sinks]] table, validated (app/config.cpp).
struct sink_config {
  sink_type type = sink_type::webhook;
  std::string name;                 // Default: the type and the table's index, "webhook0"
  std::vector<std::string> events;  // type patterns (type_matches); Default: empty, every type
  std::size_t buffer = 10'000;      // Default: 10,000 envelopes wait, then the oldest are dropped
  std::chrono::milliseconds max_backoff{30'000};  // Default: retries wait 30 s at most
  // webhook
  http_url url;       // http:// only to loopback and private addresses; https:// anywhere
  byte_vector key;    // the key of the "whsec_..." secret
  std::chrono::milliseconds timeout{5'000};  // Default: 5 s to connect, and for each answer
  // file
  std::filesystem::path path;
};

class sink {
 public:
  sink(net::io_context& ioc, const sink_config& c);
  virtual ~sink() = default;
  sink(const sink&) = delete;
  sink& operator=(const sink&) = delete;

  // Whether this sink takes envelopes of `type` (its `events` patterns).
  const std::string& name() const { return name_; }
  bool wants(std::string_view type) const;
  // Queues `e` (dropping the oldest if the buffer is full) and starts delivery if idle.
  void push(envelope e);
  // SIGHUP: reopen what logrotate may have moved. Nothing to do for most sinks.
  virtual void reopen() {}
  // Stops delivering; what is queued stays undelivered.
  virtual void stop();
  sink_stats stats() const { return box_.stats(name_); }

 protected:
  bool stopped() const { return stopped_; }

 private:
  // Envelopes handed to one attempt at most.
  virtual std::size_t batch_size() const = 0;
  // Delivers `entries` in order, then calls `done` on the loop: with an empty string if
  // every one was delivered, else with what went wrong (for the log).
  virtual void attempt(std::vector<envelope> entries, std::function<void(std::string problem)> done) = 0;

  void kick();
  void finished(std::uint64_t last, const std::string& problem);

  std::string name_;
  std::vector<std::string> events_;
  outbox box_;
  net::steady_timer retry_;
  std::chrono::milliseconds max_backoff_;
  unsigned failures_ = 0;  // attempts failed in a row
  bool busy_ = false;      // an attempt, or the back-off after one, is under way
  bool stopped_ = false;
};

}  // namespace foyer::delivery
