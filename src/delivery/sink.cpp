#include "delivery/sink.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace foyer::delivery {
namespace {

// The first retry comes within this, then the wait doubles up to the sink's max_backoff.
constexpr std::chrono::milliseconds first_backoff{100};

}  // namespace

sink::sink(net::io_context& ioc, const sink_config& c)
    : name_(c.name), events_(c.events), box_(c.buffer), retry_(ioc), max_backoff_(c.max_backoff) {}

bool sink::wants(std::string_view type) const {
  return events_.empty() ||
         std::any_of(events_.begin(), events_.end(), [&](const auto& pattern) { return type_matches(pattern, type); });
}

void sink::push(envelope e) {
  box_.push(std::move(e));
  kick();
}

void sink::stop() {
  stopped_ = true;
  retry_.cancel();
}

void sink::kick() {
  if (busy_ || stopped_ || box_.empty()) return;
  busy_ = true;
  auto batch = box_.peek(batch_size());
  attempt(std::move(batch.entries),
          [this, last = batch.last](const std::string& problem) { finished(last, problem); });
}

void sink::finished(std::uint64_t last, const std::string& problem) {
  if (stopped_) return;
  if (problem.empty()) {
    box_.delivered(last);
    if (failures_ > 0) fmt::print(stderr, "foyer: sink '{}': delivering again after {} failed attempts\n", name_, failures_);
    failures_ = 0;
    busy_ = false;
    kick();
    return;
  }
  box_.failed();
  // Once when it starts failing, not once per retry: a receiver down for an hour is one line.
  if (failures_ == 0) fmt::print(stderr, "foyer: sink '{}': {}; retrying with back-off\n", name_, problem);
  retry_.expires_after(retry_delay(failures_, first_backoff, max_backoff_, random_u64()));
  ++failures_;
  retry_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    busy_ = false;
    kick();
  });
}

}  // namespace foyer::delivery
