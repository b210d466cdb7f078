#include "core/inventory/seat_ledger.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace foyer {
namespace {

// A station as an event names it: none without legs.
std::optional<std::string> as_station(const std::string& name) {
  return name.empty() ? std::nullopt : std::optional<std::string>(name);
}

}  // namespace

bool refused(hold_outcome outcome) {
  switch (outcome) {
    case hold_outcome::sold_out:
    case hold_outcome::live_hold_exists:
    case hold_outcome::bad_seats:
    case hold_outcome::hold_id_taken:
    case hold_outcome::extended_already:
    case hold_outcome::not_held:
    case hold_outcome::unknown_hold:
    case hold_outcome::no_inventory:
    case hold_outcome::frozen:
    case hold_outcome::bad_route:
    case hold_outcome::seats_per_pass_exceeded:
    case hold_outcome::pass_ended:
    case hold_outcome::seats_per_account_exceeded: return true;
    case hold_outcome::placed:
    case hold_outcome::waitlisted:
    case hold_outcome::extended:
    case hold_outcome::confirmed:
    case hold_outcome::refund_required:
    case hold_outcome::released:
    case hold_outcome::ended_already:
    case hold_outcome::expired:
    case hold_outcome::nothing_due:
    case hold_outcome::repeated: return false;
  }
  return true;
}

std::string_view to_string(hold_state state) {
  switch (state) {
    case hold_state::held: return "held";
    case hold_state::confirmed: return "confirmed";
    case hold_state::released: return "released";
    case hold_state::expired: return "expired";
    case hold_state::refund_required: return "refund_required";
    case hold_state::waitlisted: return "waitlisted";
  }
  return "unknown";
}

std::string_view to_string(refund_reason reason) {
  switch (reason) {
    case refund_reason::none: return "none";
    case refund_reason::late_success_no_seat: return "late_success_no_seat";
    case refund_reason::late_success_after_grace: return "late_success_after_grace";
    case refund_reason::room_removed: return "room_removed";
    case refund_reason::late_success_over_limit: return "late_success_over_limit";
  }
  return "unknown";
}

std::variant<leg_span, field_problem> route_of(const inventory_settings& settings, const std::optional<std::string>& from,
                                               const std::optional<std::string>& to) {
  const auto& stations = settings.legs;
  if (stations.empty()) {
    if (from) return field_problem{"from", "must not be sent: this room's seats have no legs"};
    if (to) return field_problem{"to", "must not be sent: this room's seats have no legs"};
    return leg_span{};
  }
  auto route = fmt::format("{}", fmt::join(stations, ", "));
  auto index = [&](const std::optional<std::string>& name, std::string_view field) -> std::variant<std::uint32_t, field_problem> {
    if (!name) return field_problem{std::string(field), fmt::format("is required: a station of this room ({})", route)};
    auto it = std::find(stations.begin(), stations.end(), *name);
    if (it == stations.end()) return field_problem{std::string(field), fmt::format("must be a station of this room ({})", route)};
    return static_cast<std::uint32_t>(it - stations.begin());
  };
  auto first = index(from, "from");
  if (auto* bad = std::get_if<field_problem>(&first)) return *bad;
  auto last = index(to, "to");
  if (auto* bad = std::get_if<field_problem>(&last)) return *bad;
  leg_span span{std::get<std::uint32_t>(first), std::get<std::uint32_t>(last)};
  if (span.to <= span.from) return field_problem{"to", fmt::format("must come after \"from\" on the route ({})", route)};
  return span;
}

void seat_ledger::retotal(const std::optional<inventory_settings>& settings, std::int64_t at_ms) {
  std::size_t count = settings ? settings->leg_count() : 0;
  if (legs_.size() != count) {
    // Other legs: only while nothing is held or confirmed (room::refuses keeps the legs
    // otherwise). Seats counted on legs that are gone cannot be put anywhere: freeze.
    for (const auto& leg : legs_) {
      if (leg.held + leg.confirmed > 0) frozen_ = true;
    }
    legs_.assign(count, {});
  }
  settings_ = settings;
  total_ = settings ? settings->total : 0;
  for (std::size_t i = 0; i < legs_.size(); ++i) {
    auto& leg = legs_[i];
    leg.total = settings->leg_total(i);
    auto taken = leg.held + leg.confirmed;
    leg.available = leg.total >= taken ? leg.total - taken : 0;
  }
  // Seats a larger total adds go to the line first.
  if (settings_ && !frozen_) serve_waitlist(at_ms);
  check();
}

void seat_ledger::retire(std::int64_t at_ms) {
  retired_ = true;
  std::vector<id16> live;
  for (const auto& [id, h] : holds_) {
    if (h.state == hold_state::held || h.state == hold_state::waitlisted) live.push_back(id);
  }
  for (const auto& id : live) {
    hold& h = holds_.at(id);
    bool paid_maybe = h.state == hold_state::held;
    end(id, h, paid_maybe ? hold_state::refund_required : hold_state::expired, at_ms);
    if (paid_maybe) h.reason = refund_reason::room_removed;
  }
  check();
}

seat_recount seat_ledger::recounted() const {
  seat_recount out;
  std::size_t count = settings_ ? settings_->leg_count() : 0;
  out.legs.assign(count, {});
  for (std::size_t i = 0; i < count; ++i) out.legs[i].total = settings_->leg_total(i);
  for (const auto& [id, h] : holds_) {
    if (h.state != hold_state::held && h.state != hold_state::confirmed) continue;
    bool held = h.state == hold_state::held;
    (held ? out.held : out.confirmed) += h.seats;
    for (auto i = h.legs.from; i < h.legs.to; ++i) {
      if (i >= count) {
        out.fits = false;
        break;
      }
      (held ? out.legs[i].held : out.legs[i].confirmed) += h.seats;
    }
  }
  for (auto& leg : out.legs) {
    auto taken = leg.held + leg.confirmed;
    if (taken > leg.total) out.fits = false;
    leg.available = taken > leg.total ? 0 : leg.total - taken;
  }
  return out;
}

bool seat_ledger::counted_right() const {
  auto counted = recounted();
  return !frozen_ && counted.legs == legs_ && counted.held == held_ && counted.confirmed == confirmed_;
}

bool seat_ledger::recount(std::int64_t at_ms) {
  auto counted = recounted();
  if (!settings_ || !counted.fits) return false;
  legs_ = std::move(counted.legs);
  held_ = counted.held;
  confirmed_ = counted.confirmed;
  frozen_ = false;
  // Seats it finds free go to the line first.
  serve_waitlist(at_ms);
  check();
  return true;
}

void seat_ledger::check() {
  for (const auto& leg : legs_) {
    if (leg.available + leg.held + leg.confirmed != leg.total) frozen_ = true;
  }
}

std::uint64_t seat_ledger::available() const {
  if (legs_.empty()) return 0;
  return available({0, static_cast<std::uint32_t>(legs_.size())});
}

std::uint64_t seat_ledger::available(leg_span legs) const {
  std::uint64_t least = ~std::uint64_t{0};
  for (auto i = legs.from; i < legs.to && i < legs_.size(); ++i) least = std::min(least, legs_[i].available);
  return legs.from < legs.to && legs.to <= legs_.size() ? least : 0;
}

std::uint64_t seat_ledger::most_available() const {
  std::uint64_t most = 0;
  for (const auto& leg : legs_) most = std::max(most, leg.available);
  return most;
}

bool seat_ledger::fits(leg_span legs, std::uint32_t seats, const hold* replaced) const {
  if (legs.from >= legs.to || legs.to > legs_.size()) return false;
  for (auto i = legs.from; i < legs.to; ++i) {
    std::uint64_t freed = replaced && replaced->legs.from <= i && i < replaced->legs.to ? replaced->seats : 0;
    if (legs_[i].available + freed < seats) return false;
  }
  return true;
}

void seat_ledger::move(const hold& h, std::uint64_t leg_seats::*from, std::uint64_t leg_seats::*to) {
  for (auto i = h.legs.from; i < h.legs.to; ++i) {
    legs_[i].*from -= h.seats;
    legs_[i].*to += h.seats;
  }
}

std::uint64_t seat_ledger::confirmed_of(const id16& visitor) const {
  auto it = confirmed_by_visitor_.find(visitor);
  return it == confirmed_by_visitor_.end() ? 0 : it->second;
}

std::uint64_t seat_ledger::seats_of(const id16& visitor) const {
  auto live = live_hold_of(visitor);
  return confirmed_of(visitor) + (live ? holds_.at(*live).seats : 0);
}

const hold* seat_ledger::find(const id16& hold_id) const {
  auto it = holds_.find(hold_id);
  return it == holds_.end() ? nullptr : &it->second;
}

std::optional<id16> seat_ledger::live_hold_of(const id16& visitor) const {
  auto it = live_by_visitor_.find(visitor);
  if (it == live_by_visitor_.end()) return std::nullopt;
  return it->second;
}

const hold_receipt* seat_ledger::receipt(std::string_view key) const {
  auto it = receipts_.find(key_digest(key));
  return it == receipts_.end() ? nullptr : &it->second;
}

std::vector<std::pair<id16, const hold*>> seat_ledger::recent_expiries(std::size_t count) const {
  std::vector<std::pair<id16, const hold*>> out;
  for (auto it = ended_.rbegin(); it != ended_.rend() && out.size() < count; ++it) {
    auto h = holds_.find(it->second);
    if (h != holds_.end() && h->second.state == hold_state::expired) out.emplace_back(it->second, &h->second);
  }
  return out;
}

std::vector<id16> seat_ledger::due(std::int64_t now_ms) const {
  std::vector<id16> out;
  // A frozen ledger applies nothing: nothing to write either, until an operator looks.
  if (frozen_) return out;
  for (auto it = live_by_expiry_.begin(); it != live_by_expiry_.end() && it->first <= now_ms; ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::uint64_t seat_ledger::late_confirmable(std::int64_t now_ms) const {
  if (retired_ || !settings_) return 0;
  const std::int64_t grace_ms = std::int64_t{settings_->late_grace_seconds} * 1000;
  std::uint64_t n = 0;
  for (const auto& [ended_ms, id] : ended_) {
    auto it = holds_.find(id);
    bool late = it != holds_.end() &&
                (it->second.state == hold_state::released || it->second.state == hold_state::expired);
    n += late && now_ms <= ended_ms + grace_ms;
  }
  return n;
}

void seat_ledger::record(std::string_view key, hold_receipt receipt) {
  auto digest = key_digest(key);
  key_order_.emplace_back(receipt.at_ms, digest);
  receipts_.emplace(digest, receipt);
}

void seat_ledger::prune(std::int64_t now_ms) {
  auto before = now_ms - settings_.value_or(inventory_settings{}).retention_ms(longest_hold_seconds_);
  while (!key_order_.empty() && key_order_.front().first < before) {
    receipts_.erase(key_order_.front().second);
    key_order_.pop_front();
  }
  // Confirmed holds stay: at most one per seat, and a duplicate confirm names them.
  while (!ended_.empty() && ended_.front().first < before) {
    auto it = holds_.find(ended_.front().second);
    if (it != holds_.end() && it->second.state != hold_state::confirmed) holds_.erase(it);
    ended_.pop_front();
  }
}

void seat_ledger::end(const id16& hold_id, hold& h, hold_state state, std::int64_t at_ms) {
  live_by_expiry_.erase({h.expires_ms, hold_id});
  live_by_visitor_.erase(h.visitor);
  if (h.state == hold_state::waitlisted) {
    waitlist_.erase(std::find(waitlist_.begin(), waitlist_.end(), hold_id));
    owed_ -= h.seats;
  } else {
    held_ -= h.seats;
    move(h, &leg_seats::held, &leg_seats::available);
  }
  h.state = state;
  h.ended_ms = at_ms;
  ended_.emplace_back(at_ms, hold_id);
}

void seat_ledger::start_holding(const id16& hold_id, hold& h, std::int64_t at_ms) {
  h.state = hold_state::held;
  h.expires_ms = at_ms + hold_ms(h);
  held_ += h.seats;
  move(h, &leg_seats::available, &leg_seats::held);
  live_by_visitor_.insert_or_assign(h.visitor, hold_id);
  live_by_expiry_.emplace(h.expires_ms, hold_id);
}

void seat_ledger::serve_waitlist(std::int64_t at_ms) {
  while (!waitlist_.empty()) {
    auto id = waitlist_.front();
    hold& h = holds_.at(id);
    if (!fits(h.legs, h.seats, nullptr)) break;
    waitlist_.pop_front();
    owed_ -= h.seats;
    live_by_expiry_.erase({h.expires_ms, id});
    start_holding(id, h, at_ms);
  }
  // Nothing can come back for those in line: their wait ends.
  while (sold_out() && !waitlist_.empty()) {
    auto id = waitlist_.front();
    end(id, holds_.at(id), hold_state::expired, at_ms);
  }
}

hold_outcome seat_ledger::placement(leg_span legs, std::uint32_t seats, const id16* replaced) const {
  const hold* earlier = replaced ? find(*replaced) : nullptr;
  bool earlier_waits = earlier && earlier->state == hold_state::waitlisted;
  auto ahead = waitlist_.size() - (earlier_waits ? 1 : 0);
  // Nobody is overtaken: while anyone waits, a new placement waits behind them.
  if (ahead == 0 && fits(legs, seats, earlier_waits ? nullptr : earlier)) return hold_outcome::placed;
  bool may_come_back = ahead > 0;
  for (auto i = legs.from; i < legs.to && i < legs_.size(); ++i) may_come_back = may_come_back || legs_[i].held > 0;
  if (may_come_back && ahead < settings_->waitlist) return hold_outcome::waitlisted;
  return hold_outcome::sold_out;
}

std::optional<std::uint32_t> seat_ledger::waitlist_position(const id16& hold_id) const {
  auto it = std::find(waitlist_.begin(), waitlist_.end(), hold_id);
  if (it == waitlist_.end()) return std::nullopt;
  return static_cast<std::uint32_t>(it - waitlist_.begin()) + 1;
}

std::optional<hold_outcome> seat_ledger::unanswered(std::string_view key, std::int64_t at_ms) {
  if (!settings_) return hold_outcome::no_inventory;
  if (frozen_) return hold_outcome::frozen;
  if (receipt(key)) return hold_outcome::repeated;
  prune(at_ms);
  return std::nullopt;
}

hold_outcome seat_ledger::answer(std::string_view key, hold_action action, const id16& hold_id, const hold* h,
                                 hold_outcome outcome, std::int64_t at_ms) {
  hold_receipt r;
  r.action = action;
  r.hold = hold_id;
  r.at_ms = at_ms;
  r.outcome = outcome;
  if (h) {
    r.visitor = h->visitor;
    r.seats = h->seats;
    r.state = h->state;
    r.expires_ms = h->expires_ms;
    r.reason = h->reason;
  }
  record(key, r);
  check();
  return outcome;
}

hold_outcome seat_ledger::place(const hold_placed& e, leg_span legs, const hold_terms& terms) {
  if (holds_.contains(e.hold)) return hold_outcome::hold_id_taken;
  if (e.seats == 0 || e.seats > settings_->max_seats_per_hold) return hold_outcome::bad_seats;
  // The visitor's live hold, if any, is refused or replaced below: only confirmed seats count.
  if (confirmed_of(e.visitor) + e.seats > terms.seats_per_pass) return hold_outcome::seats_per_pass_exceeded;
  auto earlier = live_hold_of(e.visitor);
  if (earlier && settings_->second == second_hold::refuse) return hold_outcome::live_hold_exists;
  if (terms.account_seats && confirmed_of(e.visitor) + e.seats > *terms.account_seats) {
    return hold_outcome::seats_per_account_exceeded;
  }
  // All or nothing: the earlier hold goes only if the new one can take its place.
  auto outcome = placement(legs, e.seats, earlier ? &*earlier : nullptr);
  if (outcome == hold_outcome::sold_out) return outcome;
  if (earlier) end(*earlier, holds_.at(*earlier), hold_state::released, e.at_ms);
  hold& h = holds_[e.hold];
  h.visitor = e.visitor;
  h.seats = e.seats;
  h.state = hold_state::waitlisted;
  h.legs = legs;
  h.hold_seconds = terms.hold_seconds;
  if (outcome == hold_outcome::placed) {
    start_holding(e.hold, h, e.at_ms);
  } else {
    // By then every seat held now has come back or been confirmed (a lane's longer holds
    // may hold them longer: its place in line lapses the same).
    h.expires_ms = e.at_ms + hold_ms(h) + std::int64_t{settings_->extension_seconds} * 1000;
    waitlist_.push_back(e.hold);
    owed_ += h.seats;
    live_by_visitor_.emplace(e.visitor, e.hold);
    live_by_expiry_.emplace(h.expires_ms, e.hold);
  }
  return outcome;
}

hold_outcome seat_ledger::apply(const hold_placed& e, bool pass_usable, const hold_terms& terms) {
  if (auto why = unanswered(e.key, e.at_ms)) return *why;
  auto route = route_of(*settings_, as_station(e.from), as_station(e.to));
  auto* legs = std::get_if<leg_span>(&route);
  // A hold decided before the room was removed, written after: a removed room sells nothing.
  auto outcome = retired_       ? hold_outcome::no_inventory
                 : !pass_usable ? hold_outcome::pass_ended
                 : legs         ? place(e, *legs, terms)
                                : hold_outcome::bad_route;
  // Its key, and the hold once it ends, are kept as long as its hold time asks.
  if (outcome == hold_outcome::placed || outcome == hold_outcome::waitlisted) {
    longest_hold_seconds_ = std::max(longest_hold_seconds_, terms.hold_seconds);
  }
  hold_receipt r;
  r.hold = e.hold;
  r.visitor = e.visitor;
  r.seats = e.seats;
  r.at_ms = e.at_ms;
  r.outcome = outcome;
  if (legs) r.legs = *legs;
  if (outcome == hold_outcome::placed || outcome == hold_outcome::waitlisted) {
    const hold& h = holds_.at(e.hold);
    r.state = h.state;
    r.expires_ms = h.expires_ms;
    r.waitlist_position = waitlist_position(e.hold).value_or(0);
  }
  record(e.key, r);
  // An earlier hold it replaced may have given seats back.
  serve_waitlist(e.at_ms);
  check();
  return outcome;
}

hold_outcome seat_ledger::apply(const hold_extended& e) {
  if (auto why = unanswered(e.key, e.at_ms)) return *why;
  auto it = holds_.find(e.hold);
  if (it == holds_.end()) return answer(e.key, hold_action::extend, e.hold, nullptr, hold_outcome::unknown_hold, e.at_ms);
  hold& h = it->second;
  auto outcome = hold_outcome::extended;
  if (h.state != hold_state::held || e.at_ms >= h.expires_ms) {
    outcome = hold_outcome::not_held;
  } else if (h.extended) {
    outcome = hold_outcome::extended_already;
  } else {
    live_by_expiry_.erase({h.expires_ms, e.hold});
    h.expires_ms += std::int64_t{settings_->extension_seconds} * 1000;
    h.extended = true;
    live_by_expiry_.emplace(h.expires_ms, e.hold);
  }
  return answer(e.key, hold_action::extend, e.hold, &h, outcome, e.at_ms);
}

hold_outcome seat_ledger::apply(const hold_confirmed& e, const hold_terms& terms) {
  if (auto why = unanswered(e.key, e.at_ms)) return *why;
  auto it = holds_.find(e.hold);
  if (it == holds_.end()) return answer(e.key, hold_action::confirm, e.hold, nullptr, hold_outcome::unknown_hold, e.at_ms);
  hold& h = it->second;
  switch (h.state) {
    case hold_state::held:
      // Its seats are still its own, even past its time while the sweep is on its way.
      live_by_expiry_.erase({h.expires_ms, e.hold});
      live_by_visitor_.erase(h.visitor);
      held_ -= h.seats;
      confirmed_ += h.seats;
      confirmed_by_visitor_[h.visitor] += h.seats;
      move(h, &leg_seats::held, &leg_seats::confirmed);
      h.state = hold_state::confirmed;
      break;
    case hold_state::released:
    case hold_state::expired:
      // A late success: the seats again if they are free, else a refund. Never neither.
      if (retired_) {
        h.state = hold_state::refund_required;
        h.reason = refund_reason::room_removed;
      } else if (e.at_ms > h.ended_ms + std::int64_t{settings_->late_grace_seconds} * 1000) {
        h.state = hold_state::refund_required;
        h.reason = refund_reason::late_success_after_grace;
      } else if (seats_of(h.visitor) + h.seats > terms.seats_per_pass ||
                 (terms.account_seats && seats_of(h.visitor) + h.seats > *terms.account_seats)) {
        // What the visitor holds or confirmed since counts, as for a new hold.
        h.state = hold_state::refund_required;
        h.reason = refund_reason::late_success_over_limit;
      } else if (available(h.legs) >= h.seats) {
        // On the same legs as before.
        confirmed_ += h.seats;
        confirmed_by_visitor_[h.visitor] += h.seats;
        move(h, &leg_seats::available, &leg_seats::confirmed);
        h.state = hold_state::confirmed;
      } else {
        h.state = hold_state::refund_required;
        h.reason = refund_reason::late_success_no_seat;
      }
      break;
    case hold_state::confirmed:
    case hold_state::refund_required: break;
    case hold_state::waitlisted: return answer(e.key, hold_action::confirm, e.hold, &h, hold_outcome::not_held, e.at_ms);
  }
  auto outcome = h.state == hold_state::confirmed ? hold_outcome::confirmed : hold_outcome::refund_required;
  // The last seats held, confirmed, may sell the room out: the line then ends.
  serve_waitlist(e.at_ms);
  return answer(e.key, hold_action::confirm, e.hold, &h, outcome, e.at_ms);
}

hold_outcome seat_ledger::apply(const hold_released& e) {
  if (auto why = unanswered(e.key, e.at_ms)) return *why;
  auto it = holds_.find(e.hold);
  if (it == holds_.end()) return answer(e.key, hold_action::release, e.hold, nullptr, hold_outcome::unknown_hold, e.at_ms);
  hold& h = it->second;
  auto outcome = hold_outcome::ended_already;
  // A confirmed hold is not released.
  if (h.state == hold_state::confirmed || h.state == hold_state::refund_required) {
    outcome = hold_outcome::not_held;
  } else if (h.state == hold_state::held || h.state == hold_state::waitlisted) {
    end(e.hold, h, hold_state::released, e.at_ms);
    outcome = hold_outcome::released;
    serve_waitlist(e.at_ms);
  }
  return answer(e.key, hold_action::release, e.hold, &h, outcome, e.at_ms);
}

hold_outcome seat_ledger::apply(const holds_expired& e) {
  if (!settings_) return hold_outcome::no_inventory;
  if (frozen_) return hold_outcome::frozen;
  prune(e.at_ms);
  auto outcome = hold_outcome::nothing_due;
  for (const auto& id : e.holds) {
    auto it = holds_.find(id);
    if (it == holds_.end() || it->second.expires_ms > e.at_ms) continue;
    if (it->second.state != hold_state::held && it->second.state != hold_state::waitlisted) continue;
    // The late grace counts from the hold's time, not from the sweep.
    end(id, it->second, hold_state::expired, it->second.expires_ms);
    outcome = hold_outcome::expired;
  }
  serve_waitlist(e.at_ms);
  check();
  return outcome;
}

}  // namespace foyer
