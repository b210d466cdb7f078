#pragma once
// A sink's bounded buffer of envelopes waiting for delivery, and its counters.
//
// When it is full the oldest envelope is dropped and counted: a receiver that is down
// costs the oldest news, never memory without bound or the visitors' time. Entries stay
// queued while a delivery attempt copies them out, and leave only once it succeeded; an
// entry dropped meanwhile is counted dropped, not delivered.
//
// Pure and single-threaded: the event loop owns it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/ops/cloud_event.hpp"

namespace foyer {

struct sink_stats {
  std::string name;
  std::size_t queued = 0;
  std::uint64_t delivered_total = 0;
  std::uint64_t dropped_total = 0;
  std::uint64_t failed_total = 0;  // delivery attempts that failed
};

class outbox {
 public:
  explicit outbox(std::size_t capacity);

  void push(envelope e);
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }

  // The oldest entries, at most `max`, copied for one attempt; `last` numbers the last.
  struct batch {
    std::vector<envelope> entries;
    std::uint64_t last = 0;
  };
  batch peek(std::size_t max) const;
  // The attempt that took entries up to `last` succeeded.
  void delivered(std::uint64_t last);
  void failed() { ++failed_total_; }

  // The counters, named `name`.
  sink_stats stats(std::string name) const;

 private:
  std::size_t capacity_;
  std::deque<envelope> entries_;
  std::uint64_t front_ = 0;  // the number of entries_.front(): every push takes the next
  std::uint64_t delivered_total_ = 0;
  std::uint64_t dropped_total_ = 0;
  std::uint64_t failed_total_ = 0;
};

// The wait before retry number `attempt` (0 for the first retry): "full jitter", uniform
// in [0, min(max, base * 2^attempt)] from `random`, so that many failing senders do not
// retry in step, and never longer than `max`.
std::chrono::milliseconds retry_delay(unsigned attempt, std::chrono::milliseconds base, std::chrono::milliseconds max,
                                      std::uint64_t random);

}  // namespace foyer
