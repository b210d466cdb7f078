#include "core/notify/smtp_protocol.hpp"

#include <algorithm>
#include <cctype>

#include "core/base/bytes.hpp"

namespace foyer::notify {
namespace {

bool same_word(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

// The words of an EHLO line, split at spaces.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  while (!line.empty()) {
    auto space = line.find(' ');
    if (space != 0) out.push_back(line.substr(0, space));
    if (space == std::string_view::npos) break;
    line.remove_prefix(space + 1);
  }
  return out;
}

}  // namespace

reply_status take_reply(std::string& buffer, smtp_reply& out) {
  smtp_reply reply;
  std::size_t pos = 0;
  for (;;) {
    auto end = buffer.find("\r\n", pos);
    if (end == std::string::npos) {
      return buffer.size() - pos >= max_reply_line ? reply_status::malformed : reply_status::incomplete;
    }
    std::string_view line(buffer.data() + pos, end - pos);
    if (line.size() + 2 > max_reply_line || line.size() < 3 || reply.lines.size() == max_reply_lines) {
      return reply_status::malformed;
    }
    if (line[0] < '2' || line[0] > '5' || !std::isdigit(static_cast<unsigned char>(line[1])) ||
        !std::isdigit(static_cast<unsigned char>(line[2]))) {
      return reply_status::malformed;
    }
    int code = (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
    if (!reply.lines.empty() && code != reply.code) return reply_status::malformed;
    reply.code = code;
    // "NNN" alone ends a reply too (RFC 5321 §4.2: the text is optional).
    char separator = line.size() > 3 ? line[3] : ' ';
    if (separator != ' ' && separator != '-') return reply_status::malformed;
    reply.lines.emplace_back(line.substr(std::min<std::size_t>(line.size(), 4)));
    pos = end + 2;
    if (separator == ' ') break;
  }
  buffer.erase(0, pos);
  out = std::move(reply);
  return reply_status::complete;
}

bool offers(const smtp_reply& ehlo, std::string_view keyword) {
  // The first line greets; the extensions follow, one a line.
  for (std::size_t i = 1; i < ehlo.lines.size(); ++i) {
    auto w = words(ehlo.lines[i]);
    if (!w.empty() && same_word(w.front(), keyword)) return true;
  }
  return false;
}

bool offers_auth(const smtp_reply& ehlo, std::string_view mechanism) {
  for (std::size_t i = 1; i < ehlo.lines.size(); ++i) {
    auto w = words(ehlo.lines[i]);
    if (w.empty() || !same_word(w.front(), "AUTH")) continue;
    if (std::any_of(w.begin() + 1, w.end(), [&](std::string_view m) { return same_word(m, mechanism); })) return true;
  }
  return false;
}

std::string auth_plain(std::string_view user, std::string_view password) {
  std::string credentials;
  credentials += '\0';
  credentials += user;
  credentials += '\0';
  credentials += password;
  return base64_encode(as_bytes(credentials));
}

std::string data_of(std::string_view message) {
  std::string out;
  out.reserve(message.size() + message.size() / 32 + 8);
  bool line_start = true;
  for (std::size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    if (c == '\r' || c == '\n') {
      out += "\r\n";
      if (c == '\r' && i + 1 < message.size() && message[i + 1] == '\n') ++i;
      line_start = true;
      continue;
    }
    if (line_start && c == '.') out += '.';
    out += c;
    line_start = false;
  }
  if (!line_start) out += "\r\n";
  out += ".\r\n";
  return out;
}

}  // namespace foyer::notify
