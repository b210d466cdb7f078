#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/config.hpp"

namespace foyer::app {

// Runs the server until SIGINT or SIGTERM; returns the process exit code. Problems
// that must stop the start (bad data dir, port in use, rooms the log refuses) are
// printed and give 1. SIGHUP reloads the rooms of `config_file`, if there is one.
int serve(const config& c, const std::optional<std::filesystem::path>& config_file);

// `foyer routes`: the table `foyer serve` builds, without serving. The routes are built
// over a log in a temporary directory, removed after. Throws if that log cannot be opened.
std::vector<std::string> route_table();

}  // namespace foyer::app
