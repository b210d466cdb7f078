#include "core/notify/email_message.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <stdexcept>

#include <fmt/core.h>

#include "core/base/bytes.hpp"

namespace foyer::notify {
namespace {

constexpr std::size_t max_local_bytes = 64;  // RFC 5321 §4.5.3.1.1
constexpr std::size_t max_label_bytes = 63;  // RFC 1035 §2.3.4
constexpr std::size_t max_header_line = 78;  // RFC 5322 §2.1.1: SHOULD
constexpr std::size_t max_qp_line = 76;      // RFC 2045 §6.7 (5): MUST
// An encoded-word is at most 75 characters (RFC 2047 §2): "=?UTF-8?B?" and "?=" take 12,
// leaving 63 for base64, i.e. 15 groups of 4 for 45 bytes.
constexpr std::string_view word_open = "=?UTF-8?B?";
constexpr std::string_view word_close = "?=";
constexpr std::size_t max_word_bytes = 45;
// A word shorter than two base64 groups is not worth its 12 characters of framing.
constexpr std::size_t min_word_chars = 8;

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// RFC 5322 §3.2.3 atext.
bool is_atext(char c) { return is_alnum(c) || std::string_view("!#$%&'*+-/=?^_`{|}~").find(c) != std::string_view::npos; }

bool valid_local(std::string_view local) {
  if (local.empty() || local.size() > max_local_bytes || local.front() == '.' || local.back() == '.') return false;
  char previous = 0;
  for (char c : local) {
    if (!(is_atext(c) || (c == '.' && previous != '.'))) return false;
    previous = c;
  }
  return true;
}

bool valid_domain(std::string_view domain) {
  if (domain.empty()) return false;
  for (;;) {
    auto dot = domain.find('.');
    auto label = domain.substr(0, dot);
    if (label.empty() || label.size() > max_label_bytes || label.front() == '-' || label.back() == '-' ||
        !std::all_of(label.begin(), label.end(), [](char c) { return is_alnum(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    domain.remove_prefix(dot + 1);
  }
}

bool printable_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// What the operator named a room goes into a subject and a body: a control character there
// would break a line or a header, so it is shown as a space.
std::string shown(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return out;
}

// How many bytes of `text` an encoded-word of at most `budget` base64 characters can take,
// ending on a UTF-8 character boundary where there is one.
std::size_t word_bytes(std::string_view text, std::size_t budget) {
  std::size_t n = std::min({text.size(), max_word_bytes, budget / 4 * 3});
  std::size_t cut = n;
  while (cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut == 0 ? n : cut;
}

void append_qp_line(std::string& out, std::string_view line) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::size_t width = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    auto u = static_cast<unsigned char>(line[i]);
    bool last = i + 1 == line.size();
    bool literal = (u > 0x20 && u < 0x7f && u != '=' && !(u == '.' && width == 0)) || ((u == ' ' || u == '\t') && !last);
    std::string token = literal ? std::string(1, line[i]) : std::string{'=', hex[u >> 4], hex[u & 0xF]};
    // A soft break "=" ends every line but the last, which may use the whole width.
    std::size_t room = last ? max_qp_line : max_qp_line - 1;
    if (width + token.size() > room) {
      out += "=\r\n";
      width = 0;
      if (token == ".") token = "=2E";
    }
    out += token;
    width += token.size();
  }
  out += "\r\n";
}

}  // namespace

bool valid_address(std::string_view address) {
  if (address.size() > max_address_bytes) return false;
  auto at = address.find('@');
  if (at == std::string_view::npos || address.find('@', at + 1) != std::string_view::npos) return false;
  return valid_local(address.substr(0, at)) && valid_domain(address.substr(at + 1));
}

std::string format_email_date(std::int64_t unix_ms) {
  using namespace std::chrono;
  static constexpr std::array<std::string_view, 7> weekdays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<std::string_view, 12> months{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto tp = sys_time<milliseconds>(milliseconds(unix_ms));
  auto day = floor<days>(tp);
  year_month_day date(day);
  hh_mm_ss time(floor<seconds>(tp - day));
  return fmt::format("{}, {:02} {} {:04} {:02}:{:02}:{:02} +0000", weekdays[weekday(day).c_encoding()],
                     static_cast<unsigned>(date.day()), months[static_cast<unsigned>(date.month()) - 1],
                     static_cast<int>(date.year()), time.hours().count(), time.minutes().count(),
                     time.seconds().count());
}

std::string encode_header(std::string_view name, std::string_view value) {
  assert(name.size() + 2 + word_open.size() + word_close.size() + min_word_chars <= max_header_line);
  std::string out = fmt::format("{}:", name);
  if (printable_ascii(value) && out.size() + 1 + value.size() <= max_header_line) return fmt::format("{} {}", out, value);
  std::size_t width = out.size();
  while (!value.empty()) {
    // Each word goes after a space: on this line if it leaves room, else on a folded one.
    std::size_t overhead = width + 1 + word_open.size() + word_close.size();
    if (overhead + min_word_chars > max_header_line) {
      out += "\r\n";
      width = 0;
      continue;
    }
    std::size_t budget = max_header_line - overhead;
    auto n = word_bytes(value, budget);
    auto word = fmt::format(" {}{}{}", word_open, base64_encode(as_bytes(value.substr(0, n))), word_close);
    out += word;
    width += word.size();
    value.remove_prefix(n);
  }
  return out;
}

std::string quoted_printable(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    auto end = text.find('\n');
    auto line = text.substr(0, end);
    if (line.ends_with('\r')) line.remove_suffix(1);
    append_qp_line(out, line);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return out;
}

std::string notice_subject(const email_notice& n) {
  auto room = shown(n.room_name);
  if (n.what == email_notice::kind::turn) return fmt::format("It's your turn at {}", room);
  if (n.what == email_notice::kind::confirm) return fmt::format("Confirm notices from {}", room);
  auto minutes = std::max<std::int64_t>(n.minutes, 1);
  return fmt::format("Your turn at {} in about {} minute{}", room, minutes, minutes == 1 ? "" : "s");
}

std::string notice_text(const email_notice& n) {
  auto room = shown(n.room_name);
  auto link = shown(n.link);
  if (n.what == email_notice::kind::confirm) {
    // Nothing here comes from the request but the address it goes to.
    return fmt::format(
        "Someone waiting in {} asked to be told at this address when their turn comes.\n\nIf that was "
        "you, confirm with this link:\n\n{}\n\nIf not, ignore this email: nothing more will be sent to "
        "you for this request, and the address is forgotten when {} ends.\n",
        room, link, room);
  }
  std::string lead;
  if (n.what == email_notice::kind::turn) {
    lead = fmt::format("It's your turn at {}.\n\nGo in now with this link:\n\n{}\n", room, link);
  } else {
    auto minutes = std::max<std::int64_t>(n.minutes, 1);
    lead = fmt::format(
        "Your turn at {} comes in about {} minute{}.\n\nKeep the room's page open, or come back with this link "
        "before then:\n\n{}\n",
        room, minutes, minutes == 1 ? "" : "s", link);
  }
  return lead + fmt::format(
                    "\nYou asked for this email while waiting in {}. Your address is kept only until the room "
                    "ends, and is used for nothing else.\n",
                    room);
}

std::string build_email(const email_envelope& envelope, const email_notice& n) {
  if (!valid_address(envelope.from)) throw std::invalid_argument("email: the sender's address is not valid");
  if (!valid_address(envelope.to)) throw std::invalid_argument("email: the recipient's address is not valid");
  if (envelope.unique.empty() || envelope.unique.size() > max_local_bytes ||
      !std::all_of(envelope.unique.begin(), envelope.unique.end(), is_alnum)) {
    throw std::invalid_argument("email: the Message-ID's unique part must be 1 to 64 letters or digits");
  }
  auto domain = std::string_view(envelope.from).substr(envelope.from.find('@') + 1);
  std::string out;
  for (const auto& field : {
           // Addresses are never encoded-words; valid_address keeps them short and plain.
           fmt::format("From: {}", envelope.from),
           fmt::format("To: {}", envelope.to),
           encode_header("Subject", notice_subject(n)),
           encode_header("Date", format_email_date(envelope.date_ms)),
           fmt::format("Message-ID: <{}@{}>", envelope.unique, domain),
           // RFC 3834: no vacation replies or bounces loops for an automatic notice.
           std::string("Auto-Submitted: auto-generated"),
           std::string("MIME-Version: 1.0"),
           std::string("Content-Type: text/plain; charset=utf-8"),
           std::string("Content-Transfer-Encoding: quoted-printable"),
       }) {
    out += field;
    out += "\r\n";
  }
  out += "\r\n";
  out += quoted_printable(notice_text(n));
  return out;
}

}  // namespace foyer::notify
