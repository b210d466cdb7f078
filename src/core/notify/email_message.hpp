#pragma once
// The "your turn" email: a visitor's address checked before anything is sent to it, and
// the RFC 5322 message of a notice, ready for SMTP DATA: CRLF line ends, the subject in lines
// of at most 78 characters, the body quoted-printable UTF-8 in lines of at most 76 (only an
// address of near 254 bytes makes a longer header line, well under the 998 allowed). Pure:
// the time and the Message-ID's unique part are given by the caller.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace foyer::notify {

// RFC 5321 §4.5.3.1.3: a path is at most 256 octets, two of them the angle brackets.
inline constexpr std::size_t max_address_bytes = 254;

// Whether `address` is a plain ASCII mailbox "local@domain" that can go into an SMTP command
// and a header as it is: at most 254 bytes, one '@', a dot-atom local part of at most 64
// bytes (RFC 5322 atext and single dots), and a domain of dot-separated labels of letters,
// digits and inner hyphens. Quoted local parts, address literals and non-ASCII addresses
// (which need SMTPUTF8) are refused, and so is anything with a space, a control character
// (CR, LF, NUL...), '<', '>', ',' or ':' that could add a header, a recipient or a command.
bool valid_address(std::string_view address);

struct email_notice {
  enum class kind {
    soon,  // "your turn in about `minutes` minutes"
    turn,  // "it's your turn"
    confirm,  // "confirm notices to this address": `link` is the confirmation link
  } what = kind::turn;
  std::string room_name;  // UTF-8; control characters are shown as spaces
  std::int64_t minutes = 0;  // for `soon`: at least 1 is said
  std::string link;          // where the visitor goes back to the room (the resume link)
};

struct email_envelope {
  std::string from;  // the operator's address (valid_address)
  std::string to;    // the visitor's address (valid_address)
  std::int64_t date_ms = 0;  // the Date header's time, unix milliseconds
  // The Message-ID's unique part: letters and digits only (e.g. random hex); its domain is
  // the sender's.
  std::string unique;
};

// "Wed, 02 Dec 2026 23:33:21 +0000" (RFC 5322 §3.3), always UTC.
std::string format_email_date(std::int64_t unix_ms);

// A header field "Name: value" with the value as is if it is printable ASCII and the line
// fits 78 characters, else as RFC 2047 UTF-8 "B" encoded-words on folded lines of at most
// 78 characters, never splitting a UTF-8 character. No CRLF at the end.
std::string encode_header(std::string_view name, std::string_view value);

// RFC 2045 §6.7 quoted-printable of UTF-8 text whose lines end in "\n" (or "\r\n"): CRLF
// hard line breaks, soft breaks keeping every line at most 76 characters, '=', non-ASCII and
// control bytes, trailing spaces and a line-leading '.' encoded.
std::string quoted_printable(std::string_view text);

// The subject and the plain text of a notice.
std::string notice_subject(const email_notice& n);
std::string notice_text(const email_notice& n);

// The whole message. Throws std::invalid_argument if an address is not valid_address or
// `unique` is empty or not alphanumeric: nothing the visitor typed reaches a header unchecked.
std::string build_email(const email_envelope& envelope, const email_notice& n);

}  // namespace foyer::notify
