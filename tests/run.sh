#!/usr/bin/env bash
# The whole test suite, as CI runs it: a build with warnings as errors; the unit and
# store tests (ctest); the core and store tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer; the fuzz targets, and the HTTP tests in their sanitized build;
# then the JS, integration, chaos, nginx and browser tests against the real binary on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFOYER_WERROR=ON -DFOYER_SANITIZE=OFF -DFOYER_ONLY_CORE_TESTS=OFF
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFOYER_WERROR=ON -DFOYER_SANITIZE=ON -DFOYER_ONLY_CORE_TESTS=ON
cmake --build build-asan -j"$jobs" --target foyer_core_tests foyer_store_tests
build-asan/foyer_core_tests
build-asan/foyer_store_tests

# The libFuzzer targets (clang): every seed and regression input of tests/fuzz/corpus
# replayed, then a short run of each, so that no change breaks a target or reopens a crash.
# -O1 with line tables only: the build is most of this step's time, and stack traces
# still name the line. The same build, whose server library is already under
# AddressSanitizer and UndefinedBehaviorSanitizer, runs the HTTP unit tests (the
# session's failure matrix).
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DFOYER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
cmake --build build-fuzz -j"$jobs" --target fuzz_all foyer_http_tests
for corpus in tests/fuzz/corpus/*/; do
  "build-fuzz/tests/fuzz/fuzz_$(basename "$corpus")" -runs=0 "$corpus"
done
build-fuzz/foyer_http_tests
FUZZ_BUILD=build-fuzz bench/fuzz.sh 5

export FOYER_BIN="$PWD/build/foyer"
# Each file runs under `node --test`, in path order and (as `node --test` does) one less
# at a time than there are CPUs. A test file that stalls fails after ten minutes instead
# of holding the run, and a file whose tests are done exits even if a failure left a
# browser or server open: on Debian's Node 18 as on Node 20 and later (tests/lib/run-node.js).
# The last line is the total, `N passed, N failed`.
node tests/lib/run-node.js --timeout=600000 tests/js/ tests/integration/ tests/chaos/ tests/nginx/ tests/browser/
