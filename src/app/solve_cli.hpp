#pragma once
// `foyer solve CHALLENGE`: does the proof of work a join asks for (core/gate/pow.hpp), as
// the waiting page's Web Worker does, and prints the join's body
// {"challenge": "...", "nonce": "..."}, for curl and scripts. A malformed challenge is
// named on stderr and exits 1.

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_solve_command(CLI::App& app);

}  // namespace foyer::app
