#pragma once
// RFC 3339 date-times as text, for what crosses the process boundary: a room's opening
// time in the admin API, and the audit trail's `at`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace foyer {

// "2026-12-01T10:00:00+05:30", "2026-12-01T04:30:00.250Z": unix milliseconds. An offset
// (or Z) is required: a time without one means something else in every time zone.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text);

// Unix milliseconds as UTC text with milliseconds: "2026-12-01T04:30:00.250Z".
std::string format_rfc3339_ms(std::int64_t ms);

}  // namespace foyer
