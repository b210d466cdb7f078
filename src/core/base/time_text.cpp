#include "core/base/time_text.hpp"

#include <chrono>

#include <fmt/format.h>

namespace foyer {
namespace {

// Reads exactly `width` digits at `pos`.
std::optional<int> digits(std::string_view s, std::size_t pos, std::size_t width) {
  if (pos + width > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339_ms(std::string_view s) {
  using namespace std::chrono;
  auto year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  auto hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                      std::chrono::day{static_cast<unsigned>(*day)}};
  // 60 is a leap second, which unix time folds into the next.
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  std::size_t pos = 19;
  std::int64_t millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    std::size_t first = ++pos;
    for (std::int64_t scale = 100; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, scale /= 10) {
      millis += (s[pos] - '0') * scale;
    }
    if (pos == first) return std::nullopt;
  }
  std::int64_t offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else {
    auto h = digits(s, pos + 1, 2), m = digits(s, pos + 4, 2);
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-') || !h || !m || s[pos + 3] != ':' || *h > 23 || *m > 59) {
      return std::nullopt;
    }
    offset_minutes = (*h * 60 + *m) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  }
  if (pos != s.size()) return std::nullopt;
  std::int64_t days = sys_days(date).time_since_epoch().count();
  return ((days * 24 + *hour) * 60 + *minute - offset_minutes) * 60'000 + *second * 1000LL + millis;
}

std::string format_rfc3339_ms(std::int64_t ms) {
  using namespace std::chrono;
  auto tp = sys_time<milliseconds>(milliseconds(ms));
  auto day = floor<days>(tp);
  year_month_day date(day);
  hh_mm_ss time(tp - day);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), time.hours().count(),
                     time.minutes().count(), time.seconds().count(), time.subseconds().count());
}

}  // namespace foyer
