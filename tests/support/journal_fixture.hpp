#pragma once
// A journal on an in-memory store with a manual clock; restart() rebuilds the
// journal from what the store made durable, as a process restart would.

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <foyer/clock.hpp>

#include "core/rooms/journal.hpp"
#include "core/rooms/reconcile.hpp"
#include "support/memory_store.hpp"

namespace foyer::test {

struct journal_fixture {
  static constexpr std::int64_t start_ms = 1'800'000'000'000;

  std::deque<std::function<void()>> queue;
  memory_store store{[this](std::function<void()> f) { queue.push_back(std::move(f)); }};
  manual_clock clock{start_ms};
  std::vector<room_config> configs;
  std::unique_ptr<journal> rooms;

  // Runs the oldest completion the store posted, as the event loop would.
  void complete_one() {
    auto f = std::move(queue.front());
    queue.pop_front();
    f();
  }

  void drain() {
    while (!queue.empty()) complete_one();
  }

  // Commits the events in one write and returns what applying the last gave (the
  // error if it failed).
  std::pair<std::error_code, join_outcome> commit(std::vector<event> events) {
    std::pair<std::error_code, join_outcome> result;
    bool done = false;
    rooms->submit(std::move(events), [&](std::error_code ec, const join_outcome& o) {
      result = {ec, o};
      done = true;
    });
    drain();
    REQUIRE(done);
    return result;
  }
  std::pair<std::error_code, join_outcome> commit(event e) { return commit(std::vector<event>{std::move(e)}); }

  // Reconciles `declared` as a start or a reload would; the problem if it is refused.
  std::optional<field_problem> reconcile(const std::vector<room_config>& declared) {
    auto planned = plan_reconcile(*rooms, declared, clock.steady_ms());
    if (auto* refused = std::get_if<field_problem>(&planned)) return *refused;
    const auto& plan = std::get<reconcile_plan>(planned);
    if (plan.empty()) return std::nullopt;
    auto seed = [this] {
      digest d{};
      d[0] = static_cast<std::uint8_t>(++seeds_drawn);
      return d;
    };
    REQUIRE_FALSE(commit(reconcile_events(plan, clock.steady_ms(), seed)).first);
    return std::nullopt;
  }
  std::uint8_t seeds_drawn = 0;

  void start(std::vector<room_config> rooms_config) {
    configs = std::move(rooms_config);
    restart();
    REQUIRE_FALSE(reconcile(configs));
  }

  // Completions still queued belong to the journal being replaced: they run first.
  void restart(journal_options options = journal_options{1000}) {
    drain();
    rooms = std::make_unique<journal>(store, options);
    rooms->recover(store.recover());
  }

  join_outcome join(const std::string& room_id, std::uint8_t tag = 0) {
    visitor_joined e;
    e.room = room_id;
    e.visitor[0] = tag;
    e.entrant[0] = tag;
    e.entrant[1] = static_cast<std::uint8_t>(rooms->find(room_id)->joined());
    e.entrant[2] = static_cast<std::uint8_t>(rooms->find(room_id)->joined() >> 8);
    e.at_ms = clock.now_ms();
    auto [ec, outcome] = commit(e);
    REQUIRE_FALSE(ec);
    return outcome;
  }

  // Runs one ticker step now, as the app's ticker would.
  bool tick(const std::string& room_id) {
    auto due = rooms->find(room_id)->due(clock.steady_ms());
    if (!due) return false;
    REQUIRE_FALSE(commit(*due).first);
    return true;
  }
};

inline room_config test_room(std::string id, std::uint32_t rate) {
  room_config c;
  c.id = std::move(id);
  c.name = c.id;
  c.rate_per_minute = rate;
  c.target_url = "/welcome";
  return c;
}

}  // namespace foyer::test
