#pragma once
// `foyer lottery ...`: recompute places and check a draw from published values.
//
//   foyer lottery place --key HEX --n N --index I     prints π(I)
//   foyer lottery batch                                stdin lines "KEYHEX N I", prints "π(I) π⁻¹(I)"
//   foyer lottery verify --lottery FILE --receipt FILE [--proof FILE] [--public-key HEX]
//       FILE contents are the server's JSON: GET /api/v1/rooms/{room}/lottery,
//       the join's receipt, GET .../lottery/proof?index=I. Prints each check and the place.
//
// Failures (bad input, a failed check) are printed and thrown as CLI::RuntimeError(1),
// which CLI11_PARSE turns into exit code 1. A check without its input (no proof, no
// public key) is reported as skipped and does not fail the command.

#include <CLI/CLI.hpp>

namespace foyer::app {

void add_lottery_commands(CLI::App& app);

}  // namespace foyer::app
