#pragma once
// `foyer audit URL ROOM [--vkey VKEY] [--witness VKEY]... [--quorum N]`: the whole-draw
// audit (core/fairness/draw_audit.hpp) of room ROOM on the Foyer server at URL, from the
// files it publishes, fetched with delivery/http_get (a deadline and a size bound per
// file). Prints one line per check (pass, FAIL or absent) and a summary that counts only
// what passed; exits 0 only when every check passed, 1 when one failed, 3 when none failed
// but a guarantee is absent.

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_audit_command(CLI::App& app);

}  // namespace foyer::app
