#pragma once
// The rooms and the log that makes them durable. Every change is an event that is
// first made durable by the store, then applied, in log order, so that the state
// in memory is always exactly the replay of the durable log.
//
// Single-threaded: every member runs on the event loop, and so do the handlers.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include <foyer/store.hpp>

#include "core/rooms/room.hpp"

namespace foyer {

struct journal_options {
  std::uint64_t snapshot_every = 100'000;  // Default: a snapshot every 100,000 events
};

// What a join made with an account hint left behind, to give the same entry back.
struct joined_entry {
  id16 visitor{};
  id16 entrant{};
  std::int64_t at_ms = 0;
  join_outcome outcome;

  std::string encode() const;
  static std::optional<joined_entry> decode(std::string_view bytes);
};

class journal {
 public:
  using applied_handler = std::function<void(std::error_code ec, const join_outcome& outcome)>;

  journal(event_store& store, journal_options options = {});

  // Rebuilds the rooms from a recovered log. Rooms in the log but not in `configured`
  // keep their state but are not listed. Throws std::runtime_error naming what could
  // not be decoded: a server must not start on state it cannot read.
  void recover(const recovered_log& log, const std::vector<room_config>& configured);

  // Configured rooms the log has never seen: each needs a durable room_created.
  std::vector<room_config> missing_rooms() const;

  // Makes `e` durable, applies it, then calls `done` (ec set: not durable, not applied).
  // A state change of an open room is written together with the room's frontier at
  // its time (room::checkpoint), so that stopping admission never undoes any.
  void submit(event e, applied_handler done);

  room* find(std::string_view id);
  const room* find(std::string_view id) const;
  const std::map<std::string, room, std::less<>>& rooms() const { return rooms_; }
  std::uint64_t applied_seq() const { return applied_seq_; }

  // Keys of the side records that hold a lobby's tree, for inclusion proofs.
  static std::string lobby_node_key(std::string_view room, unsigned level, std::uint64_t index);
  static std::string lobby_leaf_key(std::string_view room, std::uint64_t index);
  // The side record of a join made with an account hint: the joined_entry below.
  static std::string account_key(std::string_view room, const id16& account);

 private:
  room_config config_for(std::string_view id) const;
  join_outcome apply(const event& e);
  void snapshot();
  void flush_side_records();
  void requeue(const std::vector<side_record>& side);
  std::string encode_snapshot() const;
  void decode_snapshot(const std::string& bytes);

  event_store& store_;
  journal_options options_;
  std::map<std::string, room, std::less<>> rooms_;
  std::map<std::string, room_config, std::less<>> configured_;
  std::uint64_t applied_seq_ = 0;
  std::uint64_t since_snapshot_ = 0;
  std::vector<side_record> pending_side_;
  // Bumped whenever side records fail to be written, so that a snapshot never
  // covers events whose side records are not durable.
  std::uint64_t side_failures_ = 0;
  bool snapshot_in_flight_ = false;
};

}  // namespace foyer
