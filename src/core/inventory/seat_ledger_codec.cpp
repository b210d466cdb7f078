#include "core/inventory/seat_ledger.hpp"

#include <algorithm>

namespace foyer {
namespace {

constexpr auto last_hold_state = static_cast<std::uint8_t>(hold_state::waitlisted);
constexpr auto last_reason = static_cast<std::uint8_t>(refund_reason::late_success_over_limit);
constexpr auto last_action = static_cast<std::uint8_t>(hold_action::release);

// 1: the counts, the holds, the ended holds and the receipts, each receipt an answer
//    (room states of format 4 carry it without a format byte);
// 2: each receipt with its outcome, refusals included;
// 3: each leg's counts in place of the route's, each hold and receipt with its legs;
// 4: the waitlist in order, each receipt with its place in line;
// 5: each hold with its hold time, and the longest hold time placed (lanes' own).
constexpr std::uint8_t first_ledger_format = 1;
constexpr std::uint8_t outcomes_ledger_format = 2;
constexpr std::uint8_t legs_ledger_format = 3;
constexpr std::uint8_t waitlist_ledger_format = 4;
constexpr std::uint8_t ledger_format = 5;

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
    w.u32(h->hold_seconds);
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
  w.u32(longest_hold_seconds_);
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
    if (format >= ledger_format) h.hold_seconds = r.u32();
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
      l.confirmed_by_visitor_[h.visitor] += h.seats;
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
    if (format >= waitlist_ledger_format) s.waitlist_position = r.u32();
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
  if (format >= waitlist_ledger_format) {
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
  if (format >= ledger_format) l.longest_hold_seconds_ = r.u32();
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
