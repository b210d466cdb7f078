#include "app/notify_cli.hpp"

#include <chrono>
#include <iostream>
#include <memory>

#include <boost/asio/co_spawn.hpp>
#include <fmt/core.h>

#include "app/config.hpp"
#include "core/base/bytes.hpp"
#include "core/notify/email_message.hpp"
#include "delivery/smtp_sender.hpp"

namespace foyer::app {
namespace {

struct test_email_options {
  std::string config_file, to, notice = "turn", link;
  std::int64_t minutes = 5;
};

std::string_view outcome_name(delivery_outcome outcome) {
  switch (outcome) {
    case delivery_outcome::delivered: return "delivered";
    case delivery_outcome::gone: return "gone";
    case delivery_outcome::refused: return "refused";
    case delivery_outcome::failed: return "failed";
  }
  return "failed";
}

[[noreturn]] void fail(std::string_view problem) {
  std::cerr << fmt::format("foyer notify test-email: {}\n", problem);
  throw CLI::RuntimeError(1);
}

void test_email(const test_email_options& o) {
  config c;
  try {
    c = load_config(o.config_file);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (!c.notifications.email) fail(fmt::format("{} has no [notifications.email] table", o.config_file));
  if (!notify::valid_address(o.to)) fail("--to: not a plain address such as visitor@example.com");
  const auto& settings = *c.notifications.email;
  notify::email_notice notice;
  notice.what = o.notice == "soon" ? notify::email_notice::kind::soon : notify::email_notice::kind::turn;
  notice.room_name = c.rooms.front().name;
  notice.minutes = o.minutes;
  notice.link = o.link.empty() ? fmt::format("http://{}/", c.listen) : o.link;
  auto now = std::chrono::system_clock::now().time_since_epoch();
  auto message = notify::build_email(
      {settings.from, o.to, std::chrono::duration_cast<std::chrono::milliseconds>(now).count(),
       to_hex(random_array<16>())},
      notice);

  boost::asio::io_context ioc;
  delivery::smtp_result result;
  try {
    delivery::smtp_sender sender(ioc, settings);
    boost::asio::co_spawn(ioc, sender.deliver(o.to, message), [&](std::exception_ptr failure, delivery::smtp_result r) {
      result = failure ? delivery::smtp_result{delivery_outcome::failed, "the send failed unexpectedly"} : std::move(r);
    });
    ioc.run();
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (result.outcome != delivery_outcome::delivered) {
    fail(fmt::format("{}: {}", outcome_name(result.outcome), result.detail));
  }
  std::cout << fmt::format("foyer notify test-email: delivered through relay {}:{}\n", settings.host, settings.port);
}

}  // namespace

void add_notify_commands(CLI::App& app) {
  auto* notify = app.add_subcommand("notify", "Check how visitors are told their turn comes.");
  notify->require_subcommand(1);
  auto o = std::make_shared<test_email_options>();
  auto* t = notify->add_subcommand("test-email", "Send a test notice through the relay of [notifications.email].");
  t->add_option("--config", o->config_file, "TOML config file with [notifications.email]")
      ->required()
      ->check(CLI::ExistingFile);
  t->add_option("--to", o->to, "The address to send the test notice to")->required();
  t->add_option("--notice", o->notice, "Which notice: turn (default) or soon")->check(CLI::IsMember({"turn", "soon"}));
  t->add_option("--minutes", o->minutes, "For --notice soon: the minutes said (default 5)")->check(CLI::Range(1, 1440));
  t->add_option("--link", o->link, "The link in the notice (default: http://LISTEN/ of the config)");
  t->callback([o] { test_email(*o); });
}

}  // namespace foyer::app
