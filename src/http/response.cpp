#include "http/response.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

#include <boost/beast/core/string.hpp>

namespace foyer::http {

namespace bhttp = boost::beast::http;

namespace {
// An API answer's three fields and a ticket's Set-Cookie (about 350 bytes) fit.
constexpr std::size_t api_fields_bytes = 512;
}  // namespace

bool is_field_name(std::string_view name) {
  constexpr std::string_view symbols = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           symbols.find(c) != std::string_view::npos;
  });
}

bool is_field_value(std::string_view value) {
  return std::none_of(value.begin(), value.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\t') || byte == 0x7f;
  });
}

response response::json(status code, unsigned version, std::string body) {
  response res{code, version};
  // One constant instead of three `set`s: every API answer carries these fields. Room for
  // the few an answer adds (a cookie, Retry-After, Location) in the same allocation.
  res.fields_.reserve(api_fields_bytes);
  res.fields_ = "Content-Type: application/json\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
  res.body_ = std::move(body);
  return res;
}

void response::set(bhttp::field name, std::string_view value) {
  set(bhttp::to_string(name), value);
}

void response::set(std::string_view name, std::string_view value) {
  set_parts(name, {value});
}

void response::set_parts(bhttp::field name, std::initializer_list<std::string_view> parts) {
  set_parts(bhttp::to_string(name), parts);
}

void response::set_parts(std::string_view name, std::initializer_list<std::string_view> parts) {
  // Only a name known to be a token goes into the message: either may be a client's bytes.
  if (!is_field_name(name)) throw std::invalid_argument("response: a field name is not an RFC 9110 token");
  if (!std::all_of(parts.begin(), parts.end(), is_field_value)) {
    throw std::invalid_argument("response: the value of field " + std::string(name) +
                                " holds a control character (CR, LF, NUL or another)");
  }
  erase(name);
  fields_.append(name).append(": ");
  for (auto part : parts) fields_.append(part);
  fields_.append("\r\n");
}

void response::erase(std::string_view name) {
  std::string_view all = fields_;
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = all.find("\r\n", at) + 2;
    auto line = all.substr(at, end - at);
    if (line.size() > name.size() && line[name.size()] == ':' && boost::beast::iequals(line.substr(0, name.size()), name)) {
      fields_.erase(at, end - at);
      return;
    }
    at = end;
  }
}

void response::serialize(std::string& out) const {
  auto code = result_int();
  auto reason = bhttp::obsolete_reason(status_);
  out.clear();
  out.append(version_ == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  char digits[20];
  char* end = std::to_chars(digits, digits + sizeof digits, code).ptr;
  out.append(digits, end).append(" ").append(reason.data(), reason.size()).append("\r\n");
  out.append(fields_);
  // No body and no length for 1xx, 204 and 304 (RFC 9110, 8.6 and 6.4.1).
  bool has_body = code >= 200 && code != 204 && code != 304;
  if (has_body) {
    end = std::to_chars(digits, digits + sizeof digits, content_length_.value_or(body_.size())).ptr;
    out.append("Content-Length: ").append(digits, end).append("\r\n");
  }
  // HTTP/1.1 keeps a connection unless told; HTTP/1.0 closes it unless told.
  if (version_ == 10 && keep_alive_) out.append("Connection: keep-alive\r\n");
  if (version_ != 10 && !keep_alive_) out.append("Connection: close\r\n");
  out.append("\r\n");
  if (has_body) out.append(body_);
}

}  // namespace foyer::http
