#pragma once
// `foyer notify test-push`: sends one test notice by Web Push, as the server would, to check
// a deployment end to end: the VAPID key of the data dir's key ring, [notifications]
// vapid_subject and allow_private_push_hosts, the push service's answer.
//
//   foyer notify test-push [--config FILE] [--data-dir DIR] --endpoint URL --p256dh KEY
//                          --auth SECRET [--message TEXT] [--ttl SECONDS]
//
// The subscription is what the browser's PushSubscription.toJSON() gives (endpoint,
// keys.p256dh, keys.auth). The payload is JSON, {"title":"Foyer","body":TEXT}. Prints the
// outcome; anything but a delivery is printed on stderr and thrown as CLI::RuntimeError(1),
// which CLI11_PARSE turns into exit code 1.

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_notify_commands(CLI::App& app);

}  // namespace foyer::app
