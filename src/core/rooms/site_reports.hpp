#pragma once
// The site's reports, decided here: the handler reads the body, asks, writes the event it
// is given, and answers from the room as the log left it.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/desk.hpp"
#include "core/rooms/room.hpp"

namespace foyer {

struct stock_report {
  stock_change kind = stock_change::remaining;
  std::uint64_t amount = 0;
};

// An Idempotency-Key as the site may send it: 1 to 255 visible ASCII characters.
bool valid_idempotency_key(std::string_view key);

// A retry is answered from the first report's receipt; a new key's report is an event to
// write; the same key with another report, or a change to a stock nobody set, is refused.
using stock_decision = step<stock_receipt, stock_reported>;
stock_decision decide_stock(const room& r, std::string_view key, const stock_report& report, std::int64_t now_ms);
// The answer to give once the log applied the report under `key`.
stock_decision stock_answer(const room& r, std::string_view key, const stock_report& report);

// The passes reported done that are live now; nothing to write if none is.
std::optional<passes_done> decide_done(const room& r, const std::vector<id16>& passes, std::int64_t now_ms);

}  // namespace foyer
