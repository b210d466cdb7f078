#pragma once
// One waiting room: its configuration and the state derived from its events.
// Single-threaded: owned by the event loop.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rooms/event.hpp"
#include "core/fairness/lottery.hpp"
#include "core/fairness/merkle.hpp"

namespace foyer {

struct room_config {
  std::string id;                      // [a-z0-9_-]{1,64}; part of every URL and ticket
  std::string name;                    // Default: the id
  std::uint32_t rate_per_minute = 60;  // Default: 60 visitors admitted per minute
  std::uint32_t pass_ttl_seconds = 900;  // Default: a pass is valid for 15 minutes
  std::string target_url;              // where admitted visitors are sent
  std::optional<std::int64_t> opens_at_ms;  // Default: none, FIFO from the start
  std::uint32_t lobby_window_seconds = 0;   // Default: 0, the lobby closes at opens_at
  std::string beacon_rule;             // Default: empty, no beacon; else the public rule text
  std::optional<std::uint64_t> stock;  // Default: unlimited; items on sale, for honest odds
  std::string logo_url;                // Default: none; branding for the waiting room
  std::string accent_colour;           // Default: none; a CSS colour
};

struct join_outcome {
  std::optional<std::uint64_t> place;        // known at once outside the lobby
  std::optional<std::uint64_t> lobby_index;  // lobby joins: the leaf index
};

class room {
 public:
  room(room_config config, const room_created& created);

  const room_config& config() const { return config_; }
  // Config can change between runs; the schedule only matters until the lobby closed.
  void reconfigure(room_config config) { config_ = std::move(config); }

  // Applying events, in log order. A lobby join appends the perfect subtrees it
  // completed to `completed` so that they can be stored for inclusion proofs.
  join_outcome apply(const visitor_joined& e, std::vector<merkle::stored_node>& completed);
  void apply(const visitors_admitted& e);
  void apply(const lobby_closed& e);
  void apply(const beacon_supplied& e);
  void apply(const state_changed& e);

  // What the ticker should make durable at `now`, if anything.
  std::optional<event> due(std::int64_t now_ms) const;
  // The frontier at `now` as a durable step, for the ticker and for a change that
  // stops admission. Not clamped to the joined: applying it does, counting the joins
  // logged before it that were not yet durable when it was decided.
  visitors_admitted checkpoint(std::int64_t now_ms) const;

  // While a change that stops admission is being made durable, the frontier stays
  // where that change leaves it, so that nothing visitors saw admitted is taken back.
  void hold_admission(std::int64_t at_ms);
  void release_admission();

  room_state state() const { return state_; }
  bool accepts_joins() const;
  // Whether an operator may move the room to `target` now.
  bool allows(room_state target) const;
  // Admission is rate × time, so the frontier at `now` is arithmetic on the last
  // durable step: exact between steps, however long a step takes to become durable.
  // A restart's catch-up admits exactly this, so no crash takes any of it back.
  std::uint64_t served(std::int64_t now_ms) const;
  std::uint64_t joined() const { return joined_; }
  std::uint64_t lobby_size() const { return lobby_.size(); }
  bool lobby_open() const { return state_ == room_state::lobby; }
  std::optional<std::int64_t> lobby_closes_at_ms() const;
  std::int64_t created_at_ms() const { return created_at_ms_; }
  std::optional<std::int64_t> closed_at_ms() const { return closed_at_ms_; }
  std::optional<std::int64_t> opened_at_ms() const { return opened_at_ms_; }

  const digest& commitment() const { return commitment_; }
  // Known once the lobby closed.
  std::optional<digest> lobby_root() const { return lobby_root_; }
  const std::optional<std::string>& beacon() const { return beacon_; }
  bool needs_beacon() const { return !config_.beacon_rule.empty(); }
  // Revealed only once the draw happened (lobby closed durably, beacon in if required).
  std::optional<digest> revealed_seed() const;
  // π(lobby_index) once drawn.
  std::optional<std::uint64_t> place_of(std::uint64_t lobby_index) const;

  std::string encode_state() const;
  // Restores what encode_state wrote; false if the bytes are not a valid state.
  bool decode_state(std::string_view bytes);

 private:
  void draw(std::int64_t at_ms);
  void derive_permutation();

  room_config config_;
  digest seed_;
  digest commitment_;
  std::int64_t created_at_ms_;
  room_state state_;
  std::uint64_t joined_ = 0;
  std::uint64_t served_ = 0;
  std::int64_t tick_ms_;
  std::uint64_t carry_ = 0;
  merkle::frontier lobby_;
  std::optional<std::int64_t> closed_at_ms_;
  std::optional<std::int64_t> opened_at_ms_;
  std::optional<digest> lobby_root_;
  std::optional<std::string> beacon_;
  std::optional<lottery::permutation> permutation_;
  // Not state: only while a change that stops admission is in flight.
  std::uint32_t holds_ = 0;
  std::int64_t hold_ms_ = 0;
};

}  // namespace foyer
