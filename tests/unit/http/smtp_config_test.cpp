// [notifications.email] read into the relay's settings (app/smtp_config.cpp), with the
// refusals that keep mail and passwords off the network in the clear.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "app/config.hpp"

using namespace foyer;

namespace {

app::config parse(const std::string& email) {
  return app::parse_config("[notifications.email]\n" + email, "t.toml");
}

const std::string relay = "host = \"smtp.example.com\"\nfrom = \"rooms@shop.example.com\"\n";

}  // namespace

TEST_CASE("no [notifications.email], no email") { CHECK_FALSE(app::parse_config("", "t.toml").notifications.email); }

TEST_CASE("a relay with STARTTLS on the submission port by default") {
  auto c = parse(relay);
  REQUIRE(c.notifications.email);
  const auto& s = *c.notifications.email;
  CHECK(s.host == "smtp.example.com");
  CHECK(s.port == 587);
  CHECK(s.starttls);
  CHECK_FALSE(s.implicit_tls);
  CHECK(s.username.empty());
  CHECK(s.password.empty());
  CHECK(s.from == "rooms@shop.example.com");
  CHECK(s.timeout.count() == 30'000);

  auto tls = parse(relay + "implicit_tls = true\nusername = \"u\"\npassword = \"p\"\ntimeout_ms = 5000\n");
  CHECK(tls.notifications.email->port == 465);
  CHECK_FALSE(tls.notifications.email->starttls);
  CHECK(tls.notifications.email->password == "p");
  CHECK(tls.notifications.email->timeout.count() == 5000);
}

TEST_CASE("a relay without TLS only on loopback or a private address") {
  CHECK_THROWS_WITH(parse(relay + "starttls = false\n"),
                    Catch::Contains("notifications.email.starttls: can be false only for a relay on loopback"));
  auto c = parse("host = \"127.0.0.1\"\nport = 2525\nstarttls = false\nfrom = \"rooms@shop.example.com\"\n");
  CHECK_FALSE(c.notifications.email->starttls);
  CHECK(c.notifications.email->port == 2525);
  CHECK_THROWS_WITH(parse(relay + "implicit_tls = true\nstarttls = true\n"),
                    Catch::Contains("notifications.email.starttls: applies to a plain connection"));
}

TEST_CASE("the relay's settings are checked, each refusal naming its key") {
  CHECK_THROWS_WITH(parse("from = \"a@b.example\"\n"), Catch::Contains("notifications.email.host: must name the relay"));
  CHECK_THROWS_WITH(parse("host = \"smtp.example.com\\r\\nX\"\nfrom = \"a@b.example\"\n"),
                    Catch::Contains("notifications.email.host"));
  CHECK_THROWS_WITH(parse("host = \"smtp.example.com\"\n"), Catch::Contains("notifications.email.from: must be a plain address"));
  CHECK_THROWS_WITH(parse("host = \"smtp.example.com\"\nfrom = \"Rooms <a@b.example>\"\n"),
                    Catch::Contains("notifications.email.from"));
  CHECK_THROWS_WITH(parse(relay + "port = 0\n"), Catch::Contains("notifications.email.port: must be a whole number"));
  CHECK_THROWS_WITH(parse(relay + "timeout_ms = 10\n"), Catch::Contains("notifications.email.timeout_ms"));
  CHECK_THROWS_WITH(parse(relay + "user = \"u\"\n"), Catch::Contains("notifications.email.user: unknown setting"));
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\n"), Catch::Contains("notifications.email.username: needs a password"));
  CHECK_THROWS_WITH(parse(relay + "password = \"p\"\n"), Catch::Contains("notifications.email.username: must be set"));
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\npassword = \"p\"\npassword_env = \"X\"\n"),
                    Catch::Contains("give it once"));
  CHECK_THROWS_WITH(parse(relay + "ca_file = \"/nonexistent/ca.pem\"\n"),
                    Catch::Contains("notifications.email.ca_file: cannot read /nonexistent/ca.pem"));
  CHECK_THROWS_WITH(app::parse_config("[notifications]\nemail = 1\n", "t.toml"),
                    Catch::Contains("notifications.email: must be a table"));
  CHECK_THROWS_WITH(app::parse_config("[notifications]\nsms = {}\n", "t.toml"),
                    Catch::Contains("notifications.sms: unknown setting"));
}

TEST_CASE("the password may come from a file or the environment, and is never a line break") {
  auto dir = std::filesystem::temp_directory_path() / ("foyer-smtp-config-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = (dir / "password").string();
  std::ofstream(file) << "from-file\n";
  auto c = parse(relay + "username = \"u\"\npassword_file = \"" + file + "\"\n");
  CHECK(c.notifications.email->password == "from-file");
  std::ofstream(file) << "two\nlines\n";
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\npassword_file = \"" + file + "\"\n"),
                    Catch::Contains("notifications.email.password_file: gives a password with a NUL or a line break"));
  std::ofstream(file) << std::string(2000, 'p');
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\npassword_file = \"" + file + "\"\n"),
                    Catch::Contains("is larger than a password"));
  std::filesystem::remove_all(dir);
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\npassword_file = \"" + file + "\"\n"),
                    Catch::Contains("notifications.email.password_file: cannot read"));

  ::setenv("FOYER_SMTP_TEST_PASSWORD", "from-env", 1);
  c = parse(relay + "username = \"u\"\npassword_env = \"FOYER_SMTP_TEST_PASSWORD\"\n");
  CHECK(c.notifications.email->password == "from-env");
  ::unsetenv("FOYER_SMTP_TEST_PASSWORD");
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\npassword_env = \"FOYER_SMTP_TEST_PASSWORD\"\n"),
                    Catch::Contains("notifications.email.password_env: names no variable"));
  CHECK_THROWS_WITH(parse(relay + "username = \"u\"\npassword = \"a\\r\\nQUIT\"\n"),
                    Catch::Contains("notifications.email.password: gives a password with a NUL or a line break"));
}
