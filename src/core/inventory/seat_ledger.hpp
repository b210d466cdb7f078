#pragma once
// A room's seats and the holds on them: the seat ledger, rebuilt from the log alone.
// With legs (inventory.legs: stations in order), every leg has its own seats and a hold
// takes seats on each leg between its stations, all or nothing; without, the route is
// one leg. The invariant, confirmed + held + available == total on every leg, is
// checked after every applied change and after recovery; a violation freezes the ledger
// (it refuses every hold request, never guesses) until the operator looks. The
// Idempotency-Keys of the requests and the one-live-hold-per-visitor rule are decided
// from its indexes, kept at least as long as the longest hold and its late grace.
//
// With a waitlist (inventory.waitlist), a placement that finds too few seats while some
// are held on its legs (they may come back) waits in line instead of being refused, and
// while anyone waits every new placement waits behind them: seats that come back go to
// the head of the line as soon as its seats fit, strictly in order, on apply.
//
// Single-threaded: owned by its room, on the event loop.

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/base/codec.hpp"
#include "core/base/field_problem.hpp"
#include "core/base/ids.hpp"
#include "core/inventory/hold_events.hpp"
#include "core/inventory/inventory_settings.hpp"

namespace foyer {

// `waitlisted`: in line for seats, holding none; it becomes held, or lapses (expired).
enum class hold_state : std::uint8_t { held, confirmed, released, expired, refund_required, waitlisted };
std::string_view to_string(hold_state state);

// Why a confirmation ended in a refund.
// `room_removed`: the room was removed (forced) while the hold held seats, or before a late success.
// late_success_over_limit: seats free, but the pass or account has held or confirmed its
// max_seats_per_pass or max_seats_per_account meanwhile.
enum class refund_reason : std::uint8_t {
  none,
  late_success_no_seat,
  late_success_after_grace,
  room_removed,
  late_success_over_limit,
};
std::string_view to_string(refund_reason reason);

// Legs [from, to) of the route, by index; without legs the route is the one leg [0, 1).
struct leg_span {
  std::uint32_t from = 0;
  std::uint32_t to = 1;
  bool operator==(const leg_span&) const = default;
};

// The legs between two stations as a hold request names them (none without legs), or
// which of them is wrong and why.
std::variant<leg_span, field_problem> route_of(const inventory_settings& settings, const std::optional<std::string>& from,
                                               const std::optional<std::string>& to);

// One leg's seats: confirmed + held + available == total.
struct leg_seats {
  std::uint64_t total = 0;
  std::uint64_t available = 0;
  std::uint64_t held = 0;
  std::uint64_t confirmed = 0;
  bool operator==(const leg_seats&) const = default;
};

// The seats as the holds make them: each leg's held and confirmed counted from the holds
// and available the rest of its total. `fits`: no leg holds more than its total, and no
// hold is on a leg the room no longer has.
struct seat_recount {
  std::vector<leg_seats> legs;
  std::uint64_t held = 0;
  std::uint64_t confirmed = 0;
  bool fits = true;
};

struct hold {
  id16 visitor{};
  std::uint32_t seats = 0;
  hold_state state = hold_state::held;
  std::int64_t expires_ms = 0;  // while waitlisted: when its place in line lapses
  bool extended = false;
  std::int64_t ended_ms = 0;  // when it was released, expired or refunded
  refund_reason reason = refund_reason::none;
  leg_span legs{};
  // How long it holds seats once it holds them (hold_terms); 0: the room's hold_seconds
  // (ledgers from before lanes had their own).
  std::uint32_t hold_seconds = 0;
};

enum class hold_action : std::uint8_t { place, extend, confirm, release };

// What a request did, kept under its key so that a retry gets the same answer: the hold
// as the request left it, or, if `outcome` is a refusal, why nothing was done.
struct hold_receipt {
  hold_action action = hold_action::place;
  id16 hold{};
  id16 visitor{};  // who asked, for a placement
  std::uint32_t seats = 0;
  hold_state state = hold_state::held;
  std::int64_t expires_ms = 0;
  refund_reason reason = refund_reason::none;
  std::int64_t at_ms = 0;
  hold_outcome outcome = hold_outcome::placed;
  leg_span legs{};  // a placement's, as its request named them
  std::uint32_t waitlist_position = 0;  // a placement that was waitlisted: its place in line then, from 1
};

// Whether the outcome refused the request (nothing done), as opposed to answering it.
bool refused(hold_outcome outcome);

class seat_ledger {
 public:
  // The inventory setting changed (or went away: nullopt). The totals move, and what is
  // available with them; a total below what is held and confirmed on a leg freezes the
  // ledger, and so do other legs while seats are held or confirmed (room::refuses).
  // Seats it adds go to the waitlist first, at `at_ms`.
  void retotal(const std::optional<inventory_settings>& settings, std::int64_t at_ms);
  // The room is removed at `at_ms`: each held hold ends refund_required (room_removed),
  // each place in line lapses, and from then a confirmation of a hold that ended is a
  // refund too. Confirmed holds stay, so that the site's retries get their confirmation.
  void retire(std::int64_t at_ms);
  bool retired() const { return retired_; }
  // Holds released or expired whose late grace has not passed at `now_ms`: a confirm may
  // still take their seats again.
  std::uint64_t late_confirmable(std::int64_t now_ms) const;
  // The operator's way back from a frozen ledger: the counts become the recount and the
  // ledger is unfrozen; nothing changes (false) if the recount does not fit.
  bool recount(std::int64_t at_ms);
  seat_recount recounted() const;
  // Not frozen, and the counts are the recount's: a recount would change nothing.
  bool counted_right() const;

  // Each request is answered under its key, refusals included (a retry gets the same):
  // only a repeated key, a frozen ledger and a room without seats record nothing.
  // `pass_usable`: the pass it was asked with is still accepted when it applies (not
  // reported done, its claim known); else it places nothing (pass_ended). `terms`: its
  // hold time and the caps it is checked against (room::hold_terms_for).
  hold_outcome apply(const hold_placed& e, bool pass_usable, const hold_terms& terms);
  hold_outcome apply(const hold_extended& e);
  // `terms`: the pass's and account's limits as the log applies it, which a late success
  // keeps like a new hold.
  hold_outcome apply(const hold_confirmed& e, const hold_terms& terms);
  hold_outcome apply(const hold_released& e);
  hold_outcome apply(const holds_expired& e);

  bool enabled() const { return settings_.has_value(); }
  const std::optional<inventory_settings>& settings() const { return settings_; }
  // The setting.
  std::uint64_t total() const { return total_; }
  // Seats free end to end: the least available on any leg.
  std::uint64_t available() const;
  // Seats free on every leg of `legs`.
  std::uint64_t available(leg_span legs) const;
  // Whether `seats` are available on every leg of `legs`, counting those that `replaced`
  // (the visitor's earlier hold, if it goes) gives back on its own legs.
  bool fits(leg_span legs, std::uint32_t seats, const hold* replaced) const;
  // The most seats available on any one leg.
  std::uint64_t most_available() const;
  // Seats in held and in confirmed holds.
  std::uint64_t held() const { return held_; }
  std::uint64_t confirmed() const { return confirmed_; }
  // Each leg's seats, in route order (one without legs).
  const std::vector<leg_seats>& legs() const { return legs_; }
  // The invariant failed once: every hold request is refused.
  bool frozen() const { return frozen_; }
  // No seat on any leg and nothing that may come back: the room is sold out.
  bool sold_out() const { return enabled() && most_available() == 0 && held_ == 0; }
  // What a placement of `seats` on `legs` would get now: placed, waitlisted or sold_out
  // (`replaced`: the visitor's earlier hold or place in line, which it would replace).
  hold_outcome placement(leg_span legs, std::uint32_t seats, const id16* replaced) const;
  // Seats the line waits for: not for admission to count on.
  std::uint64_t owed() const { return owed_; }
  std::size_t waiting() const { return waitlist_.size(); }
  // The hold's place in line, from 1, while it is waitlisted.
  std::optional<std::uint32_t> waitlist_position(const id16& hold_id) const;

  const hold* find(const id16& hold_id) const;
  // Seats the visitor's confirmed holds took, which max_seats_per_pass counts with a new hold.
  std::uint64_t confirmed_of(const id16& visitor) const;
  // Seats the visitor holds, waits for or confirmed: what max_seats_per_account counts in
  // this room (a live hold past its time counts until the sweep ends it).
  std::uint64_t seats_of(const id16& visitor) const;
  // Whether the visitor holds, waits for or confirmed seats: their pass placed holds.
  bool knows(const id16& visitor) const { return live_by_visitor_.contains(visitor) || confirmed_of(visitor) > 0; }
  // The visitor's hold in state held or waitlisted, if any (it may be past its expiry,
  // not swept yet): one live hold per visitor, a place in line included.
  std::optional<id16> live_hold_of(const id16& visitor) const;
  const hold_receipt* receipt(std::string_view key) const;
  // The last `count` holds that expired, newest first, for the console.
  std::vector<std::pair<id16, const hold*>> recent_expiries(std::size_t count) const;
  // The held holds whose time passed by `now`, for the ticker's sweep.
  std::vector<id16> due(std::int64_t now_ms) const;

  // The ledger's own format byte first, so that it changes without the room's.
  void encode(writer& w) const;
  // Restores what encode wrote, under the room's `settings`, and checks the invariant
  // against the settings and the holds themselves (a failure freezes, it is readable).
  // `versioned`: the bytes start with the ledger's format (room states of format 5 on);
  // before, they are format 1, whose receipts were all answers.
  bool decode(reader& r, const std::optional<inventory_settings>& settings, bool versioned);

 private:
  // Why a request is not decided at all: no seats, a frozen ledger, a repeated key.
  // Otherwise prunes what is older than the retention at `at_ms`.
  std::optional<hold_outcome> unanswered(std::string_view key, std::int64_t at_ms);
  hold_outcome place(const hold_placed& e, leg_span legs, const hold_terms& terms);
  std::int64_t hold_ms(const hold& h) const {
    return std::int64_t{h.hold_seconds ? h.hold_seconds : settings_->hold_seconds} * 1000;
  }
  // Records the answer under `key`, as `h` (if known) stands now, and checks the counts.
  hold_outcome answer(std::string_view key, hold_action action, const id16& hold_id, const hold* h,
                      hold_outcome outcome, std::int64_t at_ms);
  void record(std::string_view key, hold_receipt receipt);
  // A held hold ends: its seats are available again. A waitlisted one leaves the line.
  void end(const id16& hold_id, hold& h, hold_state state, std::int64_t at_ms);
  // Seats that came back go to the head of the line while its seats fit; a room sold out
  // (nothing available, nothing held) empties the line.
  void serve_waitlist(std::int64_t at_ms);
  void start_holding(const id16& hold_id, hold& h, std::int64_t at_ms);
  // Moves a hold's seats on each of its legs: `from` loses them, `to` gains them.
  void move(const hold& h, std::uint64_t leg_seats::*from, std::uint64_t leg_seats::*to);
  void prune(std::int64_t now_ms);
  // confirmed + held + available == total on every leg, or freeze.
  void check();

  std::optional<inventory_settings> settings_;
  std::uint64_t total_ = 0;
  std::vector<leg_seats> legs_;
  std::uint64_t held_ = 0;
  std::uint64_t confirmed_ = 0;
  bool frozen_ = false;
  bool retired_ = false;  // not encoded: the journal retires the ledgers of removed rooms again on decode
  std::unordered_map<id16, hold, id16_hash> holds_;
  std::deque<id16> waitlist_;  // head first
  std::uint64_t owed_ = 0;     // seats of the waitlisted
  std::unordered_map<id16, id16, id16_hash> live_by_visitor_;
  // Confirmed holds are never pruned: this is bounded by the seats.
  std::unordered_map<id16, std::uint64_t, id16_hash> confirmed_by_visitor_;
  std::set<std::pair<std::int64_t, id16>> live_by_expiry_;
  std::deque<std::pair<std::int64_t, id16>> ended_;  // (ended, hold), oldest first
  std::unordered_map<id16, hold_receipt, id16_hash> receipts_;  // by digest of the key
  std::deque<std::pair<std::int64_t, id16>> key_order_;          // (at, key digest), oldest first
  // The longest hold time a placement asked for (a lane's may be longer than the room's):
  // keys and ended holds are kept that much longer.
  std::uint32_t longest_hold_seconds_ = 0;
};

}  // namespace foyer
