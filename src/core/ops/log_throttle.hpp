#pragma once
// At most one log line per key per interval, for events that can come many times a second
// (a guard refusing every request of a misconfigured site). The first occurrence of a key
// is written at once; later ones within the interval are only counted, and the next line
// written for that key says how many were held back. Pure: the caller gives the time (a
// monotonic clock) and writes the line. Call on the event loop only.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace foyer::ops {

class log_throttle {
 public:
  // Keys beyond this many are held back whole: the caller's keys are meant to be a small
  // fixed vocabulary (error codes), so more is a bug, and memory stays bounded whatever.
  static constexpr std::size_t max_keys = 64;

  explicit log_throttle(std::int64_t interval_ms) : interval_ms_(interval_ms) {}

  // An occurrence of `key` at `now_ms`: the number held back since the last line for the
  // key if a line is to be written now, nullopt if this one is held back.
  std::optional<std::uint64_t> occur(std::string_view key, std::int64_t now_ms);

 private:
  struct state {
    std::int64_t written_ms;  // when the last line for the key was written
    std::uint64_t held = 0;   // occurrences since, not written
  };
  std::int64_t interval_ms_;
  std::map<std::string, state, std::less<>> keys_;
};

}  // namespace foyer::ops
