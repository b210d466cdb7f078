#pragma once
// `foyer notify test-email`: the operator's check of the email set-up, before any visitor
// asks for a notice.
//
//   foyer notify test-email --config F --to ADDRESS [--notice turn|soon] [--minutes N]
//                           [--link URL]
//
// Sends the notice a visitor would get (for the config's first room, the link by default
// the server's own address) through the relay of [notifications.email], and prints how it
// went: "delivered", or the outcome (gone, refused, failed) and the step that failed, with
// the relay's reply code. The address is not printed. Exit code 0 only when delivered; a
// config without [notifications.email], or a failure, exits 1 (CLI::RuntimeError).
//
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
