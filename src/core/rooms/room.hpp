#pragma once
// One waiting room: its configuration and the state derived from its events.
// Single-threaded: owned by the event loop.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rooms/event.hpp"
#include "core/rooms/room_spec.hpp"
#include "core/fairness/lottery.hpp"
#include "core/fairness/merkle.hpp"

namespace foyer {

struct join_outcome {
  std::optional<std::uint64_t> place;        // known at once outside the lobby
  std::optional<std::uint64_t> lobby_index;  // lobby joins: the leaf index
  // The room did not take the join: it stopped taking joins, or the account holds an
  // entry already, while the join was being written. Replay refuses it the same way.
  bool refused = false;
};

// What a join made with an account hint left behind, to give the same entry back.
struct joined_entry {
  id16 visitor{};
  id16 entrant{};
  std::int64_t at_ms = 0;
  join_outcome outcome;
};

struct id16_hash {
  std::size_t operator()(const id16& id) const noexcept;
};

class room {
 public:
  room(room_config config, const room_created& created);

  const room_config& config() const { return config_; }
  room_owner owner() const { return owner_; }
  // Whether the log holds this room's settings (logs from before that took them from
  // the file at every start).
  bool configured() const { return configured_; }
  // The file's last declaration of this room, which a reload compares with the file.
  const room_config& declared() const { return declared_; }
  // Why `next` may not replace the configuration now, if it may not: it would change
  // what visitors already hold (their places, the lottery they entered).
  std::optional<field_problem> refuses(const room_config& next) const;

  // Applying events, in log order. A lobby join appends the perfect subtrees it
  // completed to `completed` so that they can be stored for inclusion proofs.
  join_outcome apply(const visitor_joined& e, std::vector<merkle::stored_node>& completed);
  void apply(const visitors_admitted& e);
  void apply(const lobby_closed& e);
  void apply(const beacon_supplied& e);
  void apply(const state_changed& e);
  // Schedule settings that may no longer change (see refuses) keep their value.
  void apply(const room_configured& e);

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
  // The entry an account's join got, if it joined.
  const joined_entry* account_entry(const id16& account) const;
  std::uint64_t lobby_size() const { return lobby_.size(); }
  bool lobby_open() const { return state_ == room_state::lobby; }
  std::optional<std::int64_t> lobby_closes_at_ms() const;
  std::int64_t created_at_ms() const { return created_at_ms_; }
  // The room's own clock: the time of its last durable step.
  std::int64_t tick_ms() const { return tick_ms_; }
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
  // Nobody joined and no lobby closed: the schedule may still change at will.
  bool untouched() const;

  room_config config_;
  room_owner owner_ = room_owner::file;
  room_config declared_;
  bool configured_ = false;  // a room_configured was applied (logs from before it have none)
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
  std::unordered_map<id16, joined_entry, id16_hash> accounts_;
  // Not state: only while a change that stops admission is in flight.
  std::uint32_t holds_ = 0;
  std::int64_t hold_ms_ = 0;
};

}  // namespace foyer
