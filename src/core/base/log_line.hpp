#pragma once
// A log event as one line of JSON, which journald and log shippers take as it is:
// {"ts":"2026-12-01T04:30:00.250Z","level":"info","msg":"...", then the fields}.
// Writing the line is the caller's I/O (app/log.hpp).

#include <concepts>
#include <cstdint>
#include <vector>
#include <string>
#include <string_view>

#include "core/base/json.hpp"

namespace foyer {

// A field of a log event: its key (the caller's own name) and its value as JSON.
struct log_field {
  log_field(std::string_view k, std::string_view text) : key(k), json(json_quote(text)) {}
  log_field(std::string_view k, const char* text) : log_field(k, std::string_view(text)) {}
  log_field(std::string_view k, const std::string& text) : log_field(k, std::string_view(text)) {}
  template <std::integral T>
  log_field(std::string_view k, T n) : key(k), json(std::to_string(n)) {}

  std::string_view key;
  std::string json;
};

// The line, without its newline. `unix_ms` is the wall clock.
std::string log_line(std::int64_t unix_ms, std::string_view level, std::string_view msg,
                     const std::vector<log_field>& fields);

}  // namespace foyer
