#include "core/rooms/room.hpp"

#include "core/fairness/drand.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/passes/pass_issuer.hpp"
#include "core/rooms/admission.hpp"
#include "core/base/codec.hpp"

namespace foyer {
namespace {

// How often an open room's frontier is made durable. The frontier itself is exact
// at any moment; this bounds how much unused capacity an empty queue keeps (a step
// clamps to the joined) and keeps every step well inside the elapsed cap.
constexpr std::int64_t checkpoint_every_ms = 1'000;

}  // namespace

digest lane_seed(const digest& room_seed, std::string_view lane) {
  if (lane == general_lane) return room_seed;
  sha256_stream hash;
  hash.update(as_bytes(std::string_view("foyer/lane-seed/v1")));
  hash.update(std::array<std::uint8_t, 1>{0});
  hash.update(room_seed);
  hash.update(as_bytes(lane));
  return hash.finish();
}

room::room(room_config config, const room_created& created)
    : config_(std::move(config)),
      declared_(config_),
      created_at_ms_(created.at_ms),
      state_(config_.opens_at_ms ? room_state::lobby : room_state::open),
      tick_ms_(created.at_ms) {
  if (state_ == room_state::open) opened_at_ms_ = created.at_ms;
  draws_.emplace_back(created.seed);
  reset_rate();
  lanes_.follow(config_.lanes);
  follow_draws();
  stock_.retotal(std::nullopt, config_.stock);
  seats_.retotal(config_.inventory, created.at_ms);
}

void room::reset_rate() {
  base_rate_ = config_.rate_per_minute;
  if (const auto& a = config_.adaptive) base_rate_ = std::clamp(base_rate_, a->min_rate_per_minute, a->max_rate_per_minute);
  rate_ = base_rate_;
  rate_reason_ = rate_reason::configured;
}

bool room::untouched() const {
  return joined_ == 0 && !closed_at_ms_ && (state_ == room_state::lobby || state_ == room_state::open);
}

std::optional<field_problem> room::refuses_seats(const room_config& next, std::int64_t now_ms) const {
  auto taken = seats_.held() + seats_.confirmed();
  // A hold that ended may still be paid for (late success): it needs its seats and legs.
  auto late = seats_.late_confirmable(now_ms);
  if ((taken == 0 && late == 0) || !config_.inventory) return std::nullopt;
  auto why = taken > 0 ? fmt::format("while {} seats are held or confirmed", taken)
                       : fmt::format("while {} ended holds may still be confirmed (late_grace_seconds)", late);
  if (!next.inventory) return field_problem{"inventory", fmt::format("cannot be removed {}", why)};
  const auto& now = *config_.inventory;
  const auto& after = *next.inventory;
  if (after.legs != now.legs) return field_problem{"inventory.legs", fmt::format("cannot change {}", why)};
  const auto& legs = seats_.legs();
  for (std::size_t i = 0; i < legs.size(); ++i) {
    auto on_leg = legs[i].held + legs[i].confirmed;
    if (after.leg_total(i) >= on_leg) continue;
    if (after.legs.empty()) return field_problem{"inventory.total", fmt::format("cannot go below the {} seats held and confirmed", on_leg)};
    return field_problem{after.leg_totals.empty() ? "inventory.total" : "inventory.leg_totals",
                         fmt::format("cannot go below the {} seats held and confirmed on leg {}", on_leg, after.leg_name(i))};
  }
  return std::nullopt;
}

std::optional<field_problem> room::refuses(const room_config& next, std::int64_t now_ms) const {
  if (next.id != config_.id) return field_problem{"id", "cannot change: it is part of every ticket and pass"};
  if (auto p = refuses_seats(next, now_ms)) return p;
  if (lanes_.too_many(next.lanes)) {
    return field_problem{"lanes", fmt::format("a room may have had at most {} lanes in its history", max_lane_ids)};
  }
  for (std::size_t i = 1; i < lanes_.size(); ++i) {
    const auto& lane = lanes_.at(static_cast<std::uint8_t>(i));
    bool kept = std::any_of(next.lanes.begin(), next.lanes.end(), [&](const auto& l) { return l.id == lane.config.id; });
    if (lane.declared && !kept && lane.waiting() > 0) {
      return field_problem{"lanes", fmt::format("cannot remove lane '{}' while {} visitors wait in it: give it a share of 0 instead",
                                                lane.config.id, lane.waiting())};
    }
  }
  // Accounts that joined are known by a digest of their scope: another scope would let
  // them join again.
  if (next.event != config_.event && !accounts_.empty()) {
    return field_problem{"event", fmt::format("cannot change once accounts joined ({} joined)", accounts_.size())};
  }
  if (untouched()) return std::nullopt;
  if (next.beacon_rule != config_.beacon_rule) {
    return field_problem{"beacon_rule",
                         fmt::format("cannot change once visitors joined under it ({} joined)", joined_)};
  }
  bool opens_at_moved = next.opens_at_ms != config_.opens_at_ms;
  if (!opens_at_moved && next.lobby_window_seconds == config_.lobby_window_seconds) return std::nullopt;
  std::string field = opens_at_moved ? "opens_at" : "lobby_window_seconds";
  if (state_ == room_state::lobby) {
    if (next.opens_at_ms) return std::nullopt;
    return field_problem{field, fmt::format("cannot be removed while {} visitors wait in the lobby for the draw", joined_)};
  }
  if (closed_at_ms_) return field_problem{field, "cannot change after the lobby closed: the draw is done"};
  if (joined_ == 0) return field_problem{field, fmt::format("cannot change once the room is {}", to_string(state_))};
  if (config_.opens_at_ms) {
    return field_problem{field, fmt::format("cannot change once {} visitors joined the lobby", joined_)};
  }
  return field_problem{field, fmt::format("cannot change once visitors hold places: {} joined first come, first served",
                                          joined_)};
}

void room::apply(const room_configured& e) {
  room_config next = e.config;
  // A change checked against the room before a join was applied: what that join holds
  // stands, so the schedule keeps what refuses() would now keep.
  if (!untouched()) {
    if (state_ != room_state::lobby || !next.opens_at_ms) {
      next.opens_at_ms = config_.opens_at_ms;
      next.lobby_window_seconds = config_.lobby_window_seconds;
    }
    next.beacon_rule = config_.beacon_rule;
  }
  // The seats are decided here, against what the holds applied before it hold: a change
  // checked before holds written meanwhile were applied keeps the seats it would not fit
  // (the caller says so with the numbers), and a file's declaration of them is kept
  // unapplied, so that the next reload tries it again.
  bool seats_kept = refuses_seats(next, e.at_ms).has_value();
  if (seats_kept) next.inventory = config_.inventory;
  bool first = !configured_;
  bool schedule_moved = next.opens_at_ms != config_.opens_at_ms;
  configured_ = true;
  if (first) owner_ = e.source;
  if (e.declared) {
    auto inventory = declared_.inventory;
    declared_ = *e.declared;
    if (seats_kept) declared_.inventory = std::move(inventory);
  }
  room_config before = std::exchange(config_, std::move(next));
  // A new rate or new bounds start from the setting; the compensation for no-shows is
  // measured anew under a new multiplier. Both count from this moment (journal::submit
  // writes the frontier first).
  if (first || before.rate_per_minute != config_.rate_per_minute || before.adaptive != config_.adaptive) {
    reset_rate();
  } else if (before.no_show_max_multiplier != config_.no_show_max_multiplier) {
    rate_ = base_rate_;
  }
  if (first || before.lanes != config_.lanes) lanes_.follow(config_.lanes);
  stock_.retotal(before.stock, config_.stock);
  if (before.inventory != config_.inventory) seats_.retotal(config_.inventory, e.at_ms);
  // A new stock or inventory may sell the room out, or reopen one they sold out, in this step.
  if (before.stock != config_.stock || before.inventory != config_.inventory) follow_supply(e.at_ms);
  if (untouched() && (first || schedule_moved)) {
    state_ = config_.opens_at_ms ? room_state::lobby : room_state::open;
    opened_at_ms_ = state_ == room_state::open ? std::optional(e.at_ms) : std::nullopt;
    tick_ms_ = e.at_ms;
    carry_ = 0;
  }
  follow_draws();
  if (untouched()) commit();
}

void room::follow_draws() {
  if (state_ != room_state::lobby) {
    if (untouched()) draws_.resize(1);
    return;
  }
  while (draws_.size() < lanes_.size()) {
    draws_.emplace_back(lane_seed(draws_[0].seed, lanes_.at(static_cast<std::uint8_t>(draws_.size())).config.id));
    // Its commitment is a new commit entry, which the witnesses have not seen yet.
    if (committed_) witnessed_commit_ = false;
  }
}

ledger::beacon_kind room::beacon_kind() const {
  if (config_.beacon_rule.empty()) return ledger::beacon_kind::none;
  return config_.beacon_rule == drand_quicknet_rule ? ledger::beacon_kind::drand_quicknet
                                                    : ledger::beacon_kind::operator_value;
}

void room::commit() {
  auto closes = lobby_closes_at_ms();
  if (state_ != room_state::lobby || !closes) {
    committed_.reset();
    return;
  }
  commit_terms terms{beacon_kind(), 0, *closes};
  if (terms.beacon == ledger::beacon_kind::drand_quicknet) {
    terms.round = drand::first_round_at_or_after(*closes + beacon_margin_ms);
  }
  // New terms are a new commit entry, which the witnesses have not seen yet.
  if (committed_ != terms) witnessed_commit_ = false;
  committed_ = terms;
}

const joined_entry* room::account_entry(const id16& account) const {
  auto it = accounts_.find(account);
  return it == accounts_.end() ? nullptr : &it->second;
}

bool room::accepts_joins() const {
  return state_ != room_state::sold_out && state_ != room_state::closed;
}

std::optional<std::int64_t> room::lobby_closes_at_ms() const {
  if (closed_at_ms_) return closed_at_ms_;
  if (!config_.opens_at_ms) return std::nullopt;
  return *config_.opens_at_ms + std::int64_t{config_.lobby_window_seconds} * 1000;
}

join_outcome room::apply(const visitor_joined& e, std::vector<merkle::stored_node>& completed) {
  // A lane removed while the join was written takes no one more, nor a lobby a lane
  // without a draw. A code is redeemed here, in log order: of two joins with a
  // single-use code, the second is refused.
  bool lane_gone = e.lane >= lanes_.size() || !lanes_.at(e.lane).declared || (state_ == room_state::lobby && e.lane >= draws_.size());
  auto redeemer = e.account.value_or(e.visitor);
  bool code_refused = false;
  if (e.code) {
    auto decision = check_code(*e.code, redeemer);
    code_refused = lane_gone || decision.verdict != code_verdict::ok || decision.lane != lanes_.at(e.lane).config.id;
  }
  if (!accepts_joins() || lane_gone || code_refused || (e.account && accounts_.contains(*e.account)) ||
      // Last, as it records the invite's use: a used jti is refused, so an invite is used once.
      (e.invite && !invite::apply(invites_, *e.invite))) {
    return {std::nullopt, std::nullopt, /*refused=*/true};
  }
  if (e.code) codes_.apply(code_redeemed{e.room, *e.code, redeemer, e.at_ms});
  join_outcome outcome;
  auto place = lanes_.take_place(e.lane);
  if (state_ == room_state::lobby) {
    auto& lobby = draws_[e.lane].lobby;
    outcome.lobby_index = lane_place(e.lane, lobby.size());
    auto nodes = lobby.append(merkle::leaf_hash(e.entrant));
    completed.insert(completed.end(), nodes.begin(), nodes.end());
  } else {
    outcome.place = place;
  }
  ++joined_;
  if (e.account) {
    accounts_.emplace(*e.account, joined_entry{e.visitor, e.entrant, e.at_ms, outcome});
    visitor_accounts_.emplace(e.visitor, *e.account);
  }
  return outcome;
}

void room::apply(const visitors_admitted& e) {
  // A step the ticker decided while a stop was in flight: the stop wrote its own.
  if (state_ != room_state::open) return;
  auto bound = std::min(joined_, admission_cap(e.tick_ms).value_or(joined_));
  auto served = std::clamp(e.served, served_, std::max(served_, bound));
  lanes_.admit(served - served_, e.tick_ms);
  served_ = served;
  tick_ms_ = e.tick_ms;
  carry_ = e.carry;
  lanes_.settle(e.tick_ms, claim_window_ms());
}

void room::apply(const pass_claimed& e) {
  lanes_.claim(e.place, e.pass, e.at_ms + std::int64_t{config_.pass_ttl_seconds} * 1000);
}

std::optional<turn_notified> room::turn_notice(std::uint64_t place, std::int64_t now_ms) const {
  if (lanes_.told(place) || !claimable(place, now_ms)) return std::nullopt;
  return turn_notified{config_.id, place, now_ms};
}

void room::apply(const passes_done& e) {
  for (auto place : e.places) lanes_.report_done(place);
}

std::uint64_t room::served_in_lane(std::uint8_t lane, std::int64_t now_ms) const {
  if (lanes_.size() == 1) return served(now_ms);
  return lane < lanes_.size() ? lanes_.at(lane).served : 0;
}

std::uint32_t room::lane_rate(std::uint8_t lane) const {
  if (lanes_.size() == 1 || lane >= lanes_.size()) return rate_;
  return static_cast<std::uint32_t>(std::uint64_t{rate_} * lanes_.share_now(lane) / share_scale);
}

void room::apply(const stock_reported& e) {
  if (stock_.receipt(e.key)) return;
  stock_.count(e);
  follow_supply(e.at_ms);
  stock_.record(e, state_);
}

void room::follow_supply(std::int64_t at_ms) {
  bool none_left = stock_.remaining() == 0u || seats_.sold_out();
  if (none_left && state_ != room_state::sold_out && state_ != room_state::closed) {
    sold_out_by_supply_from_ = state_;
    state_ = room_state::sold_out;
  } else if (!none_left && state_ == room_state::sold_out && sold_out_by_supply_from_) {
    resume_admission(*sold_out_by_supply_from_, at_ms);
    sold_out_by_supply_from_.reset();
  }
}

std::optional<id16> room::account_of(const id16& visitor) const {
  auto it = visitor_accounts_.find(visitor);
  return it == visitor_accounts_.end() ? std::nullopt : std::optional(it->second);
}

hold_terms room::hold_terms_for(std::optional<std::uint64_t> place, std::optional<std::uint64_t> account_seats) const {
  // By id: the lane's settings as the configuration now gives them (a lane no longer
  // declared has the room's).
  const lane_config* lane = nullptr;
  if (place && lane_of(*place) < lanes_.size()) {
    const auto& id = lanes_.at(lane_of(*place)).config.id;
    auto it = std::find_if(config_.lanes.begin(), config_.lanes.end(), [&](const auto& l) { return l.id == id; });
    if (it != config_.lanes.end()) lane = &*it;
  }
  return hold_terms::of(*seats_.settings(), lane ? lane->hold_seconds : 0, lane ? lane->max_seats_per_pass : 0,
                        account_seats);
}

hold_outcome room::apply(const hold_placed& e, std::optional<std::uint64_t> account_seats) {
  // In line or holding, the visitor's seats count from here, not their pass slot. The
  // place is looked up here too: a hold asked for right after the poll that gave the pass
  // was decided before that pass's claim was applied, and the log has the claim first.
  auto place = e.place ? e.place : lanes_.place_of_pass(pass::pass_id(config_.id, e.visitor));
  // A pass reported done places nothing, nor one whose claim is not known (unless its
  // claim was forgotten after its holds, which the ledger knows).
  bool pass_usable = place ? !lanes_.reported_done(*place) : seats_.knows(e.visitor);
  // A room without seats places nothing: the ledger says so before it looks at the terms.
  auto terms = seats_.enabled() ? hold_terms_for(place, account_seats) : hold_terms{};
  auto outcome = seats_.apply(e, pass_usable, terms);
  if ((outcome == hold_outcome::placed || outcome == hold_outcome::waitlisted) && place) lanes_.finish(*place);
  follow_supply(e.at_ms);
  return outcome;
}

hold_outcome room::apply(const hold_extended& e) { return seats_.apply(e); }

template <class E>
hold_outcome room::apply_and_follow(const E& e) {
  auto outcome = seats_.apply(e);
  follow_supply(e.at_ms);
  return outcome;
}

hold_outcome room::apply(const hold_confirmed& e, std::optional<std::uint64_t> account_seats) {
  // A late success is held to the limits of the pass that placed it, as a new hold would be.
  const hold* h = seats_.find(e.hold);
  auto place = h ? lanes_.place_of_pass(pass::pass_id(config_.id, h->visitor)) : std::nullopt;
  auto terms = seats_.enabled() ? hold_terms_for(place, account_seats) : hold_terms{};
  auto outcome = seats_.apply(e, terms);
  follow_supply(e.at_ms);
  return outcome;
}
hold_outcome room::apply(const hold_released& e) { return apply_and_follow(e); }
hold_outcome room::apply(const holds_expired& e) { return apply_and_follow(e); }

bool room::lane_takes(std::string_view lane, lane_entry entry) const {
  auto index = lanes_.index_of(lane);
  return index && lanes_.at(*index).declared && lanes_.at(*index).config.entry == entry;
}

code_decision room::check_code(const digest& code, const id16& account) const {
  auto decision = codes_.check(code, account);
  if (decision.verdict == code_verdict::ok && !lane_takes(decision.lane, lane_entry::code)) return {};
  return decision;
}

void room::apply(const codes_added& e) {
  if (lane_takes(e.lane, lane_entry::code)) codes_.apply(e);
}

void room::apply(const seats_recounted& e) {
  seats_.recount(e.at_ms);
  follow_supply(e.at_ms);
}

void room::apply(const rate_changed& e) {
  base_rate_ = std::max<std::uint32_t>(e.base_rate_per_minute, 1);
  rate_ = std::max<std::uint32_t>(e.rate_per_minute, 1);
  rate_reason_ = e.reason;
}

void room::resume_admission(room_state state, std::int64_t at_ms) {
  // A room that admits again starts its clock afresh: the stop is not admitted as a burst.
  if (state == room_state::open) {
    tick_ms_ = at_ms;
    carry_ = 0;
  }
  state_ = state;
}

std::optional<std::uint64_t> room::max_active_cap(std::int64_t now_ms) const {
  if (!config_.max_active) return std::nullopt;
  return lanes_.freed(now_ms) + *config_.max_active;
}

std::optional<std::uint64_t> room::seats_cap(std::int64_t now_ms) const {
  // With seats, each admitted visitor whose slot is not free counts as one seat until
  // they hold (a hold frees the slot: its seats count as held from then), so the queue
  // admits for the seats available, and for seats that come back, in place order. With
  // legs, for the leg with the most seats: a visitor may want any part of the route, and
  // the fullest leg must not stop admission for the others (the hold itself is refused
  // if its own legs are full).
  // Seats owed to the waitlist are its, not the queue's.
  if (!seats_.enabled()) return std::nullopt;
  auto most = seats_.most_available();
  auto open_seats = most > seats_.owed() ? most - seats_.owed() : 0;
  return lanes_.freed(now_ms) + open_seats;
}

std::optional<std::uint64_t> room::seats_promised(std::int64_t now_ms) const {
  if (!seats_.enabled()) return std::nullopt;
  auto admitted = served(now_ms);
  auto freed = lanes_.freed(now_ms);
  return admitted > freed ? admitted - freed : 0;
}

std::optional<std::uint64_t> room::admission_cap(std::int64_t now_ms) const {
  auto active = max_active_cap(now_ms);
  auto seats = seats_cap(now_ms);
  if (active && seats) return std::min(*active, *seats);
  return active ? active : seats;
}

std::uint64_t room::unbounded_frontier(std::int64_t now_ms) const {
  return served_ + admission_due(rate_, tick_ms_, carry_, now_ms).admit;
}

std::optional<std::string_view> room::held_at(std::int64_t now_ms) const {
  if (state_ != room_state::open) return std::nullopt;
  auto cap = admission_cap(now_ms);
  if (!cap || joined_ <= *cap || served(now_ms) < *cap) return std::nullopt;
  // The seats name the hold when they are what binds; max_active otherwise.
  return seats_cap(now_ms) == cap ? "held_by_seats" : "held_by_max_active";
}

std::string_view room::rate_reason_at(std::int64_t now_ms) const {
  return held_at(now_ms).value_or(to_string(rate_reason_));
}

void room::apply(const lobby_closed& e) {
  if (state_ != room_state::lobby) return;
  closed_at_ms_ = e.at_ms;
  for (auto& d : draws_) d.root = d.lobby.root();
  awaits_witnesses_ = e.awaits_witnesses;
  state_ = room_state::drawing;
  draw_when_ready(e.at_ms);
}

void room::apply(const beacon_supplied& e) {
  if (state_ != room_state::drawing || beacon_) return;
  beacon_ = e.value;
  beacon_check_ = e.check;
  beacon_relays_ = e.relays;
  draw_when_ready(e.at_ms);
}

void room::apply(const draw_witnessed& e) {
  // A close is witnessed only once it happened; a commit any time before the draw.
  if (e.stage == ledger::stage::close ? state_ != room_state::drawing
                                      : state_ != room_state::lobby && state_ != room_state::drawing) {
    return;
  }
  (e.stage == ledger::stage::commit ? witnessed_commit_ : witnessed_close_) = true;
  if (state_ == room_state::drawing) draw_when_ready(e.at_ms);
}

void room::draw_when_ready(std::int64_t at_ms) {
  if ((needs_beacon() && !beacon_) || awaiting_witnesses()) return;
  draw(at_ms);
}

digest room::places_hash(std::uint8_t lane) const {
  const auto& places = draws_[lane].permutation;
  return places ? ledger::places_hash(*places) : sha256(byte_view{});
}

void room::draw(std::int64_t at_ms) {
  derive_permutations();
  state_ = room_state::open;
  opened_at_ms_ = at_ms;
  tick_ms_ = at_ms;
  carry_ = 0;
}

void room::derive_permutations() {
  // drand: the beacon is the round's signature, and its randomness, SHA-256 of it, is
  // what the key mixes in.
  byte_view beacon = beacon_ ? as_bytes(*beacon_) : byte_view{};
  digest randomness{};
  if (beacon_kind() == ledger::beacon_kind::drand_quicknet && beacon_) {
    randomness = sha256(beacon);
    beacon = randomness;
  }
  for (auto& d : draws_) {
    d.key = lottery::derive_key(d.seed, *d.root, beacon);
    if (d.lobby.size() > 0) d.permutation.emplace(*d.key, d.lobby.size());
  }
}

bool room::allows(room_state target) const {
  switch (target) {
    case room_state::paused: return state_ == room_state::open;
    case room_state::open: return state_ == room_state::paused;
    case room_state::sold_out: return state_ != room_state::closed && state_ != room_state::sold_out;
    case room_state::closed: return state_ != room_state::closed;
    case room_state::lobby:
    case room_state::drawing: return false;
  }
  return false;
}

void room::apply(const state_changed& e) {
  if (!allows(e.state)) return;
  // The operator's word stands over the stock's: released stock no longer reopens.
  sold_out_by_supply_from_.reset();
  resume_admission(e.state, e.at_ms);
}

std::optional<holds_expired> room::expired_holds(std::int64_t now_ms) const {
  auto expired = seats_.due(now_ms);
  if (expired.empty()) return std::nullopt;
  return holds_expired{config_.id, std::move(expired), now_ms};
}

std::optional<event> room::due(std::int64_t now_ms) const {
  if (state_ == room_state::lobby) {
    // A lobby without a close time (a log from before settings were history, whose file
    // lost opens_at) closes only when the operator closes it.
    auto closes = lobby_closes_at_ms();
    if (!closes || now_ms < *closes) return std::nullopt;
    return lobby_closed{config_.id, now_ms};
  }
  if (state_ != room_state::open || now_ms - tick_ms_ < checkpoint_every_ms) return std::nullopt;
  return checkpoint(now_ms);
}

visitors_admitted room::checkpoint(std::int64_t now_ms) const {
  auto step = admission_due(rate_, tick_ms_, carry_, now_ms);
  return {config_.id, served_ + step.admit, step.tick_ms, step.carry};
}

std::uint64_t room::served(std::int64_t now_ms) const {
  // With lanes, admission moves where the split is decided: at the durable steps.
  if (state_ != room_state::open || lanes_.size() > 1) return served_;
  if (holds_ > 0) now_ms = std::min(now_ms, hold_ms_);
  auto bound = std::min(joined_, admission_cap(now_ms).value_or(joined_));
  // A lower max_active takes effect as passes end: nothing admitted is taken back.
  return std::max(served_, std::min(unbounded_frontier(now_ms), bound));
}

void room::hold_admission(std::int64_t at_ms) {
  hold_ms_ = holds_++ == 0 ? at_ms : std::min(hold_ms_, at_ms);
}

void room::release_admission() { --holds_; }

std::optional<digest> room::revealed_seed(std::uint8_t lane) const {
  if (!opened_at_ms_ || !closed_at_ms_) return std::nullopt;
  return draws_[lane].seed;
}

std::optional<std::uint64_t> room::place_of(std::uint64_t lobby_index) const {
  auto lane = lane_of(lobby_index);
  auto index = place_in_lane(lobby_index);
  if (lane >= draws_.size()) return std::nullopt;
  const auto& places = draws_[lane].permutation;
  if (!places || index >= places->size()) return std::nullopt;
  return lane_place(lane, places->place(index));
}

bool room::gave(const ticket& t) const {
  // A lobby ticket's place comes from the draw: its lobby index is what the log gave.
  if (t.lobby_index) {
    auto lane = lane_of(*t.lobby_index);
    return lane < draws_.size() && place_in_lane(*t.lobby_index) < draws_[lane].lobby.size();
  }
  return !t.place || lanes_.holds(*t.place);
}

}  // namespace foyer
