#pragma once

#include "app/config.hpp"

namespace foyer::app {

// Runs the server until SIGINT or SIGTERM; returns the process exit code. Problems
// that must stop the start (bad data dir, port in use) are printed and give 1.
int serve(const config& c);

}  // namespace foyer::app
