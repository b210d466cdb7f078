#include "app/notify_cli.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <fmt/core.h>
#include <foyer/clock.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "app/config.hpp"
#include "app/data_dir.hpp"
#include "app/keyring.hpp"
#include "core/base/bytes.hpp"
#include "core/base/json.hpp"
#include "core/notify/email_message.hpp"
#include "delivery/push_sender.hpp"
#include "delivery/smtp_sender.hpp"

namespace foyer::app {
namespace {

namespace net = boost::asio;

struct test_email_options {
  std::string config_file, to, notice = "turn", link;
  std::int64_t minutes = 5;
};

struct test_push_options {
  std::string config_file;
  std::string data_dir;
  notify::push_subscription subscription;
  std::string message = "A test notice from Foyer: notifications reach this browser.";
  std::int64_t ttl_seconds = 60;
};

// Runs a check; what stops it is printed on stderr and exits 1 (CLI11_PARSE turns
// CLI::RuntimeError(1) into the exit code).
template <typename F>
void reporting_failure(std::string_view command, F check) {
  try {
    check();
  } catch (const std::exception& e) {
    fmt::print(stderr, "foyer notify {}: {}\n", command, e.what());
    throw CLI::RuntimeError(1);
  }
}

void test_email(const test_email_options& o) {
  auto c = load_config(o.config_file);
  if (!c.notifications.email) throw std::runtime_error(fmt::format("{} has no [notifications.email] table", o.config_file));
  if (!notify::valid_address(o.to)) throw std::runtime_error("--to: not a plain address such as visitor@example.com");
  const auto& settings = *c.notifications.email;
  notify::email_notice notice;
  notice.what = o.notice == "soon" ? notify::email_notice::kind::soon : notify::email_notice::kind::turn;
  notice.room_name = c.rooms.front().name;
  notice.minutes = o.minutes;
  // The room, as a visitor's link reaches it: at the server's public address.
  const auto at = links_at(c, c.listen);
  notice.link = o.link.empty() ? at.link("/r/" + c.rooms.front().id) : o.link;
  if (o.link.empty() && !c.public_url) fmt::print(stderr, "foyer notify test-email: warning: {}\n", unnamed_public_url(at));
  auto now = std::chrono::system_clock::now().time_since_epoch();
  auto message = notify::build_email(
      {settings.from, o.to, std::chrono::duration_cast<std::chrono::milliseconds>(now).count(),
       to_hex(random_array<16>())},
      notice);

  net::io_context ioc;
  delivery::smtp_result result;
  delivery::smtp_sender sender(ioc, settings);
  net::co_spawn(ioc, sender.deliver(o.to, message), [&](std::exception_ptr failure, delivery::smtp_result r) {
    result = failure ? delivery::smtp_result{notify::outcome::failed, "the send failed unexpectedly"} : std::move(r);
  });
  ioc.run();
  if (result.outcome != notify::outcome::delivered) {
    throw std::runtime_error(fmt::format("{}: {}", notify::to_string(result.outcome), result.detail));
  }
  fmt::print("foyer notify test-email: delivered through relay {}:{}\n", settings.host, settings.port);
}

void test_push(const test_push_options& options) {
  auto c = options.config_file.empty() ? default_config() : load_config(options.config_file);
  if (!options.data_dir.empty()) c.data_dir = options.data_dir;
  if (c.notifications.vapid_subject.empty()) {
    throw std::runtime_error(
        "set [notifications] vapid_subject in the config (a mailto: or https:// URI where push services can reach "
        "you)");
  }
  system_clock clock;
  prepare_data_dir(c.data_dir);
  auto ring = load_or_create_keyring(c.data_dir, clock.now_ms() / 1000);
  net::io_context ioc;
  delivery::push_sender sender(ioc, clock, *ring.vapid(), c.notifications.vapid_subject, c.notifications.push);
  auto payload = json_object().str("title", "Foyer").str("body", options.message).done();
  auto outcome = notify::outcome::failed;
  std::string problem;
  net::co_spawn(ioc, sender.send(options.subscription, payload, std::chrono::seconds(options.ttl_seconds), &problem),
                [&outcome](std::exception_ptr failure, notify::outcome result) {
                  if (failure) std::rethrow_exception(failure);
                  outcome = result;
                });
  ioc.run();
  if (outcome != notify::outcome::delivered) {
    throw std::runtime_error(fmt::format("{}: {}", notify::to_string(outcome), problem));
  }
  fmt::print("delivered: the push service accepted the test notice\n");
}

}  // namespace

void add_notify_commands(CLI::App& app) {
  auto* notify = app.add_subcommand("notify", "Check that visitors are told when their turn comes.");
  notify->require_subcommand(1);
  auto o = std::make_shared<test_email_options>();
  auto* t = notify->add_subcommand("test-email", "Send a test notice through the relay of [notifications.email].");
  t->add_option("--config", o->config_file, "TOML config file with [notifications.email]")
      ->required()
      ->check(CLI::ExistingFile);
  t->add_option("--to", o->to, "The address to send the test notice to")->required();
  t->add_option("--notice", o->notice, "Which notice: turn (default) or soon")->check(CLI::IsMember({"turn", "soon"}));
  t->add_option("--minutes", o->minutes, "For --notice soon: the minutes said (default 5)")->check(CLI::Range(1, 1440));
  t->add_option("--link", o->link, "The link in the notice (default: the first room's page at [server] public_url)");
  t->callback([o] { reporting_failure("test-email", [&] { test_email(*o); }); });
  auto options = std::make_shared<test_push_options>();
  auto* cmd = notify->add_subcommand("test-push", "Send one test notice by Web Push to a browser's subscription.");
  cmd->add_option("--config", options->config_file, "TOML config file: [notifications] and the data dir")
      ->check(CLI::ExistingFile);
  cmd->add_option("--data-dir", options->data_dir, "Data directory whose key ring holds the VAPID key");
  cmd->add_option("--endpoint", options->subscription.endpoint, "The subscription's endpoint (https://)")->required();
  cmd->add_option("--p256dh", options->subscription.p256dh, "The subscription's keys.p256dh")->required();
  cmd->add_option("--auth", options->subscription.auth, "The subscription's keys.auth")->required();
  cmd->add_option("--message", options->message, "The notice's text");
  cmd->add_option("--ttl", options->ttl_seconds, "Seconds the push service may keep it (default 60)")
      ->check(CLI::Range(0, 28 * 24 * 3600));
  cmd->callback([options] { reporting_failure("test-push", [&] { test_push(*options); }); });
}

}  // namespace foyer::app
