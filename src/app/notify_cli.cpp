#include "app/notify_cli.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <fmt/core.h>
#include <foyer/clock.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#include "app/config.hpp"
#include "app/data_dir.hpp"
#include "app/keyring.hpp"
#include "core/base/json.hpp"
#include "delivery/push_sender.hpp"

namespace foyer::app {
namespace {

namespace net = boost::asio;

struct test_push_options {
  std::string config_file;
  std::string data_dir;
  notify::push_subscription subscription;
  std::string message = "A test notice from Foyer: notifications reach this browser.";
  std::int64_t ttl_seconds = 60;
};

std::string_view outcome_name(delivery_outcome outcome) {
  switch (outcome) {
    case delivery_outcome::delivered: return "delivered";
    case delivery_outcome::gone: return "gone (the subscription no longer exists)";
    case delivery_outcome::refused: return "refused";
    case delivery_outcome::failed: return "failed";
  }
  return "failed";
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
  auto outcome = delivery_outcome::failed;
  std::string problem;
  net::co_spawn(ioc, sender.send(options.subscription, payload, std::chrono::seconds(options.ttl_seconds), &problem),
                [&outcome](std::exception_ptr failure, delivery_outcome result) {
                  if (failure) std::rethrow_exception(failure);
                  outcome = result;
                });
  ioc.run();
  if (outcome != delivery_outcome::delivered) {
    throw std::runtime_error(fmt::format("{}: {}", outcome_name(outcome), problem));
  }
  fmt::print("delivered: the push service accepted the test notice\n");
}

}  // namespace

void add_notify_commands(CLI::App& app) {
  auto* notify = app.add_subcommand("notify", "Notifications: check that they reach a browser.");
  notify->require_subcommand(1);
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
  cmd->callback([options] {
    try {
      test_push(*options);
    } catch (const std::exception& e) {
      fmt::print(stderr, "foyer notify test-push: {}\n", e.what());
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace foyer::app
