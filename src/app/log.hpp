#pragma once
// Foyer's log: one JSON line per event on stderr (core/base/log_line.hpp), which journald
// takes as it is. The message keeps the words a person reads; fields carry the values.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/log_line.hpp"

namespace foyer::app::log {

void info(std::string_view msg, const std::vector<log_field>& fields = {});
void warn(std::string_view msg, const std::vector<log_field>& fields = {});
void error(std::string_view msg, const std::vector<log_field>& fields = {});

// An error that may come many times a second (a room's admission step fails at every
// tick while the disk is full) is logged once per interval: the first at once, then, while
// it goes on, one line an interval later with `repeated`, how many came since the last
// line. A key quiet for a whole interval starts afresh. Call on the event loop only.
class repeated_errors {
 public:
  explicit repeated_errors(std::int64_t interval_ms) : interval_ms_(interval_ms) {}
  // An occurrence of the error `key` at `now_ms` (the rooms' clock), described by the
  // latest `msg` and `fields`.
  void error(const std::string& key, std::int64_t now_ms, std::string msg, std::vector<log_field> fields);
  // Writes the counts whose interval is over; call about as often as the errors may come.
  void flush(std::int64_t now_ms);

 private:
  struct pending {
    std::int64_t since_ms;  // the last line written for the key
    std::uint64_t count = 0;
    std::string msg;
    std::vector<log_field> fields;
  };
  std::int64_t interval_ms_;
  std::map<std::string, pending, std::less<>> pending_;
};

}  // namespace foyer::app::log
