#!/usr/bin/env bash
# Runs the seat ledger's model-based test (tests/unit/core/inventory/ledger_model_test.cpp)
# over SEEDS seeds (default 2000; the suite runs 200), and prints the time it took. Each seed
# is 300 random steps of holds, confirms, releases, expiries, seat changes racing holds,
# recounts and restarts, then a forced delete and late confirms through the late grace.
#   cmake --build build -j2 --target foyer_core_tests
#   bench/ledger_seeds.sh 2000
# Settings: BUILD (build). Exits non-zero if any seed breaks the model (its seed is shown).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-2000}
build=${BUILD:-build}
start=$(date +%s%N)
FOYER_LEDGER_SEEDS=$seeds "$build/foyer_core_tests" "the seat ledger under holds and the admin's changes*"
echo "ledger model: $seeds seeds in $((($(date +%s%N) - start) / 1000000)) ms"
