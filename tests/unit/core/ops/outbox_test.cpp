#include <catch2/catch.hpp>

#include "core/ops/outbox.hpp"

using namespace foyer;
using std::chrono::milliseconds;

namespace {

envelope numbered(int i) { return {std::to_string(i), "dev.foyer.room.joins", "{}"}; }

std::vector<std::string> ids(const outbox::batch& b) {
  std::vector<std::string> out;
  for (const auto& e : b.entries) out.push_back(e.id);
  return out;
}

}  // namespace

TEST_CASE("a full outbox drops the oldest and counts it") {
  outbox box(3);
  for (int i = 1; i <= 5; ++i) box.push(numbered(i));
  CHECK(ids(box.peek(10)) == std::vector<std::string>{"3", "4", "5"});
  auto s = box.stats("w");
  CHECK(s.name == "w");
  CHECK(s.queued == 3);
  CHECK(s.dropped_total == 2);
  CHECK(s.delivered_total == 0);
}

TEST_CASE("entries leave only once delivered, in order, a batch at a time") {
  outbox box(10);
  for (int i = 1; i <= 5; ++i) box.push(numbered(i));
  auto first = box.peek(2);
  CHECK(ids(first) == std::vector<std::string>{"1", "2"});
  box.failed();
  CHECK(ids(box.peek(2)) == std::vector<std::string>{"1", "2"});  // a failure keeps them
  box.delivered(first.last);
  CHECK(ids(box.peek(10)) == std::vector<std::string>{"3", "4", "5"});
  auto s = box.stats("w");
  CHECK(s.delivered_total == 2);
  CHECK(s.failed_total == 1);
  CHECK(s.queued == 3);
}

TEST_CASE("an entry dropped while its attempt is under way counts dropped, not delivered") {
  outbox box(2);
  box.push(numbered(1));
  box.push(numbered(2));
  auto attempt = box.peek(1);  // "1" is being sent
  box.push(numbered(3));       // "1" is dropped meanwhile
  box.delivered(attempt.last);
  CHECK(ids(box.peek(10)) == std::vector<std::string>{"2", "3"});  // "2" was not in the attempt
  auto s = box.stats("w");
  CHECK(s.delivered_total == 0);
  CHECK(s.dropped_total == 1);
}

TEST_CASE("retries back off exponentially with full jitter, never beyond the bound") {
  const milliseconds base{100};
  const milliseconds max{30'000};
  CHECK(retry_delay(0, base, max, 0) == milliseconds(0));
  // The largest random value reaches the cap of its attempt exactly: base * 2^attempt.
  CHECK(retry_delay(0, base, max, 100) == milliseconds(100));
  CHECK(retry_delay(3, base, max, 800) == milliseconds(800));
  CHECK(retry_delay(3, base, max, 801) == milliseconds(0));
  for (unsigned attempt : {0u, 1u, 5u, 9u, 10u, 63u, 64u, 1'000u}) {
    for (std::uint64_t r : {std::uint64_t{0}, std::uint64_t{12'345}, std::uint64_t{29'999}, ~std::uint64_t{0}}) {
      auto d = retry_delay(attempt, base, max, r);
      CHECK(d >= milliseconds(0));
      CHECK(d <= std::min(max, base * (std::int64_t{1} << std::min(attempt, 20u))));
    }
  }
  CHECK(retry_delay(1'000, base, max, 30'000) == max);
}
