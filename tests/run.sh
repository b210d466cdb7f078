#!/usr/bin/env bash
# The whole test suite, as CI runs it: a build with warnings as errors and its unit and
# store tests (ctest); the unit tests again and the fuzz targets in one build under
# AddressSanitizer and UndefinedBehaviorSanitizer; then the JS, integration, chaos, nginx,
# cluster (real etcd), connector and browser tests against the real binary on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh
jobs=$(nproc)

# Line tables only (-g1): a crash's stack trace still names the line, and the Beast and
# Asio files compile in two thirds of the time full debug information takes. Both builds
# compile the libraries in unity batches (FOYER_UNITY): they are built once, from scratch.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DFOYER_WERROR=ON -DFOYER_SANITIZE=OFF -DFOYER_ONLY_CORE_TESTS=OFF -DFOYER_UNITY=ON
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

# One clang build under AddressSanitizer and UndefinedBehaviorSanitizer serves the unit
# tests (core, store, HTTP with the session's failure matrix) and the libFuzzer targets:
# every seed and regression input of tests/fuzz/corpus replayed, then a short run of each,
# so that no change breaks a target or reopens a crash. Unoptimised (-O0), with line tables:
# the build is most of this step's time, and -O0 compiles it in less than half the time -O1
# takes, for about a minute more of tests under it; stack traces still name the line.
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O0 -gline-tables-only" \
  -DFOYER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DFOYER_UNITY=ON
cmake --build build-fuzz -j"$jobs" --target foyer_core_tests foyer_store_tests foyer_http_tests foyer_delivery_tests fuzz_all
build-fuzz/foyer_core_tests
build-fuzz/foyer_store_tests
build-fuzz/foyer_http_tests
build-fuzz/foyer_delivery_tests
for corpus in tests/fuzz/corpus/*/; do
  "build-fuzz/tests/fuzz/fuzz_$(basename "$corpus")" -runs=0 "$corpus"
done
# About 20 s of each target, two at a time (each is one process on one core).
FUZZ_BUILD=build-fuzz JOBS="$jobs" bench/fuzz.sh 20

export FOYER_BIN="$PWD/build/foyer"
# The suite's servers run with one I/O thread (FOYER_TEST_IO_THREADS, tests/lib/foyer.js):
# the default from 4 cores up, none below. The kill -9 and overload tests run first with the
# loop doing everything (io_threads = 0) and with three I/O threads.
for io_threads in 0 3; do
  FOYER_TEST_IO_THREADS=$io_threads node tests/lib/run-node.js --timeout=600000 tests/chaos/kill9.test.js \
    tests/integration/overload.test.js
done
# Each file runs under `node --test`, in path order. A test file that stalls fails after
# ten minutes instead of holding the run, and a file whose tests are done exits even if a
# failure left a browser or server open: on Debian's Node 18 as on Node 20 and later
# (tests/lib/run-node.js). The JS, integration and connector files, each with a server of
# its own and no load to speak of, run as many at a time as there are CPUs (half the time
# on 2 cores, bench/RESULTS.md "Test time"); the chaos, cluster, nginx and browser files,
# which load the machine or time a takeover, run one less at a time than there are CPUs.
# Each run's last line is its total, `N passed, N failed`; both run whatever the first did.
status=0
FOYER_TEST_IO_THREADS=1 node tests/lib/run-node.js --timeout=600000 --concurrency="$jobs" tests/js/ tests/integration/ \
  tests/connectors/ || status=1
FOYER_TEST_IO_THREADS=1 node tests/lib/run-node.js --timeout=600000 tests/chaos/ tests/cluster/ tests/nginx/ tests/browser/ ||
  status=1
exit "$status"
