#include "core/rooms/site_reports.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace foyer {

bool valid_idempotency_key(std::string_view key) {
  if (key.empty() || key.size() > 255) return false;
  for (unsigned char c : key) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

stock_decision stock_answer(const room& r, std::string_view key, const stock_report& report) {
  const stock_receipt* first = r.stock_receipt_of(key);
  if (!first) return desk_refusal{errc::internal_error, "The stock report was not recorded."};
  if (first->kind != report.kind || first->amount != report.amount) {
    return desk_refusal{errc::idempotency_key_reused,
                        fmt::format("This Idempotency-Key was first used for {{\"{}\": {}}}; use a new key for a new report.",
                                    to_string(first->kind), first->amount)};
  }
  return *first;
}

stock_decision decide_stock(const room& r, std::string_view key, const stock_report& report, std::int64_t now_ms) {
  if (r.stock_receipt_of(key)) {
    return stock_answer(r, key, report);
  }
  if (report.kind != stock_change::remaining && !r.stock_remaining()) {
    return desk_refusal{errc::stock_unknown,
                        "The room has no stock yet: set its stock setting, or report {\"remaining\": n} first."};
  }
  return stock_reported{r.config().id, report.kind, report.amount, std::string(key), now_ms};
}

std::optional<passes_done> decide_done(const room& r, const std::vector<id16>& passes, std::int64_t now_ms) {
  passes_done done{r.config().id, {}, now_ms};
  for (const auto& pass : passes) {
    auto place = r.place_of_pass(pass);
    // Live, or its slot taken over by a hold: either way the pass is still accepted.
    if (place && r.pass_usable(*place, now_ms)) done.places.push_back(*place);
  }
  if (done.places.empty()) return std::nullopt;
  // A pass named twice is one pass done.
  std::sort(done.places.begin(), done.places.end());
  done.places.erase(std::unique(done.places.begin(), done.places.end()), done.places.end());
  return done;
}

}  // namespace foyer
