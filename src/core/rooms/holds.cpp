#include "core/rooms/holds.hpp"

#include <algorithm>

namespace foyer {
namespace {

constexpr auto last_hold_state = static_cast<std::uint8_t>(hold_state::refund_required);
constexpr auto last_reason = static_cast<std::uint8_t>(refund_reason::late_success_after_grace);
constexpr auto last_action = static_cast<std::uint8_t>(hold_action::release);

}  // namespace

std::string_view to_string(hold_state state) {
  switch (state) {
    case hold_state::held: return "held";
    case hold_state::confirmed: return "confirmed";
    case hold_state::released: return "released";
    case hold_state::expired: return "expired";
    case hold_state::refund_required: return "refund_required";
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

void seat_ledger::retotal(const std::optional<inventory_settings>& settings) {
  settings_ = settings;
  total_ = settings ? settings->total : 0;
  auto taken = held_ + confirmed_;
  available_ = total_ >= taken ? total_ - taken : 0;
  check();
}

void seat_ledger::check() {
  if (available_ + held_ + confirmed_ != total_) frozen_ = true;
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
  h.state = state;
  h.ended_ms = at_ms;
  held_ -= h.seats;
  available_ += h.seats;
  ended_.emplace_back(at_ms, hold_id);
}

bool seat_ledger::apply(const hold_placed& e) {
  if (!settings_ || frozen_ || receipt(e.key) || holds_.contains(e.hold)) return false;
  if (e.seats == 0 || e.seats > settings_->max_seats_per_hold) return false;
  prune(e.at_ms);
  auto earlier = live_hold_of(e.visitor);
  std::uint64_t freed = 0;
  if (earlier) {
    if (settings_->second == second_hold::refuse) return false;
    freed = holds_.at(*earlier).seats;
  }
  // All or nothing: the earlier hold goes only if the new one can take its place.
  if (available_ + freed < e.seats) return false;
  if (earlier) end(*earlier, holds_.at(*earlier), hold_state::released, e.at_ms);
  hold h{e.visitor, e.seats, hold_state::held, e.at_ms + std::int64_t{settings_->hold_seconds} * 1000};
  held_ += e.seats;
  available_ -= e.seats;
  holds_.emplace(e.hold, h);
  live_by_visitor_.emplace(e.visitor, e.hold);
  live_by_expiry_.emplace(h.expires_ms, e.hold);
  record(e.key, {hold_action::place, e.hold, e.visitor, e.seats, hold_state::held, h.expires_ms, refund_reason::none, e.at_ms});
  check();
  return true;
}

void seat_ledger::apply(const hold_extended& e) {
  auto it = holds_.find(e.hold);
  if (!settings_ || frozen_ || receipt(e.key) || it == holds_.end()) return;
  hold& h = it->second;
  if (h.state != hold_state::held || h.extended || e.at_ms >= h.expires_ms) return;
  prune(e.at_ms);
  live_by_expiry_.erase({h.expires_ms, e.hold});
  h.expires_ms += std::int64_t{settings_->extension_seconds} * 1000;
  h.extended = true;
  live_by_expiry_.emplace(h.expires_ms, e.hold);
  record(e.key, {hold_action::extend, e.hold, h.visitor, h.seats, h.state, h.expires_ms, refund_reason::none, e.at_ms});
}

void seat_ledger::apply(const hold_confirmed& e) {
  auto it = holds_.find(e.hold);
  if (!settings_ || frozen_ || receipt(e.key) || it == holds_.end()) return;
  prune(e.at_ms);
  hold& h = it->second;
  switch (h.state) {
    case hold_state::held:
      // Its seats are still its own, even past its time while the sweep is on its way.
      live_by_expiry_.erase({h.expires_ms, e.hold});
      live_by_visitor_.erase(h.visitor);
      held_ -= h.seats;
      confirmed_ += h.seats;
      h.state = hold_state::confirmed;
      break;
    case hold_state::released:
    case hold_state::expired:
      // A late success: the seats again if they are free, else a refund. Never neither.
      if (e.at_ms > h.ended_ms + std::int64_t{settings_->late_grace_seconds} * 1000) {
        h.state = hold_state::refund_required;
        h.reason = refund_reason::late_success_after_grace;
      } else if (available_ >= h.seats) {
        available_ -= h.seats;
        confirmed_ += h.seats;
        h.state = hold_state::confirmed;
      } else {
        h.state = hold_state::refund_required;
        h.reason = refund_reason::late_success_no_seat;
      }
      break;
    case hold_state::confirmed:
    case hold_state::refund_required: break;
  }
  record(e.key, {hold_action::confirm, e.hold, h.visitor, h.seats, h.state, h.expires_ms, h.reason, e.at_ms});
  check();
}

void seat_ledger::apply(const hold_released& e) {
  auto it = holds_.find(e.hold);
  if (!settings_ || frozen_ || receipt(e.key) || it == holds_.end()) return;
  hold& h = it->second;
  // A confirmed hold is not released: the request answers as the hold is.
  if (h.state == hold_state::confirmed || h.state == hold_state::refund_required) return;
  prune(e.at_ms);
  if (h.state == hold_state::held) end(e.hold, h, hold_state::released, e.at_ms);
  record(e.key, {hold_action::release, e.hold, h.visitor, h.seats, h.state, h.expires_ms, refund_reason::none, e.at_ms});
  check();
}

void seat_ledger::apply(const holds_expired& e) {
  if (!settings_ || frozen_) return;
  prune(e.at_ms);
  for (const auto& id : e.holds) {
    auto it = holds_.find(id);
    if (it == holds_.end() || it->second.state != hold_state::held || it->second.expires_ms > e.at_ms) continue;
    // The late grace counts from the hold's time, not from the sweep.
    end(id, it->second, hold_state::expired, it->second.expires_ms);
  }
  check();
}

void seat_ledger::encode(writer& w) const {
  w.u64(total_);
  w.u64(available_);
  w.u64(held_);
  w.u64(confirmed_);
  w.u8(frozen_);
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
  }
}

bool seat_ledger::decode(reader& r, const std::optional<inventory_settings>& settings) {
  seat_ledger l;
  l.settings_ = settings;
  l.total_ = r.u64();
  l.available_ = r.u64();
  l.held_ = r.u64();
  l.confirmed_ = r.u64();
  l.frozen_ = r.u8() != 0;
  std::uint64_t held = 0, confirmed = 0;
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
    if (state > last_hold_state || reason > last_reason) return false;
    h.state = static_cast<hold_state>(state);
    h.reason = static_cast<refund_reason>(reason);
    if (h.state == hold_state::held) {
      held += h.seats;
      l.live_by_visitor_.emplace(h.visitor, id);
      l.live_by_expiry_.emplace(h.expires_ms, id);
    } else if (h.state == hold_state::confirmed) {
      confirmed += h.seats;
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
    if (action > last_action || state > last_hold_state || reason > last_reason) return false;
    s.action = static_cast<hold_action>(action);
    s.state = static_cast<hold_state>(state);
    s.reason = static_cast<refund_reason>(reason);
    l.receipts_.emplace(digest, s);
    l.key_order_.emplace_back(s.at_ms, digest);
  }
  if (r.failed()) return false;
  // After recovery the counters must agree with the holds they count.
  if (held != l.held_ || confirmed != l.confirmed_ || l.total_ != (settings ? settings->total : 0)) l.frozen_ = true;
  l.check();
  *this = std::move(l);
  return true;
}

}  // namespace foyer
