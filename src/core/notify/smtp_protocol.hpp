#pragma once
// The client side of SMTP (RFC 5321) without the socket: a relay's replies read from what
// has arrived, with the limits a relay cannot push past, the extensions its EHLO offers,
// and a message made ready for DATA.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace foyer::notify {

// RFC 5321 §4.5.3.1.5 caps a reply line at 512 octets; a little slack for relays that
// overrun it, and a cap on the lines of one reply (an EHLO lists a dozen extensions).
inline constexpr std::size_t max_reply_line = 1024;
inline constexpr std::size_t max_reply_lines = 64;

struct smtp_reply {
  int code = 0;                    // 200 to 599
  std::vector<std::string> lines;  // each line's text after "NNN-" or "NNN "
  int kind() const { return code / 100; }  // 2 done, 3 go on, 4 try later, 5 refused
};

enum class reply_status {
  incomplete,  // read more
  complete,    // `out` holds the reply, and its bytes are gone from the buffer
  malformed,   // not SMTP, or past the limits: give up on the connection
};

// Takes one reply from the start of `buffer` (bytes as they arrived): lines "NNN-text"
// ending in "NNN text", every line with the same code and ending in CRLF.
reply_status take_reply(std::string& buffer, smtp_reply& out);

// Whether an EHLO reply offers the extension `keyword` (case-insensitive, e.g. "STARTTLS").
bool offers(const smtp_reply& ehlo, std::string_view keyword);
// Whether an EHLO reply's AUTH line lists `mechanism` (e.g. "PLAIN").
bool offers_auth(const smtp_reply& ehlo, std::string_view mechanism);

// The initial response of AUTH PLAIN (RFC 4616): base64 of "\0user\0password".
std::string auth_plain(std::string_view user, std::string_view password);

// The DATA that carries `message` (RFC 5321 §4.5.2): every line ending in CRLF (a bare CR
// or LF becomes one), a line-leading '.' doubled, and the ending "." line.
std::string data_of(std::string_view message);

}  // namespace foyer::notify
