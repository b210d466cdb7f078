#pragma once
// A first-in, first-out queue over one array that it keeps. std::deque frees a block as
// its front empties and allocates one as its back fills: for a queue always in use (the
// journal's writes in flight) that is an allocation every few items.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace foyer {

template <class T>
class ring_queue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return slots_[head_]; }

  // A default-made item at the back, to fill in place.
  T& emplace_back() {
    if (size_ == slots_.size()) grow();
    T& slot = slots_[(head_ + size_) % slots_.size()];
    ++size_;
    return slot;
  }

  void pop_front() {
    // What the item holds is freed now, not when its slot is taken again.
    slots_[head_] = T{};
    head_ = (head_ + 1) % slots_.size();
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(std::max<std::size_t>(4, slots_.size() * 2));
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace foyer
