// The queue of the journal's writes in flight: first in, first out across its wrap and
// its growth, an item's resources freed when it leaves, and its array kept once grown.
#include <catch2/catch.hpp>

#include <memory>

#include "core/base/ring_queue.hpp"

using foyer::ring_queue;

TEST_CASE("a ring_queue gives its items back in order across its wrap and its growth") {
  ring_queue<int> q;
  CHECK(q.empty());
  int next_in = 0;
  int next_out = 0;
  // Three in, two out, again and again: the front moves round the array as it grows.
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 3; ++i) q.emplace_back() = next_in++;
    for (int i = 0; i < 2; ++i) {
      CHECK(q.front() == next_out++);
      q.pop_front();
    }
  }
  CHECK(q.size() == 20);
  while (!q.empty()) {
    CHECK(q.front() == next_out++);
    q.pop_front();
  }
  CHECK(next_out == 60);
}

TEST_CASE("a ring_queue frees an item's resources when it leaves, and reuses its slots once grown") {
  ring_queue<std::shared_ptr<int>> q;
  auto shared = std::make_shared<int>(7);
  for (int i = 0; i < 8; ++i) q.emplace_back() = shared;
  CHECK(shared.use_count() == 9);
  const auto* first_slot = &q.front();
  for (int i = 0; i < 8; ++i) q.pop_front();
  CHECK(shared.use_count() == 1);
  // As many again fit in the array it has: no slot moved.
  for (int i = 0; i < 8; ++i) q.emplace_back() = shared;
  for (int i = 0; i < 8; ++i) {
    CHECK(q.front() != nullptr);
    q.pop_front();
  }
  q.emplace_back() = shared;
  CHECK(&q.front() >= first_slot);
  CHECK(&q.front() < first_slot + 8);
  // A made slot starts empty, even where an item was before.
  CHECK(*q.front() == 7);
  q.pop_front();
  CHECK(q.emplace_back() == nullptr);
}
