#!/usr/bin/env bash
# What lanes cost, against a reference in the same run, on one server:
#   - durable joins with an access code (each its own single-use code, into a "members"
#     lane) against plain joins into the same room's general lane: proofs solved ahead, so
#     the timed part is the joins; target: server CPU per join with a code >= 0.9x plain's
#     efficiency (plain CPU / code CPU), the challenges fetched ahead included in both;
#   - status polls in a room of 4 lanes (general + 3 with codes; the tickets spread over
#     the four in turn) against a room of one; target >= 0.95x.
# Polls (all their rounds first), then joins alternate over ROUNDS rounds, which goes first
# too; the ratios are of the medians.
#
# Environment: DURATION (s per poll run, and DURATION x 10,000 joins a join run; 5), ROUNDS (3), CONNECTIONS (256), THREADS (load
# generator threads, 1), BASE_BITS (4), FOYER_BIN / FOYER_LOAD (default build-bench/),
# KEEP_WORK=1 keeps the temp dir. Needs curl, jq, python3.
set -euo pipefail
source "$(dirname "$0")/common.sh"

duration=${DURATION:-5}
rounds=${ROUNDS:-3}
connections=${CONNECTIONS:-256}
threads=${THREADS:-1}
admin=lanes-bench-admin-token-0123456789
# Every join solved ahead is sent (no time bound), so that the challenges fetched ahead,
# in the server's CPU, are one per join on both sides: about DURATION s of joins here.
solved=$((duration * 10000))

server_extra="admin_token = \"$admin\"" write_config "$work/foyer.toml" "$(free_port)" \
  "$(room_toml codes 60 "$(printf '[rooms.lanes.members]\nshare = 0.3')")" \
  "$(room_toml one 60)" \
  "$(room_toml four 60 "$(for lane in a b c; do printf '[rooms.lanes.%s]\nshare = 0.2\n' "$lane"; done)")"
start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
target="127.0.0.1:$foyer_port"
machine

# codes ROOM BATCH LANE COUNT USES: generates a batch and prints its codes, one a line.
codes() {
  curl -sf -X POST "http://$target/api/v1/admin/rooms/$1/codes" -H "Authorization: Bearer $admin" \
    -H 'Content-Type: application/json' \
    -d "$(printf '{"batch":"%s","lane":"%s","count":%d,"uses_per_code":%d}' "$2" "$3" "$4" "$5")" | jq -r '.generated[]'
}

# Each round's code joins take codes of their own, made before any round: as many as the
# joins solved ahead, and one more per connection, since the preparation may solve a few
# more than it keeps. At most 100,000 codes a batch.
per_round=$((solved + connections))
for round in $(seq 1 "$rounds"); do
  for ((made = 0; made < per_round; made += 100000)); do
    codes codes "r$round-$made" members $((per_round - made < 100000 ? per_round - made : 100000)) 1
  done >"$work/codes$round"
done
# The four-lane room's tickets: general (an empty line: no code), a, b, c in turn.
{
  echo
  for lane in a b c; do codes four "$lane" "$lane" 1 100000; done
} >"$work/lanes-codes"
echo "codes: $(cat "$work"/codes[0-9]* | wc -l) single-use for the joins; $connections connections, $duration s per run," \
  "$rounds rounds, $threads load thread(s), base_bits ${BASE_BITS:-4}"

joins_args=(--scenario joins --target "$target" --room codes -c "$connections" --solved-ahead "$solved")
polls_args=(--target "$target" --scenario polls -c "$connections" -d "$duration")
# The polls first: RocksDB's flushes and compactions of the joins written, counted in the
# server's CPU, would land in the poll runs after them.
for round in $(seq 1 "$rounds"); do
  for which in $( ((round % 2)) && echo one four || echo four one); do
    echo "round $round of $rounds: status polls, room \"$which\":"
    if [[ $which == four ]]; then
      load "$work/four$round.out" "$foyer_pid" "${polls_args[@]}" --room four --codes "$work/lanes-codes"
    else
      load "$work/one$round.out" "$foyer_pid" "${polls_args[@]}" --room one
    fi
  done
done
for round in $(seq 1 "$rounds"); do
  for which in $( ((round % 2)) && echo plain code || echo code plain); do
    echo "round $round of $rounds: durable joins, proofs solved ahead, $which:"
    settle "$foyer_pid"
    if [[ $which == code ]]; then
      load "$work/code$round.out" "$foyer_pid" "${joins_args[@]}" --codes "$work/codes$round"
    else
      load "$work/plain$round.out" "$foyer_pid" "${joins_args[@]}"
    fi
  done
done
lanes_joined() { curl -sf "http://$target/api/v1/rooms/$1" | jq -c '[.lanes[] | {(.id): .joined}] | add'; }
echo "joined by lane: codes $(lanes_joined codes), four $(lanes_joined four)"

each() { local r; for r in $(seq 1 "$rounds"); do result "$work/$1$r.out" "$2"; done; }
each_cpu() { local r; for r in $(seq 1 "$rounds"); do cpu_of "$work/$1$r.out"; done; }
python3 - "$(median $(each plain .join.per_s))" "$(median $(each code .join.per_s))" \
  "$(median $(each_cpu plain))" "$(median $(each_cpu code))" \
  "$(median $(each one .ops_per_s))" "$(median $(each four .ops_per_s))" \
  "$(median $(each_cpu one))" "$(median $(each_cpu four))" \
  "$(python3 -c "import sys; print(sum(map(float, sys.argv[1:])))" $(for k in plain code one four; do each "$k" .errors; done))" <<'EOF'
import sys
plain, code, cpu_plain, cpu_code, one, four, cpu_one, cpu_four, errors = map(float, sys.argv[1:])
def verdict(ratio, target):
    return "%.3f (target >= %.2f: %s)" % (ratio, target, "met" if ratio >= target else "MISSED")
print("summary (medians of the alternating rounds)")
print("  joins/s plain %.0f, with a code %.0f (%.2fx); server CPU per join %.1f us plain, %.1f us with a code: ratio %s" %
      (plain, code, code / plain, cpu_plain, cpu_code, verdict(cpu_plain / cpu_code, 0.9)))
print("  polls/s one lane %.0f, four lanes %.0f (%.2fx); server CPU per poll %.1f us one lane, %.1f us four: ratio %s" %
      (one, four, four / one, cpu_one, cpu_four, verdict(cpu_one / cpu_four, 0.95)))
print("  errors (all runs): %d" % errors)
EOF
