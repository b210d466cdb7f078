// The "your turn" email (core/notify/email_message.cpp): the address check that keeps a
// visitor's text out of headers and commands, and the message's wire form.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/base/bytes.hpp"
#include "core/notify/email_message.hpp"

using namespace foyer;
using namespace foyer::notify;

namespace {

std::vector<std::string> lines_of(const std::string& message) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  for (auto end = message.find("\r\n"); end != std::string::npos; end = message.find("\r\n", pos)) {
    lines.push_back(message.substr(pos, end - pos));
    pos = end + 2;
  }
  CHECK(pos == message.size());  // every line ends in CRLF
  return lines;
}

// RFC 2045 §6.7 decoding, as a mail reader does it.
std::string decode_qp(const std::string& body) {
  std::string out;
  for (const auto& line : lines_of(body)) {
    bool soft = !line.empty() && line.back() == '=';
    std::string_view text(line.data(), line.size() - (soft ? 1 : 0));
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '=') {
        out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += text[i];
      }
    }
    if (!soft) out += "\n";
  }
  return out;
}

// RFC 2047 "B" words of a header value, unfolded and decoded.
std::string decode_words(std::string value) {
  std::string out;
  for (std::size_t open = value.find("=?UTF-8?B?"); open != std::string::npos; open = value.find("=?UTF-8?B?", open)) {
    auto close = value.find("?=", open + 10);
    auto bytes = base64_decode(value.substr(open + 10, close - open - 10));
    REQUIRE(bytes);
    out += std::string(as_chars(*bytes));
    open = close + 2;
  }
  return out;
}

const email_envelope envelope{"rooms@shop.example.com", "visitor@example.org", 1796254401000, "0123abcd"};

}  // namespace

TEST_CASE("a plain address is valid") {
  for (const char* address : {"visitor@example.org", "a.b+tag@mail.example.co.uk", "x@localhost",
                              "o'neil!#$%&*/=?^_`{|}~-@ex-ample.com"}) {
    INFO(address);
    CHECK(valid_address(address));
  }
  CHECK(valid_address(std::string(64, 'a') + "@" + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                      std::string(61, 'd')));  // 254 bytes
}

TEST_CASE("an address that could add a header, a recipient or a command is refused") {
  for (const char* address :
       {"visitor@example.org\r\nBcc: all@example.org", "visitor@example.org\nX: 1", "visitor@example.org\r",
        "visitor @example.org", "visitor@example.org ", "\tvisitor@example.org", "<visitor@example.org>",
        "visitor@example.org>\r\nRCPT TO:<other@example.org", "a@b@example.org", "a,b@example.org",
        "\"quoted\"@example.org", "a:b@example.org", "visitor@[127.0.0.1]", "visitor@example.org;x", "", "@",
        "visitor@", "@example.org", ".visitor@example.org", "visitor.@example.org", "vis..itor@example.org",
        "visitor@-example.org", "visitor@example-.org", "visitor@example..org", "visitor@example.org.",
        "visitör@example.org", "visitor@exämple.org"}) {
    INFO(address);
    CHECK_FALSE(valid_address(address));
  }
  CHECK_FALSE(valid_address(std::string_view("visitor@example.org\0x", 21)));
  CHECK_FALSE(valid_address("a@b.c\x7f"));
  CHECK_FALSE(valid_address(std::string(65, 'a') + "@example.org"));
  CHECK_FALSE(valid_address("a@" + std::string(64, 'b') + ".org"));
  CHECK_FALSE(valid_address(std::string(64, 'a') + "@" + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                            std::string(62, 'd')));  // 255 bytes
}

TEST_CASE("the Date header is RFC 5322's, in UTC") {
  CHECK(format_email_date(0) == "Thu, 01 Jan 1970 00:00:00 +0000");
  CHECK(format_email_date(1796254401999) == "Wed, 02 Dec 2026 23:33:21 +0000");
  CHECK(format_email_date(951782400000) == "Tue, 29 Feb 2000 00:00:00 +0000");
}

TEST_CASE("a short ASCII header is as written; anything else becomes folded UTF-8 encoded-words") {
  CHECK(encode_header("Subject", "It's your turn at Demo") == "Subject: It's your turn at Demo");

  std::string room = "Café — Grand Opening 🎉 " + std::string(80, 'x') + " ünïcödé";
  auto header = encode_header("Subject", room);
  CHECK(header.find('\n') != std::string::npos);  // folded
  for (const auto& line : lines_of(header + "\r\n")) {
    INFO(line);
    CHECK(line.size() <= 78);
    CHECK(line.find_first_not_of(" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~") ==
          std::string::npos);
  }
  CHECK(header.starts_with("Subject: =?UTF-8?B?"));
  CHECK(decode_words(header) == room);
  // Each word decodes to whole UTF-8 characters: the 4-byte emoji never straddles two.
  // Word by word: from one word's "=?UTF-8?B?" (10 bytes) to its "?=", then on past it, so
  // that a base64 padding '=' before the closing "?=" is never taken for a word's start.
  std::size_t words = 0;
  for (std::size_t open = header.find("=?"), close = 0; open != std::string::npos; open = header.find("=?", close + 2)) {
    close = header.find("?=", open + 10);
    REQUIRE(close != std::string::npos);
    auto word = decode_words(header.substr(open, close + 2 - open));
    REQUIRE_FALSE(word.empty());
    ++words;
    auto last = static_cast<unsigned char>(word.back());
    CHECK((last < 0x80 || (last & 0xC0) == 0x80));
    CHECK((static_cast<unsigned char>(word.front()) & 0xC0) != 0x80);
  }
  CHECK(words > 1);

  auto long_ascii = "Your turn at " + std::string(70, 'y');
  CHECK(decode_words(encode_header("Subject", long_ascii)) == long_ascii);
  // A CR or LF in the value never reaches the header as a line break.
  auto injected = encode_header("Subject", "Hi\r\nBcc: all@example.org");
  CHECK(injected.find('\r') == std::string::npos);
  CHECK(decode_words(injected) == "Hi\r\nBcc: all@example.org");
}

TEST_CASE("quoted-printable keeps lines to 76 characters and decodes to the text") {
  std::string text = "Go in now: " + std::string(200, 'z') + "\n\n.dot at the start\ntrailing space \n= and é\n";
  auto qp = quoted_printable(text);
  for (const auto& line : lines_of(qp)) {
    INFO(line);
    CHECK(line.size() <= 76);
    CHECK_FALSE(line.starts_with('.'));
    CHECK_FALSE(line.ends_with(' '));
    for (char c : line) CHECK((c >= 0x20 && c < 0x7f));
  }
  CHECK(qp.find("=C3=A9") != std::string::npos);
  CHECK(qp.find("space=20\r\n") != std::string::npos);
  CHECK(decode_qp(qp) == text);
  CHECK(decode_qp(quoted_printable("a\r\nb")) == "a\nb\n");
}

TEST_CASE("the notices say the room, the minutes or the turn, and give the link") {
  email_notice soon{email_notice::kind::soon, "Concert", 7, "https://tickets.example.com/r/concert?resume=abc"};
  CHECK(notice_subject(soon) == "Your turn at Concert in about 7 minutes");
  CHECK(notice_text(soon).find("in about 7 minutes") != std::string::npos);
  CHECK(notice_text(soon).find("\nhttps://tickets.example.com/r/concert?resume=abc\n") != std::string::npos);
  soon.minutes = 0;
  CHECK(notice_subject(soon) == "Your turn at Concert in about 1 minute");

  email_notice turn{email_notice::kind::turn, "Bad\r\nBcc: x@example.org", 0, "https://t.example.com/"};
  CHECK(notice_subject(turn) == "It's your turn at Bad  Bcc: x@example.org");
  CHECK(notice_text(turn).starts_with("It's your turn at Bad  Bcc: x@example.org.\n"));
}

TEST_CASE("the confirmation names the room and gives its link, and nothing else") {
  email_notice confirm{email_notice::kind::confirm, "Concert", 0, "https://t.example.com/r/concert/notify/confirm/ab"};
  CHECK(notice_subject(confirm) == "Confirm notices from Concert");
  CHECK(notice_text(confirm) ==
        "Someone waiting in Concert asked to be told at this address when their turn comes.\n\nIf that was you, "
        "confirm with this link:\n\nhttps://t.example.com/r/concert/notify/confirm/ab\n\nIf not, ignore this "
        "email: nothing more will be sent to you for this request, and the address is forgotten when Concert ends.\n");
}

TEST_CASE("a notice's message has the headers a mail reader needs and a decodable body") {
  std::string link = "https://tickets.example.com/r/concert?resume=" + std::string(90, 'k');
  email_notice n{email_notice::kind::soon, "Été concert", 12, link};
  auto message = build_email(envelope, n);
  auto split = message.find("\r\n\r\n");
  REQUIRE(split != std::string::npos);
  auto headers = lines_of(message.substr(0, split + 2));
  std::vector<std::string> names;
  for (const auto& line : headers) {
    CHECK(line.size() <= 78);
    if (!line.starts_with(' ')) names.push_back(line.substr(0, line.find(':')));
  }
  CHECK(names == std::vector<std::string>{"From", "To", "Subject", "Date", "Message-ID", "Auto-Submitted",
                                          "MIME-Version", "Content-Type", "Content-Transfer-Encoding"});
  CHECK(headers[0] == "From: rooms@shop.example.com");
  CHECK(headers[1] == "To: visitor@example.org");
  CHECK(decode_words(message.substr(0, split)) == "Your turn at Été concert in about 12 minutes");
  CHECK(message.find("\r\nDate: Wed, 02 Dec 2026 23:33:21 +0000\r\n") != std::string::npos);
  CHECK(message.find("\r\nMessage-ID: <0123abcd@shop.example.com>\r\n") != std::string::npos);
  CHECK(message.find("\r\nContent-Type: text/plain; charset=utf-8\r\n") != std::string::npos);
  auto body = decode_qp(message.substr(split + 4));
  CHECK(body == notice_text(n));
  CHECK(body.find("\n" + link + "\n") != std::string::npos);
}

TEST_CASE("a message is built only for valid addresses and a plain Message-ID part") {
  email_notice n{email_notice::kind::turn, "Demo", 0, "https://t.example.com/"};
  auto bad = envelope;
  bad.to = "visitor@example.org\r\nBcc: all@example.org";
  CHECK_THROWS_AS(build_email(bad, n), std::invalid_argument);
  bad = envelope;
  bad.from = "not an address";
  CHECK_THROWS_AS(build_email(bad, n), std::invalid_argument);
  bad = envelope;
  bad.unique = "a>b";
  CHECK_THROWS_AS(build_email(bad, n), std::invalid_argument);
  bad.unique = "";
  CHECK_THROWS_AS(build_email(bad, n), std::invalid_argument);
}
