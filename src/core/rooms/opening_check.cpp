#include "core/rooms/opening_check.hpp"

#include <fmt/format.h>

#include "core/base/time_text.hpp"

namespace foyer {

std::optional<field_problem> check_opening(const std::optional<std::int64_t>& was,
                                           const std::optional<std::int64_t>& opens_at, std::int64_t now_ms,
                                           past_opening rule) {
  if (rule == past_opening::accept || !opens_at || opens_at == was) return std::nullopt;
  if (*opens_at >= now_ms + min_opening_lead_ms) return std::nullopt;
  return field_problem{
      "opens_at",
      fmt::format("{} is {} (now is {}): the room would open first come, first served, without its lottery. "
                  "Set a time at least {} s ahead, or say you mean it with {} = \"{}\"",
                  format_rfc3339_ms(*opens_at), *opens_at <= now_ms ? "in the past" : "less than a minute away",
                  format_rfc3339_ms(now_ms), min_opening_lead_ms / 1000, past_opening_key, past_opening_accept)};
}

}  // namespace foyer
