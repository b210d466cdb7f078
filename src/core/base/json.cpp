#include "core/base/json.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace foyer {

namespace {

template <typename Integer>
void append_number(std::string& out, Integer value) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

constexpr std::array<bool, 256> escaped = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  t['"'] = t['\\'] = true;
  return t;
}();

bool needs_escape(char c) { return escaped[static_cast<unsigned char>(c)]; }

// Appends s quoted: unescaped runs go in whole, since almost every string is one run.
void append_quoted(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (!needs_escape(c)) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

}  // namespace

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_quoted(out, s);
  return out;
}

std::string& json_object::field(std::string_view key) {
  if (out_.size() > 1) out_.push_back(',');
  // Keys are the code's own names, never input: they need no escaping.
  out_.push_back('"');
  out_.append(key).append("\":");
  return out_;
}

json_object& json_object::str(std::string_view key, std::string_view value) {
  append_quoted(field(key), value);
  return *this;
}

json_object& json_object::num(std::string_view key, std::int64_t value) {
  append_number(field(key), value);
  return *this;
}

json_object& json_object::num(std::string_view key, std::uint64_t value) {
  append_number(field(key), value);
  return *this;
}

json_object& json_object::fraction(std::string_view key, double value) {
  field(key) += fmt::format("{}", value);
  return *this;
}

std::string json_string_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) {
    if (out.size() > 1) out += ',';
    out += json_quote(item);
  }
  return out + "]";
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
