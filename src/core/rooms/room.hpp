#pragma once
// One waiting room: its configuration and the state derived from its events.
// Single-threaded: owned by the event loop.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/gate/resume_book.hpp"
#include "core/gate/ticket.hpp"
#include "core/rooms/lane_queues.hpp"
#include "core/rooms/event.hpp"
#include "core/inventory/seat_ledger.hpp"
#include "core/rooms/room_spec.hpp"
#include "core/rooms/stock.hpp"
#include "core/fairness/ledger.hpp"
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

// What a lottery room's draw is committed to, as its ledger commit entry says: fixed
// while nobody joined (the schedule may still move), then for good.
struct commit_terms {
  ledger::beacon_kind beacon = ledger::beacon_kind::none;
  std::uint64_t round = 0;  // drand_quicknet: the first round at or after the close + margin
  std::int64_t closes_at_ms = 0;
  friend bool operator==(const commit_terms&, const commit_terms&) = default;
};

// One lane's opening draw: a lottery room draws each lane on its own, with its own seed
// (committed before anyone could enter the lane's lobby), lobby and places. The general
// lane's draw is the room's, as in a room without lanes.
struct lane_draw {
  lane_draw() = default;
  explicit lane_draw(const digest& lane_seed) : seed(lane_seed), commitment(lottery::commitment(lane_seed)) {}

  digest seed{};
  digest commitment{};
  merkle::frontier lobby;
  std::optional<digest> root;  // once the lobby closed
  std::optional<digest> key;   // once drawn
  std::optional<lottery::permutation> permutation;
};

// A lane's seed: the room's for the general lane, else derived from it and the lane's id,
// so that revealing one lane's seed reveals no other's.
digest lane_seed(const digest& room_seed, std::string_view lane);

// The beacon rule that names drand quicknet; any other non-empty rule is a value the
// operator supplies.
inline constexpr std::string_view drand_quicknet_rule = "drand-quicknet";
// The drand round fixed at commit time is the first at least this long after the close,
// so that the close is witnessed before anyone can know the round.
inline constexpr std::int64_t beacon_margin_ms = 30'000;

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
  std::optional<field_problem> refuses(const room_config& next, std::int64_t now_ms) const;
  // Why `next` may not have these seats: fewer on a leg than held and confirmed there,
  // or other legs while any are. A change is checked again when it applies: seats it
  // would not fit then are kept (apply(room_configured)).
  std::optional<field_problem> refuses_seats(const room_config& next, std::int64_t now_ms) const;

  // Applying events, in log order. A lobby join appends the perfect subtrees it
  // completed to `completed` so that they can be stored for inclusion proofs.
  join_outcome apply(const visitor_joined& e, std::vector<merkle::stored_node>& completed);
  void apply(const visitors_admitted& e);
  void apply(const lobby_closed& e);
  void apply(const beacon_supplied& e);
  void apply(const draw_witnessed& e);
  void apply(const state_changed& e);
  // Schedule settings that may no longer change (see refuses) keep their value, and so
  // do seats that would not fit what is held and confirmed (see refuses_seats).
  void apply(const room_configured& e);
  void apply(const pass_claimed& e);
  void apply(const passes_done& e);
  // Remaining stock at 0 sells the room out; stock released reopens a room that stock
  // (not the operator) sold out.
  void apply(const stock_reported& e);
  void apply(const rate_changed& e);
  // Holds on the seats: a placement takes over the visitor's pass slot (their seats
  // count from then); no seats available and none held sells the room out, seats
  // coming back reopen a room the seats (not the operator) sold out. Each returns what
  // it did (seat_ledger::apply).
  // `account_seats`: what the visitor's account may still hold here (hold_terms).
  hold_outcome apply(const hold_placed& e, std::optional<std::uint64_t> account_seats = std::nullopt);
  hold_outcome apply(const hold_extended& e);
  hold_outcome apply(const hold_confirmed& e, std::optional<std::uint64_t> account_seats = std::nullopt);
  hold_outcome apply(const hold_released& e);
  hold_outcome apply(const holds_expired& e);
  // The room is removed: its seat ledger answers confirmations and lookups a while
  // longer, every hold still held to be refunded (seat_ledger::retire).
  void retire(std::int64_t at_ms) { seats_.retire(at_ms); }
  // The operator's recount of the seats (seat_ledger::recount).
  void apply(const seats_recounted& e);
  // Access codes, for the lanes that take them (code_book); a batch for a lane that
  // takes no codes adds nothing.
  void apply(const codes_added& e);
  void apply(const codes_revoked& e) { codes_.apply(e); }
  void apply(const resume_link_changed& e) { resume_.set(e.visitor, e.link); }
  void apply(const turn_notified& e) { lanes_.notified(e.place, e.at_ms, claim_window_ms()); }

  // What the ticker should make durable at `now`, if anything.
  std::optional<event> due(std::int64_t now_ms) const;
  // The holds whose time passed by `now`, for the ticker to expire at every step, the
  // first after a restart included: no lost timer strands seats.
  std::optional<holds_expired> expired_holds(std::int64_t now_ms) const;
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
  // A restart's catch-up admits exactly this, so no crash takes any of it back. It
  // never passes the joined, nor max_active passes beyond those that ended.
  std::uint64_t served(std::int64_t now_ms) const;
  // The frontier as the last durable step left it.
  std::uint64_t durable_served() const { return served_; }
  // The rate admitted now, and the adaptive controller's base rate it starts from.
  std::uint32_t rate() const { return rate_; }
  std::uint32_t base_rate() const { return base_rate_; }
  // Why admission goes at the pace it does at `now`.
  std::string_view rate_reason_at(std::int64_t now_ms) const;
  // While admission waits for places to free up ("held_by_seats", "held_by_max_active"):
  // then nobody knows when the queue moves again.
  std::optional<std::string_view> held_at(std::int64_t now_ms) const;
  // The seats promised to admitted visitors at `now`: each admitted visitor whose slot is
  // not free (no hold yet, no pass ended) may still hold one, and seats_cap keeps one
  // for each. None in a room without seats.
  std::optional<std::uint64_t> seats_promised(std::int64_t now_ms) const;

  // Passes: claimed by a status answer, live until they expire or the site reports
  // them done. An admitted visitor who does not claim within the window has lapsed.
  std::optional<std::int64_t> pass_live_until(std::uint64_t place, std::int64_t now_ms) const {
    return lanes_.live_until(place, now_ms);
  }
  bool pass_claimed_once(std::uint64_t place) const { return lanes_.claimed(place); }
  // The site reported the visitor's pass done: it is refused until it expires.
  bool pass_done(std::uint64_t place) const { return lanes_.reported_done(place); }
  // Claimed, not reported done and not expired at `now`, whether or not a hold took its slot.
  bool pass_usable(std::uint64_t place, std::int64_t now_ms) const { return lanes_.usable(place, now_ms); }
  bool lapsed(std::uint64_t place, std::int64_t now_ms) const {
    return lanes_.lapsed(place, now_ms, claim_window_ms());
  }
  // Whether an admitted visitor may still claim their pass (and "it's your turn" still
  // helps): not claimed before, not lapsed.
  bool claimable(std::uint64_t place, std::int64_t now_ms) const {
    return !pass_claimed_once(place) && !lapsed(place, now_ms);
  }
  // The visitor's "it's your turn" was accepted by the push service or relay at `now`: the
  // event that starts their claim window then. None when it would change nothing: told
  // before, claimed or lapsed.
  std::optional<turn_notified> turn_notice(std::uint64_t place, std::int64_t now_ms) const;
  // Told "it's your turn" (turn_notified applied), and not judged yet.
  bool told(std::uint64_t place) const { return lanes_.told(place); }
  std::optional<std::uint64_t> place_of_pass(const id16& pass) const { return lanes_.place_of_pass(pass); }
  std::uint64_t active(std::int64_t now_ms) const { return lanes_.active(now_ms); }
  std::uint64_t claimed() const { return lanes_.claimed_total(); }
  std::uint64_t no_shows() const { return lanes_.no_shows(); }
  std::optional<double> claim_ratio() const { return lanes_.claim_ratio(); }
  // The lanes: the general one first (lane 0), then the others as they were first declared.
  const lane_queues& lanes() const { return lanes_; }
  const code_book& codes() const { return codes_; }
  // The visitors' live resume links (core/gate/resume_link.hpp).
  const resume_book& resume_links() const { return resume_; }
  // The jtis of the invites used in this room, until they expire.
  const invite::jti_book& invites() const { return invites_; }
  // Whether `lane` takes visitors by `entry` now.
  bool lane_takes(std::string_view lane, lane_entry entry) const;
  // What a join with `code` by `account` would do: its lane, if the code is good for it.
  code_decision check_code(const digest& code, const id16& account) const;
  // In a room with lanes, a lane's frontier moves at the ticker's durable steps, once
  // a second, where the split between lanes is decided; in a room without, it is the
  // room's, exact at any moment (served).
  std::uint64_t served_in_lane(std::uint8_t lane, std::int64_t now_ms) const;
  // The rate the lane is admitted at now: its share of the room's.
  std::uint32_t lane_rate(std::uint8_t lane) const;
  std::optional<std::uint64_t> stock_remaining() const { return stock_.remaining(); }
  const stock_receipt* stock_receipt_of(std::string_view key) const { return stock_.receipt(key); }
  const seat_ledger& seats() const { return seats_; }
  std::uint64_t joined() const { return joined_; }
  // The entry an account's join got, if it joined.
  const joined_entry* account_entry(const id16& account) const;
  // The account a visitor joined with, if any.
  std::optional<id16> account_of(const id16& visitor) const;
  // What a hold by the visitor at `place` (none: not known) is held to: its lane's hold
  // time and seats per pass where the lane sets them, else the room's. Needs seats.
  hold_terms hold_terms_for(std::optional<std::uint64_t> place, std::optional<std::uint64_t> account_seats) const;
  // The lanes that draw at the opening: those declared before the lobby closed (lanes
  // [0, draw_lanes())). A room without an opening has the general lane's, never drawn.
  std::size_t draw_lanes() const { return draws_.size(); }
  // The lane as the public record names its draw: "" for the general lane's, the room's own.
  std::string_view ledger_lane(std::uint8_t lane) const { return lane == 0 ? std::string_view() : lanes_.at(lane).config.id; }
  std::uint64_t lobby_size(std::uint8_t lane = 0) const { return draws_[lane].lobby.size(); }
  bool lobby_open() const { return state_ == room_state::lobby; }
  std::optional<std::int64_t> lobby_closes_at_ms() const;
  std::int64_t created_at_ms() const { return created_at_ms_; }
  // The room's own clock: the time of its last durable step.
  std::int64_t tick_ms() const { return tick_ms_; }
  std::optional<std::int64_t> closed_at_ms() const { return closed_at_ms_; }
  std::optional<std::int64_t> opened_at_ms() const { return opened_at_ms_; }

  const digest& commitment(std::uint8_t lane = 0) const { return draws_[lane].commitment; }
  // Known once the lobby closed.
  const std::optional<digest>& lobby_root(std::uint8_t lane = 0) const { return draws_[lane].root; }
  const std::optional<std::string>& beacon() const { return beacon_; }
  // What stands behind the beacon beside its shape (none until it is in).
  drand::beacon_check beacon_check() const { return beacon_check_; }
  // The origins of the two relays that agreed on the drand round (empty unless two_relays).
  const std::vector<std::string>& beacon_relays() const { return beacon_relays_; }
  bool needs_beacon() const { return !config_.beacon_rule.empty(); }
  ledger::beacon_kind beacon_kind() const;
  // The terms the ledger recorded last for this lottery (none for a room without one).
  const std::optional<commit_terms>& committed() const { return committed_; }
  // The draw waits for the witnesses (lobby_closed::awaits_witnesses) and they have
  // not both cosigned yet.
  bool awaiting_witnesses() const { return awaits_witnesses_ && !(witnessed_commit_ && witnessed_close_); }
  bool witnessed(ledger::stage stage) const {
    return stage == ledger::stage::commit ? witnessed_commit_ : witnessed_close_;
  }
  // The lane's lottery key, once the draw happened.
  const std::optional<digest>& lottery_key(std::uint8_t lane = 0) const { return draws_[lane].key; }
  // SHA-256 of every place of the lane's lobby in lobby order (ledger::places_hash), once drawn.
  digest places_hash(std::uint8_t lane = 0) const;
  // The lane's seed, revealed only once the draw happened (lobby closed durably, beacon
  // in if required).
  std::optional<digest> revealed_seed(std::uint8_t lane = 0) const;
  // The place drawn for a lobby index (the lane in its top byte, as places have), once drawn.
  std::optional<std::uint64_t> place_of(std::uint64_t lobby_index) const;
  // Whether this room's log gave the place, or for a lobby ticket the lobby index, the
  // ticket names: a log restored from an older copy (an etcd snapshot, a node's log/ from
  // a file system snapshot) keeps its mark but lacks what was given after the copy, and
  // would give it again. Every ticket-taking path asks this (ticket_lost_in_restore).
  bool gave(const ticket& t) const;

  std::string encode_state() const;
  // Restores what encode_state wrote; false if the bytes are not a valid state.
  bool decode_state(std::string_view bytes);

 private:
  void draw(std::int64_t at_ms);
  // Draws if everything the draw waits for is in: the close, the beacon, the witnesses.
  void draw_when_ready(std::int64_t at_ms);
  // Fixes the commit terms from the settings, while nobody joined.
  void commit();
  void derive_permutations();
  // A lane declared while the lobby is open gets its draw; a room that is no lobby (yet)
  // has only the general lane's.
  void follow_draws();
  // Nobody joined and no lobby closed: the schedule may still change at will.
  bool untouched() const;
  std::int64_t claim_window_ms() const { return std::int64_t{config_.claim_window_seconds} * 1000; }
  // How many may be admitted at `now` under max_active and the seats, if either is set.
  std::optional<std::uint64_t> admission_cap(std::int64_t now_ms) const;
  std::optional<std::uint64_t> max_active_cap(std::int64_t now_ms) const;
  std::optional<std::uint64_t> seats_cap(std::int64_t now_ms) const;
  // The frontier at `now`, before the joined and max_active bound it.
  std::uint64_t unbounded_frontier(std::int64_t now_ms) const;
  // The start rate from the settings: the configured rate, inside the adaptive bounds.
  void reset_rate();
  void resume_admission(room_state state, std::int64_t at_ms);
  // Sells out or reopens the room as the stock and the seats say.
  void follow_supply(std::int64_t at_ms);
  template <class E>
  hold_outcome apply_and_follow(const E& e);

  room_config config_;
  room_owner owner_ = room_owner::file;
  room_config declared_;
  bool configured_ = false;  // a room_configured was applied (logs from before it have none)
  std::int64_t created_at_ms_;
  room_state state_;
  std::uint64_t joined_ = 0;
  std::uint64_t served_ = 0;
  std::int64_t tick_ms_;
  std::uint64_t carry_ = 0;
  std::vector<lane_draw> draws_;  // the general lane's first
  std::optional<std::int64_t> closed_at_ms_;
  std::optional<std::int64_t> opened_at_ms_;
  std::optional<std::string> beacon_;
  drand::beacon_check beacon_check_ = drand::beacon_check::none;
  std::vector<std::string> beacon_relays_;
  std::optional<commit_terms> committed_;
  bool awaits_witnesses_ = false;
  bool witnessed_commit_ = false;
  bool witnessed_close_ = false;
  std::unordered_map<id16, joined_entry, id16_hash> accounts_;
  // accounts_ the other way round, for the event's max_seats_per_account: not encoded.
  std::unordered_map<id16, id16, id16_hash> visitor_accounts_;
  lane_queues lanes_;
  code_book codes_;
  invite::jti_book invites_;
  resume_book resume_;
  stock_ledger stock_;
  seat_ledger seats_;
  std::uint32_t base_rate_ = 0;
  std::uint32_t rate_ = 0;
  rate_reason rate_reason_ = rate_reason::configured;
  // Sold out because the stock or the seats ran out, from this state: stock or seats
  // coming back return to it.
  std::optional<room_state> sold_out_by_supply_from_;
  // Not state: only while a change that stops admission is in flight.
  std::uint32_t holds_ = 0;
  std::int64_t hold_ms_ = 0;
};

}  // namespace foyer
