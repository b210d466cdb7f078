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

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_notify_commands(CLI::App& app);

}  // namespace foyer::app
