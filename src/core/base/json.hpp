#pragma once
// Writing JSON objects field by field; reading is simdjson's job.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/bytes.hpp"

namespace foyer {

// s as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

// A JSON array of string literals.
std::string json_string_list(const std::vector<std::string>& items);

// Keys are the caller's own names (never input) and are written as they are.
class json_object {
 public:
  // Room for a typical answer up front: growing a string by doubling costs more than it.
  json_object() { out_.reserve(256); }

  json_object& str(std::string_view key, std::string_view value);
  json_object& num(std::string_view key, std::int64_t value);
  json_object& num(std::string_view key, std::uint64_t value);
  json_object& num(std::string_view key, std::uint32_t value) { return num(key, std::uint64_t{value}); }
  // A finite fraction, in its shortest form that reads back the same.
  json_object& fraction(std::string_view key, double value);
  json_object& boolean(std::string_view key, bool value);
  json_object& null(std::string_view key);
  // A value that is already JSON text.
  json_object& raw(std::string_view key, std::string_view json);
  // Bytes as a string of lowercase hex.
  json_object& hex(std::string_view key, byte_view bytes);
  // A string whose text `write(out)` appends as it is: text that needs no escaping
  // (base64url, hex), written in place rather than copied.
  template <class Write>
  json_object& str_written(std::string_view key, Write write) {
    auto& out = field(key);
    out.push_back('"');
    write(out);
    out.push_back('"');
    return *this;
  }
  json_object& opt_str(std::string_view key, const std::optional<std::string>& value);
  json_object& opt_num(std::string_view key, const std::optional<std::uint64_t>& value);
  // Closes the object and hands its text over.
  std::string done();

 private:
  std::string& field(std::string_view key);
  std::string out_ = "{";
};

}  // namespace foyer
