#include "core/rooms/holds.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace foyer {
namespace {

constexpr auto last_hold_state = static_cast<std::uint8_t>(hold_state::waitlisted);
constexpr auto last_reason = static_cast<std::uint8_t>(refund_reason::late_success_after_grace);
constexpr auto last_action = static_cast<std::uint8_t>(hold_action::release);

// 1: the counts, the holds, the ended holds and the receipts, each receipt an answer
//    (room states of format 4 carry it without a format byte);
// 2: each receipt with its outcome, refusals included;
// 3: each leg's counts in place of the route's, each hold and receipt with its legs;
// 4: the waitlist in order, each receipt with its place in line.
constexpr std::uint8_t first_ledger_format = 1;
constexpr std::uint8_t outcomes_ledger_format = 2;
constexpr std::uint8_t legs_ledger_format = 3;
constexpr std::uint8_t ledger_format = 4;

void write_legs(writer& w, leg_span legs) {
  w.u32(legs.from);
  w.u32(legs.to);
}

leg_span read_legs(reader& r, std::uint8_t format) {
  if (format < legs_ledger_format) return {};
  leg_span legs;
  legs.from = r.u32();
  legs.to = r.u32();
  return legs;
}

// What a receipt of format 1, always an answer, said.
// A station as an event names it: none without legs.
std::optional<std::string> as_station(const std::string& name) {
  return name.empty() ? std::nullopt : std::optional<std::string>(name);
}

hold_outcome answered_outcome(const hold_receipt& r) {
  switch (r.action) {
    case hold_action::place: return hold_outcome::placed;
    case hold_action::extend: return hold_outcome::extended;
    case hold_action::confirm: return r.state == hold_state::confirmed ? hold_outcome::confirmed : hold_outcome::refund_required;
    case hold_action::release: return r.state == hold_state::released ? hold_outcome::released : hold_outcome::ended_already;
  }
  return hold_outcome::placed;
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
    case hold_outcome::bad_route: return true;
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

void seat_ledger::record(std::string_view key, hold_receipt receipt) {
  auto digest = key_digest(key);
  key_order_.emplace_back(receipt.at_ms, digest);
  receipts_.emplace(digest, receipt);
}

void seat_ledger::prune(std::int64_t now_ms) {
  auto before = now_ms - settings_.value_or(inventory_settings{}).retention_ms();
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
  h.expires_ms = at_ms + std::int64_t{settings_->hold_seconds} * 1000;
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

hold_outcome seat_ledger::place(const hold_placed& e, leg_span legs) {
  if (holds_.contains(e.hold)) return hold_outcome::hold_id_taken;
  if (e.seats == 0 || e.seats > settings_->max_seats_per_hold) return hold_outcome::bad_seats;
  auto earlier = live_hold_of(e.visitor);
  if (earlier && settings_->second == second_hold::refuse) return hold_outcome::live_hold_exists;
  // All or nothing: the earlier hold goes only if the new one can take its place.
  auto outcome = placement(legs, e.seats, earlier ? &*earlier : nullptr);
  if (outcome == hold_outcome::sold_out) return outcome;
  if (earlier) end(*earlier, holds_.at(*earlier), hold_state::released, e.at_ms);
  hold& h = holds_[e.hold];
  h.visitor = e.visitor;
  h.seats = e.seats;
  h.state = hold_state::waitlisted;
  h.legs = legs;
  if (outcome == hold_outcome::placed) {
    start_holding(e.hold, h, e.at_ms);
  } else {
    // By then every seat held now has come back or been confirmed.
    h.expires_ms = e.at_ms + (std::int64_t{settings_->hold_seconds} + settings_->extension_seconds) * 1000;
    waitlist_.push_back(e.hold);
    owed_ += h.seats;
    live_by_visitor_.emplace(e.visitor, e.hold);
    live_by_expiry_.emplace(h.expires_ms, e.hold);
  }
  return outcome;
}

hold_outcome seat_ledger::apply(const hold_placed& e) {
  if (auto why = unanswered(e.key, e.at_ms)) return *why;
  auto route = route_of(*settings_, as_station(e.from), as_station(e.to));
  auto* legs = std::get_if<leg_span>(&route);
  auto outcome = legs ? place(e, *legs) : hold_outcome::bad_route;
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

hold_outcome seat_ledger::apply(const hold_confirmed& e) {
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
      move(h, &leg_seats::held, &leg_seats::confirmed);
      h.state = hold_state::confirmed;
      break;
    case hold_state::released:
    case hold_state::expired:
      // A late success: the seats again if they are free, else a refund. Never neither.
      if (e.at_ms > h.ended_ms + std::int64_t{settings_->late_grace_seconds} * 1000) {
        h.state = hold_state::refund_required;
        h.reason = refund_reason::late_success_after_grace;
      } else if (available(h.legs) >= h.seats) {
        // On the same legs as before.
        confirmed_ += h.seats;
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

void seat_ledger::encode(writer& w) const {
  w.u8(ledger_format);
  w.u64(total_);
  w.u64(held_);
  w.u64(confirmed_);
  w.u8(frozen_);
  w.u32(static_cast<std::uint32_t>(legs_.size()));
  for (const auto& leg : legs_) {
    w.u64(leg.total);
    w.u64(leg.available);
    w.u64(leg.held);
    w.u64(leg.confirmed);
  }
  // In id order: equal ledgers encode to equal bytes.
  std::vector<std::pair<id16, const hold*>> holds;
  holds.reserve(holds_.size());
  for (const auto& [id, h] : holds_) holds.emplace_back(id, &h);
  std::sort(holds.begin(), holds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  w.u64(holds.size());
  for (const auto& [id, h] : holds) {
    w.raw(id);
    w.raw(h->visitor);
    w.u32(h->seats);
    w.u8(static_cast<std::uint8_t>(h->state));
    w.i64(h->expires_ms);
    w.u8(h->extended);
    w.i64(h->ended_ms);
    w.u8(static_cast<std::uint8_t>(h->reason));
    write_legs(w, h->legs);
  }
  // Ended holds and keys in the order they came: the order pruning needs.
  w.u64(ended_.size());
  for (const auto& [at, id] : ended_) {
    w.i64(at);
    w.raw(id);
  }
  w.u64(key_order_.size());
  for (const auto& [at, digest] : key_order_) {
    const auto& s = receipts_.at(digest);
    w.raw(digest);
    w.u8(static_cast<std::uint8_t>(s.action));
    w.raw(s.hold);
    w.raw(s.visitor);
    w.u32(s.seats);
    w.u8(static_cast<std::uint8_t>(s.state));
    w.i64(s.expires_ms);
    w.u8(static_cast<std::uint8_t>(s.reason));
    w.i64(s.at_ms);
    w.u8(static_cast<std::uint8_t>(s.outcome));
    write_legs(w, s.legs);
    w.u32(s.waitlist_position);
  }
  w.u32(static_cast<std::uint32_t>(waitlist_.size()));
  for (const auto& id : waitlist_) w.raw(id);
}

bool seat_ledger::decode(reader& r, const std::optional<inventory_settings>& settings, bool versioned) {
  auto format = versioned ? r.u8() : first_ledger_format;
  if (format < first_ledger_format || format > ledger_format) return false;
  seat_ledger l;
  l.settings_ = settings;
  l.total_ = r.u64();
  auto route_available = format < legs_ledger_format ? r.u64() : 0;
  l.held_ = r.u64();
  l.confirmed_ = r.u64();
  l.frozen_ = r.u8() != 0;
  if (format < legs_ledger_format) {
    // The route as its one leg.
    if (settings) l.legs_.push_back({l.total_, route_available, l.held_, l.confirmed_});
  } else {
    auto legs = r.u32();
    for (std::uint32_t i = 0; i < legs && !r.failed(); ++i) {
      leg_seats leg;
      leg.total = r.u64();
      leg.available = r.u64();
      leg.held = r.u64();
      leg.confirmed = r.u64();
      l.legs_.push_back(leg);
    }
  }
  std::uint64_t held = 0, confirmed = 0;
  // Each leg's seats as its holds count them.
  std::vector<leg_seats> counted(l.legs_.size());
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto id = r.raw<16>();
    hold h;
    h.visitor = r.raw<16>();
    h.seats = r.u32();
    auto state = r.u8();
    h.expires_ms = r.i64();
    h.extended = r.u8() != 0;
    h.ended_ms = r.i64();
    auto reason = r.u8();
    h.legs = read_legs(r, format);
    if (state > last_hold_state || reason > last_reason || h.legs.from >= h.legs.to) return false;
    h.state = static_cast<hold_state>(state);
    h.reason = static_cast<refund_reason>(reason);
    // On legs the ledger does not have: readable, not countable.
    bool countable = h.legs.to <= l.legs_.size();
    if (!countable) l.frozen_ = true;
    if (h.state == hold_state::waitlisted) {
      l.live_by_visitor_.emplace(h.visitor, id);
      l.live_by_expiry_.emplace(h.expires_ms, id);
    } else if (h.state == hold_state::held) {
      held += h.seats;
      for (auto leg = h.legs.from; countable && leg < h.legs.to; ++leg) counted[leg].held += h.seats;
      l.live_by_visitor_.emplace(h.visitor, id);
      l.live_by_expiry_.emplace(h.expires_ms, id);
    } else if (h.state == hold_state::confirmed) {
      confirmed += h.seats;
      for (auto leg = h.legs.from; countable && leg < h.legs.to; ++leg) counted[leg].confirmed += h.seats;
    }
    l.holds_.emplace(id, h);
  }
  count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto at = r.i64();
    l.ended_.emplace_back(at, r.raw<16>());
  }
  count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto digest = r.raw<16>();
    hold_receipt s;
    auto action = r.u8();
    s.hold = r.raw<16>();
    s.visitor = r.raw<16>();
    s.seats = r.u32();
    auto state = r.u8();
    s.expires_ms = r.i64();
    auto reason = r.u8();
    s.at_ms = r.i64();
    auto outcome = format >= outcomes_ledger_format ? r.u8() : std::uint8_t{0};
    s.legs = read_legs(r, format);
    if (format >= ledger_format) s.waitlist_position = r.u32();
    if (action > last_action || state > last_hold_state || reason > last_reason ||
        outcome > static_cast<std::uint8_t>(last_hold_outcome)) {
      return false;
    }
    s.action = static_cast<hold_action>(action);
    s.state = static_cast<hold_state>(state);
    s.reason = static_cast<refund_reason>(reason);
    s.outcome = format >= outcomes_ledger_format ? static_cast<hold_outcome>(outcome) : answered_outcome(s);
    l.receipts_.emplace(digest, s);
    l.key_order_.emplace_back(s.at_ms, digest);
  }
  std::size_t waitlisted = 0;
  for (const auto& [id, h] : l.holds_) waitlisted += h.state == hold_state::waitlisted;
  if (format >= ledger_format) {
    auto in_line = r.u32();
    for (std::uint32_t i = 0; i < in_line && !r.failed(); ++i) {
      auto id = r.raw<16>();
      auto it = l.holds_.find(id);
      if (it == l.holds_.end() || it->second.state != hold_state::waitlisted) return false;
      l.waitlist_.push_back(id);
      l.owed_ += it->second.seats;
    }
  }
  // Every waitlisted hold is in line, once.
  if (l.waitlist_.size() != waitlisted ||
      std::set<id16>(l.waitlist_.begin(), l.waitlist_.end()).size() != waitlisted) {
    return false;
  }
  if (r.failed()) return false;
  // After recovery the counters must agree with the holds they count, and the totals
  // with the settings.
  if (held != l.held_ || confirmed != l.confirmed_ || l.total_ != (settings ? settings->total : 0) ||
      l.legs_.size() != (settings ? settings->leg_count() : 0)) {
    l.frozen_ = true;
  }
  for (std::size_t i = 0; i < l.legs_.size() && !l.frozen_; ++i) {
    const auto& leg = l.legs_[i];
    if (leg.held != counted[i].held || leg.confirmed != counted[i].confirmed || leg.total != settings->leg_total(i)) {
      l.frozen_ = true;
    }
  }
  l.check();
  *this = std::move(l);
  return true;
}

}  // namespace foyer
