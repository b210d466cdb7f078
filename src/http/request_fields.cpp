#include "http/request_fields.hpp"

#include <algorithm>
#include <charconv>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>

#include "core/base/bytes.hpp"

namespace foyer::http {
namespace {

namespace bhttp = beast::http;

// Calls f(name, value) for each '&'-separated pair of a query string until f returns true.
template <typename F>
void for_each_pair(std::string_view query, F f) {
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    auto eq = pair.find('=');
    if (f(pair.substr(0, eq), eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), pair)) return;
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
}

// Calls f(value) for each cookie called `name`, in the order sent, until f returns true.
template <typename F>
void for_each_cookie(const request& req, std::string_view name, F f) {
  // Fields are walked comparing their codes: Beast's find compares names as case-folded
  // text, which costs more than the walk over the few fields a request has.
  for (const auto& field : req) {
    if (field.name() != bhttp::field::cookie) continue;
    std::string_view all = field.value();
    while (!all.empty()) {
      auto semi = all.find(';');
      auto pair = all.substr(0, semi);
      while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
      auto eq = pair.find('=');
      if (eq != std::string_view::npos && pair.substr(0, eq) == name && f(pair.substr(eq + 1))) return;
      all = semi == std::string_view::npos ? std::string_view() : all.substr(semi + 1);
    }
  }
}

}  // namespace

std::string_view trim_ows(std::string_view text) {
  auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string_view> cookies(const request& req, std::string_view name, std::size_t max_count) {
  std::vector<std::string_view> out;
  if (max_count == 0) return out;
  for_each_cookie(req, name, [&](std::string_view value) {
    out.push_back(value);
    return out.size() == max_count;
  });
  return out;
}

std::optional<std::string_view> cookie(const request& req, std::string_view name) {
  std::optional<std::string_view> out;
  for_each_cookie(req, name, [&](std::string_view value) {
    out = value;
    return true;
  });
  return out;
}

bool from_own_origin(const request& req, std::string_view origin) {
  if (auto site = req.find("Sec-Fetch-Site"); site != req.end()) {
    auto v = site->value();
    return v == "same-origin" || v == "none";
  }
  auto from = req.find(bhttp::field::origin);
  return from == req.end() || from->value() == origin;
}

std::optional<std::string_view> bearer(const request& req) {
  auto it = std::find_if(req.begin(), req.end(), [](const auto& f) { return f.name() == bhttp::field::authorization; });
  if (it == req.end()) return std::nullopt;
  // RFC 9110 §11.4: the scheme in any case, then one or more spaces before the token.
  std::string_view v = it->value();
  constexpr std::string_view scheme = "bearer";
  if (v.size() <= scheme.size() || !beast::iequals(v.substr(0, scheme.size()), scheme) || v[scheme.size()] != ' ') {
    return std::nullopt;
  }
  auto token = trim_ows(v.substr(scheme.size()));
  if (token.empty()) return std::nullopt;
  return token;
}

std::optional<std::string_view> query_param(std::string_view target, std::string_view name) {
  auto q = target.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  std::optional<std::string_view> out;
  for_each_pair(target.substr(q + 1), [&](std::string_view key, std::string_view value, std::string_view) {
    if (key == name) out = value;
    return out.has_value();
  });
  return out;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] != '%') {
      out.push_back(text[i]);
    } else {
      // Two hex digits exactly: from_hex_into refuses a short or non-hex escape.
      std::uint8_t byte = 0;
      if (!from_hex_into(text.substr(i + 1, 2), std::span(&byte, 1))) return std::nullopt;
      out.push_back(static_cast<char>(byte));
      i += 2;
    }
  }
  return out;
}

std::string without_query_param(std::string_view target, std::string_view name) {
  auto q = target.find('?');
  std::string out(target.substr(0, q));
  if (q == std::string_view::npos) return out;
  std::string query;
  for_each_pair(target.substr(q + 1), [&](std::string_view key, std::string_view, std::string_view pair) {
    if (key != name && !pair.empty()) {
      query += query.empty() ? "" : "&";
      query += pair;
    }
    return false;
  });
  if (!query.empty()) out += "?" + query;
  return out;
}

}  // namespace foyer::http
