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

// Bytes that are not written as they are: those JSON escapes, and the start of every
// multi-byte sequence, checked to be UTF-8.
constexpr std::array<bool, 256> special = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  for (int c = 0x80; c < 0x100; ++c) t[c] = true;
  t['"'] = t['\\'] = true;
  return t;
}();

bool is_special(char c) { return special[static_cast<unsigned char>(c)]; }

// The length of the well-formed UTF-8 sequence at the start of s (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0.
std::size_t utf8_length(std::string_view s) {
  auto byte = [&](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  auto tail = [&](std::size_t i) { return (byte(i) & 0xc0) == 0x80; };
  unsigned lead = byte(0);
  if (lead >= 0xc2 && lead <= 0xdf) return tail(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    unsigned second = byte(1);
    if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f)) return 0;
    return tail(1) && tail(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    unsigned second = byte(1);
    if ((lead == 0xf0 && second < 0x90) || (lead == 0xf4 && second > 0x8f)) return 0;
    return tail(1) && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

// Appends s quoted: unescaped runs go in whole, since almost every string is one run. A
// byte that is not part of valid UTF-8 becomes U+FFFD, so that the text is always JSON
// whatever a client sent.
void append_quoted(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (!is_special(c)) continue;
    if (static_cast<unsigned char>(c) >= 0x80) {
      if (auto n = utf8_length(s.substr(i)); n != 0) {
        i += n - 1;
        continue;
      }
    }
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x80) {
          out += "\\ufffd";
        } else {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        }
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

json_object& json_object::hex(std::string_view key, byte_view bytes) {
  return str_written(key, [bytes](std::string& out) { append_hex(out, bytes); });
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
