#pragma once

#include <filesystem>
#include <optional>

#include "app/config.hpp"

namespace foyer::app {

// Runs the server until SIGINT or SIGTERM; returns the process exit code. Problems
// that must stop the start (bad data dir, port in use, rooms the log refuses) are
// printed and give 1. SIGHUP reloads the rooms of `config_file`, if there is one.
int serve(const config& c, const std::optional<std::filesystem::path>& config_file);

}  // namespace foyer::app
