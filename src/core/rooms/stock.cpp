#include "core/rooms/stock.hpp"

#include <algorithm>

namespace foyer {

void stock_ledger::retotal(std::optional<std::uint64_t> before, std::optional<std::uint64_t> after) {
  if (before == after) return;
  if (!after || !before || !remaining_) {
    remaining_ = after;
    return;
  }
  if (*after >= *before) {
    remaining_ = *remaining_ + (*after - *before);
  } else {
    remaining_ = *remaining_ - std::min(*remaining_, *before - *after);
  }
}

const stock_receipt* stock_ledger::receipt(std::string_view key) const {
  auto it = receipts_.find(key_digest(key));
  return it == receipts_.end() ? nullptr : &it->second;
}

void stock_ledger::count(const stock_reported& e) {
  switch (e.kind) {
    case stock_change::remaining: remaining_ = e.amount; break;
    case stock_change::consumed:
      if (remaining_) remaining_ = *remaining_ - std::min(*remaining_, e.amount);
      break;
    case stock_change::released:
      if (remaining_) remaining_ = *remaining_ + e.amount;
      break;
  }
}

void stock_ledger::record(const stock_reported& e, room_state state) {
  while (!key_order_.empty() && key_order_.front().first < e.at_ms - stock_key_retention_ms) {
    receipts_.erase(key_order_.front().second);
    key_order_.pop_front();
  }
  auto digest = key_digest(e.key);
  receipts_.emplace(digest, stock_receipt{e.kind, e.amount, remaining_, state, e.at_ms});
  key_order_.emplace_back(e.at_ms, digest);
}

void stock_ledger::encode(writer& w) const {
  w.u8(remaining_.has_value());
  w.u64(remaining_.value_or(0));
  // In the order the keys came: the order pruning needs, and the same bytes for equal ledgers.
  w.u64(key_order_.size());
  for (const auto& [at, digest] : key_order_) {
    const auto& s = receipts_.at(digest);
    w.raw(digest);
    w.u8(static_cast<std::uint8_t>(s.kind));
    w.u64(s.amount);
    w.u8(s.remaining.has_value());
    w.u64(s.remaining.value_or(0));
    w.u8(static_cast<std::uint8_t>(s.state));
    w.i64(s.at_ms);
  }
}

bool stock_ledger::decode(reader& r) {
  stock_ledger l;
  bool known = r.u8() != 0;
  auto remaining = r.u64();
  if (known) l.remaining_ = remaining;
  auto count = r.u64();
  for (std::uint64_t i = 0; i < count && !r.failed(); ++i) {
    auto digest = r.raw<16>();
    stock_receipt s;
    auto kind = r.u8();
    s.amount = r.u64();
    bool has_remaining = r.u8() != 0;
    auto left = r.u64();
    auto state = r.u8();
    s.at_ms = r.i64();
    if (kind > static_cast<std::uint8_t>(stock_change::remaining) ||
        state > static_cast<std::uint8_t>(room_state::closed)) {
      return false;
    }
    s.kind = static_cast<stock_change>(kind);
    s.state = static_cast<room_state>(state);
    if (has_remaining) s.remaining = left;
    l.receipts_.emplace(digest, s);
    l.key_order_.emplace_back(s.at_ms, digest);
  }
  if (r.failed()) return false;
  *this = std::move(l);
  return true;
}

}  // namespace foyer
