#pragma once
// The stock the site reports, and the Idempotency-Keys its reports came with: a retry
// is answered from the first report and counts nothing twice. Keys are kept a day.

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/base/codec.hpp"
#include "core/rooms/claims.hpp"
#include "core/rooms/event.hpp"

namespace foyer {

inline constexpr std::int64_t stock_key_retention_ms = 25 * 3600 * 1000;

// The first report under a key, and what it answered.
struct stock_receipt {
  stock_change kind = stock_change::remaining;
  std::uint64_t amount = 0;
  std::optional<std::uint64_t> remaining;
  room_state state = room_state::open;
  std::int64_t at_ms = 0;
};

class stock_ledger {
 public:
  // Unknown until the room has a stock setting or the site reports what remains.
  std::optional<std::uint64_t> remaining() const { return remaining_; }
  // The operator changed the stock setting: what remains moves by as much.
  void retotal(std::optional<std::uint64_t> before, std::optional<std::uint64_t> after);
  const stock_receipt* receipt(std::string_view key) const;
  // Counts a report whose key is new; the room then records what it answered.
  void count(const stock_reported& e);
  void record(const stock_reported& e, room_state state);

  void encode(writer& w) const;
  bool decode(reader& r);

 private:
  std::optional<std::uint64_t> remaining_;
  std::unordered_map<id16, stock_receipt, id16_hash> receipts_;  // by digest of the key
  std::deque<std::pair<std::int64_t, id16>> key_order_;  // (at, key digest), oldest first
};

}  // namespace foyer
