#include <catch2/catch.hpp>

#include "core/notify/contact.hpp"

using namespace foyer::notify;

namespace {

const std::string p256dh(87, 'B');  // 65 bytes in unpadded base64url
const std::string auth(22, 'A');    // 16 bytes

}  // namespace

TEST_CASE("a push subscription is https, public and carries keys of the right sizes") {
  CHECK_FALSE(check_push({"https://push.example.net/send/abc", p256dh, auth}, {}));
  CHECK_FALSE(check_push({"https://push.example.net/send/abc", p256dh + "=", auth + "=="}, {}));
  CHECK(check_push({"http://push.example.net/send/abc", p256dh, auth}, {})->field == "push.endpoint");
  CHECK(check_push({"https://user@push.example.net/", p256dh, auth}, {})->field == "push.endpoint");
  CHECK(check_push({"https://push.example.net/" + std::string(1024, 'x'), p256dh, auth}, {})->field ==
        "push.endpoint");
  // The SSRF rule: no loopback or private literal or loopback name, unless the host is allowed as written.
  CHECK(check_push({"https://127.0.0.1:8443/p", p256dh, auth}, {})->field == "push.endpoint");
  CHECK(check_push({"https://10.1.2.3/p", p256dh, auth}, {})->field == "push.endpoint");
  CHECK(check_push({"https://app.localhost:8443/p", p256dh, auth}, {})->field == "push.endpoint");
  CHECK_FALSE(check_push({"https://127.0.0.1:8443/p", p256dh, auth}, {"127.0.0.1"}));
  CHECK(check_push({"https://localhost:8443/p", p256dh, auth}, {"127.0.0.1"})->field == "push.endpoint");
  CHECK(check_push({"https://push.example.net/", p256dh.substr(1), auth}, {})->field == "push.keys.p256dh");
  CHECK(check_push({"https://push.example.net/", p256dh, auth + "+"}, {})->field == "push.keys.auth");
  CHECK(check_push({"https://push.example.net/", p256dh, ""}, {})->field == "push.keys.auth");
}

TEST_CASE("an email address is one plain address that no header could misread") {
  CHECK_FALSE(check_email("ada@example.com"));
  CHECK_FALSE(check_email("ada+queue@mail.example.co.uk"));
  for (std::string_view bad : {"", "ada", "@example.com", "ada@", "ada@@example.com", "a@b@example.com",
                               "ada @example.com", "ada@example.com\r\nBcc: eve@example.com", "ada@example.com,eve@x.org",
                               "Ada <ada@example.com>", "ada@example.com."}) {
    CAPTURE(bad);
    CHECK(check_email(bad));
  }
  CHECK(check_email(std::string(250, 'a') + "@x.io"));
}
