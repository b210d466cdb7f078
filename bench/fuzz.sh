#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for SECONDS each (default 600) and prints, per
# target, the executions, the coverage (edges) and the crashes found. New inputs go to a
# scratch corpus under $OUT (the seeds in tests/fuzz/corpus stay as committed); a crash's
# input is written there too, as crash-<sha1>: fix it, then keep it in the seed corpus.
# Exits 1 if any target crashed.
#   cmake -S . -B build-fuzz -DFOYER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
#   cmake --build build-fuzz -j2 --target fuzz_all
#   bench/fuzz.sh 120                       # JOBS=2 runs two targets at once
# Settings: FUZZ_BUILD (build-fuzz), OUT (a temp dir), JOBS (1), TARGETS (all), RUNS (none:
# stop each target after this many executions, or at SECONDS, whichever comes first).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
build=${FUZZ_BUILD:-build-fuzz}
out=${OUT:-$(mktemp -d /tmp/foyer-fuzz.XXXXXX)}
jobs=${JOBS:-1}
runs=${RUNS:-}
targets=${TARGETS:-$(ls tests/fuzz/corpus)}

run_one() {
  local name=$1 dir="$out/$1"
  mkdir -p "$dir/corpus"
  local dict=()
  [[ -f tests/fuzz/$name.dict ]] && dict=(-dict="tests/fuzz/$name.dict")
  # -timeout: an input that takes this long is a hang, reported like a crash.
  "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" ${runs:+-runs="$runs"} -timeout=25 -print_final_stats=1 \
    -artifact_prefix="$dir/" "${dict[@]}" "$dir/corpus" "tests/fuzz/corpus/$name" >"$dir/log" 2>&1 || true
  local execs cov crashes
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*' || echo 0)
  crashes=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-16s %14s execs %7s edges %3s crashes\n' "$name" "$execs" "$cov" "$crashes"
  ((crashes == 0)) || { sed -n '/terminate called\|==ERROR\|SUMMARY\|ERROR: libFuzzer/,+12p' "$dir/log" | head -40; return 1; }
}
export -f run_one
export seconds runs build out

echo "fuzz: ${seconds}s per target, $jobs at a time, output in $out"
# Fails when any target found a crash, a leak or a hang.
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}' || { echo "fuzz: crashes found, see $out"; exit 1; }
