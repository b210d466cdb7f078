#include "core/json.hpp"

#include <fmt/core.h>

namespace foyer {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

std::string& json_object::field(std::string_view key) {
  if (out_.size() > 1) out_.push_back(',');
  out_ += json_quote(key);
  out_.push_back(':');
  return out_;
}

json_object& json_object::str(std::string_view key, std::string_view value) {
  field(key) += json_quote(value);
  return *this;
}

json_object& json_object::num(std::string_view key, std::int64_t value) {
  field(key) += std::to_string(value);
  return *this;
}

json_object& json_object::num(std::string_view key, std::uint64_t value) {
  field(key) += std::to_string(value);
  return *this;
}

json_object& json_object::boolean(std::string_view key, bool value) {
  field(key) += value ? "true" : "false";
  return *this;
}

json_object& json_object::null(std::string_view key) {
  field(key) += "null";
  return *this;
}

json_object& json_object::raw(std::string_view key, std::string_view json) {
  field(key) += json;
  return *this;
}

json_object& json_object::opt_str(std::string_view key, const std::optional<std::string>& value) {
  return value ? str(key, *value) : null(key);
}

json_object& json_object::opt_num(std::string_view key, const std::optional<std::uint64_t>& value) {
  return value ? num(key, *value) : null(key);
}

std::string json_object::done() {
  out_.push_back('}');
  return std::move(out_);
}

}  // namespace foyer
