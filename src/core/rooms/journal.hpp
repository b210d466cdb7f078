#pragma once
// The rooms and the log that makes them durable. Every change is an event that is
// first made durable by the store, then applied, in log order, so that the state
// in memory is always exactly the replay of the durable log.
//
// Single-threaded: every member runs on the event loop, and so do the handlers.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <foyer/store.hpp>

#include "core/base/loop_affinity.hpp"
#include "core/base/ring_queue.hpp"
#include "core/base/unique_function.hpp"
#include "core/rooms/applied_effect.hpp"
#include "core/rooms/room.hpp"

namespace foyer {

struct journal_options {
  std::uint64_t snapshot_every = 100'000;  // Default: a snapshot every 100,000 events
};

class journal {
 public:
  // Move-only: a join's coroutine hands its own completion handler over, with no copy.
  using applied_handler = unique_function<void(std::error_code ec, const join_outcome& outcome)>;
  // `effect`: what applying the event did, and the room it left (core/rooms/applied_effect.hpp).
  using applied_observer = std::function<void(std::uint64_t seq, const event& e, const applied_effect& effect)>;

  journal(event_store& store, journal_options options = {});

  // Rebuilds the rooms from a recovered log. A log written before configuration was
  // history has no room_configured: such a room takes its settings from `legacy`, the
  // file as it is now, until the first reconciliation records them. Throws
  // std::runtime_error naming what could not be decoded: a server must not start on
  // state it cannot read. The side records replay makes again are written at once, ahead
  // of any read (the store may not be started yet: the write waits in its queue).
  void recover(const recovered_log& log, const std::vector<room_config>& legacy = {});

  // Cluster mode, on a standby: applies the events of one entry of the cluster's log,
  // which the store already holds with `written`, the side records the leader wrote with
  // them. Replay makes those side records again: the ones `written` holds are dropped,
  // and the others (the leader's write of them may come in a later entry, or never) wait
  // for lead(). Throws std::runtime_error as recover() does.
  void follow(const std::vector<std::string>& events, const std::vector<side_record>& written);
  // The standby leads: the side records its replay made that no entry carried are
  // written, as after recover().
  void lead();

  // Makes the events durable in one write, applies them in order, then calls `done`
  // with the last one's outcome (ec set: none is durable, none applied). A change that
  // stops an open room or changes its settings is written together with the room's
  // frontier at its time (room::checkpoint), so that no change undoes any admission
  // and a new rate counts from that moment on.
  void submit(std::vector<event> events, applied_handler done);
  void submit(event e, applied_handler done);

  room* find(std::string_view id);
  const room* find(std::string_view id) const;
  const std::map<std::string, room, std::less<>>& rooms() const { return rooms_; }
  // Ids of removed rooms: never used again.
  bool retired(std::string_view id) const { return retired_.contains(id); }
  // The room whose holds the site may confirm or ask about at `now`: a live room, or a
  // removed room with seats until late_grace_seconds after its removal, its held holds
  // then refund_required (seat_ledger::retire). Replay keeps the same ones.
  const room* find_for_holds(std::string_view id, std::int64_t now_ms) const;
  // The seats the visitor's account may still hold and have confirmed in `r`: its event's
  // max_seats_per_account less what the account holds, waits for and confirmed in the
  // event's other rooms (seat_ledger::seats_of). None without a cap or an account.
  // Derived from the rooms' ledgers alone, so that replay decides the same.
  std::optional<std::uint64_t> account_seats(const room& r, const id16& visitor) const;
  // A change of the room's settings is being written: the next one waits for it, so that
  // each is checked against the settings it replaces.
  bool configuring(std::string_view id) const { return configuring_.contains(id); }
  std::uint64_t applied_seq() const { return applied_seq_; }
  // `observer` sees each event submitted from now on, with its seq, in log order, right
  // after it is applied (recover() replays without it): what leaves the process (event
  // sinks) follows the log without ever holding up a submit.
  void on_applied(applied_observer observer) { observer_ = std::move(observer); }
  // The deployment's public ledger of draws (core/fairness/ledger.hpp), appended to as
  // the events that make its entries apply.
  const ledger::log& public_ledger() const { return ledger_; }
  // From now on, lobbies close awaiting the witnesses' cosignatures (lobby_closed).
  void require_witnesses(bool required) { witnesses_required_ = required; }

  // The latest room clock in the log: a restart's clock never runs behind it.
  std::int64_t latest_ms() const;

  // Keys of the side records that hold a lobby's tree, for inclusion proofs.
  static std::string lobby_node_key(std::string_view room, unsigned level, std::uint64_t index);
  static std::string lobby_leaf_key(std::string_view room, std::uint64_t index);
  // The side record of what the hold event at `seq` did, for the audit trail: written
  // right after it is applied, and again by a replay that finds it missing.
  static std::string hold_outcome_key(std::string_view room, std::uint64_t seq);
  static std::optional<hold_outcome> read_hold_outcome(const std::optional<std::string>& value);

 private:
  struct applied {
    join_outcome join;
    std::optional<hold_outcome> hold;
    std::vector<std::uint64_t> admitted;  // visitors_admitted: per lane
  };
  // A submit whose write is in flight.
  struct in_flight {
    std::vector<event> written;            // the events, with the frontiers written before them
    std::vector<std::string> held;         // rooms whose frontier is held meanwhile
    std::vector<std::string> configuring;  // rooms whose settings it changes
    std::vector<side_record> side;         // the side records it carries
    applied_handler done;
  };
  // Applies the oldest submit in flight once its write has completed.
  void finish_submit(std::error_code ec, std::uint64_t seq);
  room_config config_for(std::string_view id) const;
  room* holds_room(std::string_view id, std::int64_t now_ms);
  // A room removed with seats is kept (retired) for its late grace, then forgotten.
  void retire(std::map<std::string, room, std::less<>>::iterator it, std::int64_t at_ms);
  void forget_retired(std::int64_t now_ms);
  room& decode_room(std::map<std::string, room, std::less<>>& into, const std::string& id, const std::string& state);
  applied apply(const event& e, std::uint64_t seq);
  // Applies events read from the log, after applied_seq_.
  void replay(const std::vector<std::string>& events);
  // Appends the ledger entries the event made: the draw's commit, close, witnesses, reveal.
  struct draw_progress {
    std::optional<commit_terms> committed;
    bool closed = false;
    bool drawn = false;
    bool witnessed_commit = false;
    bool witnessed_close = false;
    std::size_t draw_lanes = 0;
  };
  static draw_progress progress_of(const room& r);
  static std::vector<std::uint64_t> served_by_lane(const room& r);
  void record_draw(const draw_progress& before, const room& r, const event& e);
  // Writes the side records waiting, without an event.
  void write_side();
  // The frontier to write before `e`, if `e` may stop an open room, change its rate or
  // lower the seats it admits for.
  std::optional<visitors_admitted> frontier_before(const event& e) const;
  void snapshot();
  void requeue(const std::vector<side_record>& side);
  std::string encode_snapshot() const;
  void decode_snapshot(const std::string& bytes);

  event_store& store_;
  journal_options options_;
  loop_affinity loop_;
  std::map<std::string, room, std::less<>> rooms_;
  std::map<std::string, room_config, std::less<>> legacy_;
  std::set<std::string, std::less<>> retired_;
  // Removed rooms with seats, and until when each answers about its holds: bounded by
  // the rooms removed within one late grace.
  std::map<std::string, room, std::less<>> retired_seats_;
  std::map<std::string, std::int64_t, std::less<>> retired_until_;
  std::multiset<std::string, std::less<>> configuring_;
  std::uint64_t applied_seq_ = 0;
  std::uint64_t since_snapshot_ = 0;
  std::vector<side_record> pending_side_;
  ring_queue<in_flight> in_flight_;
  // Bumped whenever side records fail to be written, so that a snapshot never
  // covers events whose side records are not durable.
  std::uint64_t side_failures_ = 0;
  bool snapshot_in_flight_ = false;
  applied_observer observer_;
  ledger::log ledger_;
  bool witnesses_required_ = false;
};

}  // namespace foyer
