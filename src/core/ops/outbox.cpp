#include "core/ops/outbox.hpp"

#include <algorithm>
#include <cassert>

namespace foyer {

outbox::outbox(std::size_t capacity) : capacity_(capacity) { assert(capacity > 0); }

void outbox::push(envelope e) {
  if (entries_.size() == capacity_) {
    entries_.pop_front();
    ++front_;
    ++dropped_total_;
  }
  entries_.push_back(std::move(e));
}

outbox::batch outbox::peek(std::size_t max) const {
  batch b;
  auto n = std::min(max, entries_.size());
  b.entries.assign(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n));
  b.last = front_ + n - 1;
  return b;
}

void outbox::delivered(std::uint64_t last) {
  while (!entries_.empty() && front_ <= last) {
    entries_.pop_front();
    ++front_;
    ++delivered_total_;
  }
}

sink_stats outbox::stats(std::string name) const {
  return {std::move(name), entries_.size(), delivered_total_, dropped_total_, failed_total_};
}

std::chrono::milliseconds retry_delay(unsigned attempt, std::chrono::milliseconds base, std::chrono::milliseconds max,
                                      std::uint64_t random) {
  // Doubling stops at the cap, before the shift could overflow.
  auto cap = base.count();
  for (unsigned i = 0; i < attempt && cap < max.count(); ++i) cap *= 2;
  cap = std::min(cap, max.count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(random % (static_cast<std::uint64_t>(cap) + 1)));
}

}  // namespace foyer
