// SMTP without a socket (core/notify/smtp_protocol.cpp): replies as they arrive, in pieces
// or past the limits, the EHLO extensions, AUTH PLAIN and the DATA of a message.
#include <catch2/catch.hpp>

#include <string>

#include "core/base/bytes.hpp"
#include "core/notify/smtp_protocol.hpp"

using namespace foyer;
using namespace foyer::notify;

TEST_CASE("a one-line and a multi-line reply are taken whole, byte by byte or at once") {
  std::string wire = "220 relay.example.com ESMTP\r\n250-relay.example.com\r\n250-STARTTLS\r\n250 AUTH LOGIN PLAIN\r\n";
  std::string buffer;
  std::vector<smtp_reply> replies;
  for (char c : wire) {
    buffer += c;
    smtp_reply r;
    auto status = take_reply(buffer, r);
    REQUIRE(status != reply_status::malformed);
    if (status == reply_status::complete) replies.push_back(r);
  }
  CHECK(buffer.empty());
  REQUIRE(replies.size() == 2);
  CHECK(replies[0].code == 220);
  CHECK(replies[0].lines == std::vector<std::string>{"relay.example.com ESMTP"});
  CHECK(replies[1].code == 250);
  CHECK(replies[1].kind() == 2);
  CHECK(replies[1].lines == std::vector<std::string>{"relay.example.com", "STARTTLS", "AUTH LOGIN PLAIN"});
  CHECK(offers(replies[1], "starttls"));
  CHECK_FALSE(offers(replies[1], "relay.example.com"));  // the greeting line is no extension
  CHECK(offers_auth(replies[1], "PLAIN"));
  CHECK(offers_auth(replies[1], "login"));
  CHECK_FALSE(offers_auth(replies[1], "CRAM-MD5"));

  buffer = "354\r\n550 5.1.1 no\r\n";
  smtp_reply r;
  REQUIRE(take_reply(buffer, r) == reply_status::complete);
  CHECK(r.code == 354);
  CHECK(buffer == "550 5.1.1 no\r\n");  // the next reply stays for later
}

TEST_CASE("what is not an SMTP reply, or is past the limits, is malformed") {
  for (std::string wire : {"HTTP/1.1 200 OK\r\n", "25 short\r\n", "250-a\r\n251 b\r\n", "250+x\r\n", "650 x\r\n",
                           "abc\r\n"}) {
    INFO(wire);
    smtp_reply r;
    CHECK(take_reply(wire, r) == reply_status::malformed);
  }
  std::string endless_line = "250 " + std::string(max_reply_line, 'x');
  smtp_reply r;
  CHECK(take_reply(endless_line, r) == reply_status::malformed);
  std::string long_line = "250 " + std::string(max_reply_line - 6, 'x') + "\r\n";
  CHECK(take_reply(long_line, r) == reply_status::complete);
  std::string too_long_line = "250 " + std::string(max_reply_line - 5, 'x') + "\r\n";
  CHECK(take_reply(too_long_line, r) == reply_status::malformed);
  std::string many;
  for (std::size_t i = 0; i < max_reply_lines; ++i) many += "250-x\r\n";
  std::string exactly = many.substr(0, many.size() - 7) + "250 x\r\n";
  CHECK(take_reply(exactly, r) == reply_status::complete);
  CHECK(r.lines.size() == max_reply_lines);
  many += "250 x\r\n";
  CHECK(take_reply(many, r) == reply_status::malformed);
  std::string partial = "250-x\r\n250";
  CHECK(take_reply(partial, r) == reply_status::incomplete);
}

TEST_CASE("AUTH PLAIN's response is base64 of NUL, user, NUL, password") {
  auto response = auth_plain("mailer", "s3cret");
  auto decoded = base64_decode(response);
  REQUIRE(decoded);
  CHECK(std::string(as_chars(*decoded)) == std::string("\0mailer\0s3cret", 14));
}

TEST_CASE("DATA doubles a line-leading dot, ends lines in CRLF and ends with a dot line") {
  CHECK(data_of("a\r\n.b\r\n..c\r\nd.\r\n") == "a\r\n..b\r\n...c\r\nd.\r\n.\r\n");
  CHECK(data_of(".\r\n") == "..\r\n.\r\n");
  // A bare LF or CR is no line end to a relay: either becomes CRLF, so "\n.\n" cannot end
  // the message early.
  CHECK(data_of("a\n.\nb") == "a\r\n..\r\nb\r\n.\r\n");
  CHECK(data_of("a\r.\rb\r\n") == "a\r\n..\r\nb\r\n.\r\n");
  CHECK(data_of("") == ".\r\n");
}
