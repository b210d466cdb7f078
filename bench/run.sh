#!/usr/bin/env bash
# Foyer against a fixed-response nginx on the same machine, same load generator, same run.
#
#   bench/run.sh [compare]   polls, joins, mixed and a lobby rush vs nginx; prints ratios
#   bench/run.sh memory      RSS before and after a million waiting visitors
#   bench/run.sh coldplay    13,000,000 durable joins into one room, RSS sampled all along,
#                            then kill -9 and the time until the restarted server answers
#   bench/run.sh ticker      10 minutes at 1,200/min under poll load, kill -9 in the middle
#   bench/run.sh sinks       durable joins without a sink and with a webhook sink whose
#                            receiver accepts and never answers, alternating; prints the ratio
#   bench/run.sh notices     durable joins and status polls without [notifications] and with
#                            CONTACTS (4,000) visitors opted in to notices, half by Web Push
#                            to a push service that hangs (PUSH_PEER, hang), half by email to
#                            a relay that refuses (RELAY_PEER, refuse), alternating; prints
#                            the ratios and the notices' metrics
#   bench/run.sh holds       one hot 200-seat room: hold attempts from admitted visitors'
#                            passes at RATE a second (an open loop) and as fast as they come
#                            (closed), most refused for want of seats, the site releasing the
#                            placed holds so that seats cycle; holds placed per second, p50,
#                            p99, server CPU per attempt, and the ratios to nginx and to
#                            status polls alternating with them
#   bench/run.sh io_threads  durable joins (proofs solved ahead) and status polls on a server
#                            with I/O threads (IO_THREADS, default cores - 1) and one with
#                            io_threads = 0, alternating; prints the ratios and the CPU per
#                            operation by thread (the loop's is the state owner's)
#   bench/run.sh cluster     durable joins (proofs solved ahead) and status polls on one node
#                            and on a cluster-mode leader whose log goes to three etcd
#                            members on loopback (data dirs in the temp dir, on disk),
#                            alternating, with a standby copying the leader's log all along
#                            (STANDBY=0: none); prints the ratios and the standby's lag.
#                            FAULTS=N instead runs the
#                            failover test (tests/cluster/failover.test.js) with N faults
#   bench/run.sh scale       the recipe beyond one box in full (tests/nginx/scale.test.js):
#                            VISITORS far-back visitors (10,000) polling the frontier every
#                            POLL_MS (10,000) through nginx's cache for SECONDS_RUN (60), two
#                            instances routed by room,
#                            the merged JWKS, one instance down and back; prints the origin's
#                            frontier requests a second and the visitors' staleness
#
# Environment: DURATION (s per compare run, 10), ROUNDS (compare: nginx, polls and joins
# with proofs solved ahead alternate this many times, 3), CONNECTIONS (256), THREADS (load
# generator threads, 1), BASE_BITS (proof of work, 4), JOINS (coldplay, 13000000),
# MINUTES (ticker, 10), KILL_AT (ticker, s, 300), DOWN (ticker downtime, s, 5), ROUNDS also
# for sinks and holds, RATE (holds: attempts per second of the open loop, 8000),
# VISITORS (holds: admitted visitors making the attempts, 400), HOLD_FOR_MS (holds: how
# long a placed hold stays before the site releases it, 200), HOLD_CONNECTIONS (holds:
# connections of the open loop, 64),
# FOYER_BIN / FOYER_LOAD (default build-bench/, a Release build), KEEP_WORK=1 keeps the
# temp dir. Needs nginx (Debian's nginx-light), curl, jq, python3.
set -euo pipefail
source "$(dirname "$0")/common.sh"

mode=${1:-compare}
duration=${DURATION:-10}
rounds=${ROUNDS:-3}
connections=${CONNECTIONS:-256}
threads=${THREADS:-1}

# Starts Foyer on $work/foyer.toml (a room "bench" without seats among its rooms) and the
# fixed-response nginx beside it; sets the caller's target and ng_port.
start_with_reference() {
  start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
  target="127.0.0.1:$foyer_port"
  # A status answer, to give nginx a body of exactly its size, and the ticket of that
  # poll, so that nginx is sent the very request a poll is.
  "$FOYER_LOAD" --scenario polls --target "$target" --room bench -c 1 -n 1 --sample-body "$work/body.json" \
    --sample-ticket "$work/ticket" >/dev/null
  ng_port=$(free_port)
  start_nginx "$ng_port" "$work/body.json"
  machine
}

# reference_round ROUND NGINX_WORKER: the round's nginx run and status polls, the figures
# every mode's ratios are taken against ($work/nginxROUND.out, $work/pollsROUND.out).
reference_round() {
  local round=$1
  echo "round $round of $rounds: nginx, fixed response (1 worker):"
  load "$work/nginx$round.out" "$2" --scenario fixed --target "127.0.0.1:$ng_port" --path /api/v1/rooms/bench/status \
    --bearer "$(cat "$work/ticket")" -c "$connections" -d "$duration"
  echo "round $round of $rounds: foyer, status polls:"
  load "$work/polls$round.out" "$foyer_pid" --scenario polls --target "$target" --room bench -c "$connections" -d "$duration"
}

compare() {
  local port
  port=$(free_port)
  write_config "$work/foyer.toml" "$port" "$(room_toml bench 60)" \
    "$(room_toml lobby 60 "opens_at = $(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)")"
  local target ng_port
  start_with_reference
  echo "status body: $(wc -c <"$work/body.json") bytes; $connections connections, $duration s per run, $threads load thread(s), base_bits ${BASE_BITS:-4}"

  # The machine's speed wanders by tens of percent from one run to the next, so the
  # reference, the polls and the joins alternate, and the ratios are of their medians.
  local ng_worker round
  ng_worker=$(pgrep -P "$nginx_pid" | head -1)
  for round in $(seq 1 "$rounds"); do
    reference_round "$round" "$ng_worker"
    # A rush meets the join endpoint with proofs already solved (seconds of work after
    # the challenge): its capacity, with the challenges fetched before the clock starts.
    echo "round $round of $rounds: foyer, durable joins, proofs solved ahead (only the joins timed):"
    load "$work/solved$round.out" "$foyer_pid" --scenario joins --target "$target" --room bench -c "$connections" \
      --solved-ahead $((duration * 25000)) --places-out "$work/places-solved$round"
  done
  echo "foyer, joins (challenge, solve, durable join):"
  load "$work/joins.out" "$foyer_pid" --scenario joins --target "$target" --room bench -c "$connections" -d "$duration" --places-out "$work/places"
  echo "foyer, mixed (10% joins):"
  load "$work/mixed.out" "$foyer_pid" --scenario mixed --target "$target" --room bench -c "$connections" -d "$duration"
  echo "foyer, lobby rush (a fresh connection per visitor: connect, challenge, join, poll):"
  load "$work/lobby.out" "$foyer_pid" --scenario lobby --target "$target" --room lobby -c "$connections" -d "$duration"
  if command -v wrk >/dev/null; then
    echo "wrk on nginx (is the load generator the limit?):"
    wrk -t1 -c"$connections" -d"${duration}s" -H "Authorization: Bearer $(cat "$work/ticket")" \
      "http://127.0.0.1:$ng_port/api/v1/rooms/bench/status" | sed 's/^/    /'
  fi

  local nginx polls joins join_reqs mixed solved
  total() { python3 -c "import sys; print(sum(map(float, sys.argv[1:])))" "$@"; }
  nginx=$(median $(for r in $(seq 1 "$rounds"); do result "$work/nginx$r.out" .ops_per_s; done))
  polls=$(median $(for r in $(seq 1 "$rounds"); do result "$work/polls$r.out" .ops_per_s; done))
  echo "per round, polls / nginx: $(for r in $(seq 1 "$rounds"); do python3 -c "print('%.2f' % ($(result "$work/polls$r.out" .ops_per_s) / $(result "$work/nginx$r.out" .ops_per_s)), end=' ')"; done)"
  joins=$(result "$work/joins.out" .join.per_s)
  join_reqs=$(result "$work/joins.out" '.join.per_s + .challenge.per_s')
  mixed=$(result "$work/mixed.out" .ops_per_s)
  solved=$(median $(for r in $(seq 1 "$rounds"); do result "$work/solved$r.out" .join.per_s; done))
  echo "per round, solved-ahead joins / nginx: $(for r in $(seq 1 "$rounds"); do python3 -c "print('%.2f' % ($(result "$work/solved$r.out" .join.per_s) / $(result "$work/nginx$r.out" .ops_per_s)), end=' ')"; done)"
  python3 - "$nginx" "$polls" "$joins" "$join_reqs" "$mixed" "$solved" \
    "$(median $(for r in $(seq 1 "$rounds"); do result "$work/solved$r.out" .join.p99_us; done))" \
    "$(median $(for r in $(seq 1 "$rounds"); do result "$work/polls$r.out" .status.p99_us; done))" "$(result "$work/joins.out" .join.p99_us)" \
    "$(total $(for r in $(seq 1 "$rounds"); do result "$work/polls$r.out" .errors; done))" "$(total $(result "$work/joins.out" .errors) $(for r in $(seq 1 "$rounds"); do result "$work/solved$r.out" .errors; done))" \
    "$(sort "$work/places" "$work/places-solved"* | uniq -d | wc -l)" "$(result "$work/lobby.out" .duplicate_lobby_indexes)" \
    "$(median $(for r in $(seq 1 "$rounds"); do cpu_of "$work/nginx$r.out"; done))" "$(median $(for r in $(seq 1 "$rounds"); do cpu_of "$work/polls$r.out"; done))" "$(cpu_of "$work/joins.out")" \
    "$(median $(for r in $(seq 1 "$rounds"); do cpu_of "$work/solved$r.out"; done))" "$(median $(for r in $(seq 1 "$rounds"); do result "$work/solved$r.out" .visit_cpu_us.total; done))" <<'EOF'
import sys
nginx, polls, joins, join_reqs, mixed, solved, p99_solved, p99_poll, p99_join, err_polls, err_joins, dup, dup_lobby, cpu_nginx, cpu_polls, cpu_joins, cpu_solved, cpu_solved_visit = map(float, sys.argv[1:])
def line(name, value, target=None):
    verdict = "" if target is None else ("  target >= %.1fx: %s" % (target, "met" if value / nginx >= target else "MISSED"))
    print("  %-34s %10.0f/s  %5.2fx nginx%s" % (name, value, value / nginx, verdict))
print("summary (medians of the alternating rounds; nginx %.0f/s)" % nginx)
line("status polls", polls, 0.8)
line("durable joins, proofs solved ahead", solved, 0.4)
line("visitors: challenge, solve, join", joins)
line("  their requests (challenge + join)", join_reqs)
line("mixed operations", mixed)
print("  polls p99 (median of rounds) %.2f ms (target <= 5 ms: %s); joins p99 %.2f ms solved ahead (median), %.2f ms in visits" %
      (p99_poll / 1000, "met" if p99_poll <= 5000 else "MISSED", p99_solved / 1000, p99_join / 1000))
print("  errors: polls %d, joins (all runs) %d; places issued twice (all join runs together): %d; lobby indexes issued twice: %d" % (err_polls, err_joins, dup, dup_lobby))
print("  server CPU per operation: nginx %.1f us, foyer poll %.1f us (%.2fx nginx's efficiency)" % (cpu_nginx, cpu_polls, cpu_nginx / cpu_polls))
print("  server CPU per join: the join alone %.1f us (solved ahead, median), the visit %.1f us (its challenge fetched ahead, then the join), a visit timed whole %.1f us" %
      (cpu_solved, cpu_solved_visit, cpu_joins))
EOF
  by_thread server_cpu_us "us of CPU"
  # Present when the server ran with the counting allocator (bench/alloc_count).
  [[ $(result "$work/polls1.out" .server_allocs) == null ]] || by_thread server_allocs "allocations"
}

# by_thread FIELD UNIT: compare's polls and solved-ahead joins, the medians of the rounds of
# FIELD (a split by thread of foyer_load's RESULT) per operation.
by_thread() {
  echo "  by thread (medians of the rounds, $2 per operation):"
  local what part
  for what in polls solved; do
    echo "    $([[ $what == polls ]] && echo "poll:      " || echo "join alone:") $(for part in loop io storage rocksdb other; do
      printf '%s %s  ' "$part" "$(median $(for r in $(seq 1 "$rounds"); do result "$work/$what$r.out" ".$1.$part"; done))"
    done)"
  done
}

memory() {
  local port
  port=$(free_port)
  # One visitor a minute: everyone who joins stays waiting.
  write_config "$work/foyer.toml" "$port" "$(room_toml mem 1)"
  start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
  machine
  local target="127.0.0.1:$foyer_port" rss0 rss1 rss2
  "$FOYER_LOAD" --scenario polls --target "$target" --room mem -c 64 -n 20000 >/dev/null
  rss0=$(rss_kib "$foyer_pid")
  echo "RSS after start and 20,000 polls: $rss0 KiB"
  "$FOYER_LOAD" --scenario joins --target "$target" --room mem -c "$connections" -n 100000 | grep -E 'join|RESULT' | sed 's/^/    /'
  rss1=$(rss_kib "$foyer_pid")
  echo "RSS after 100,000 waiting visitors: $rss1 KiB"
  "$FOYER_LOAD" --scenario joins --target "$target" --room mem -c "$connections" -n 900000 | grep -E 'join|RESULT' | sed 's/^/    /'
  rss2=$(rss_kib "$foyer_pid")
  echo "RSS after 1,000,000 waiting visitors: $rss2 KiB"
  python3 -c "
r0, r1, r2 = $rss0, $rss1, $rss2
print('bytes per waiting visitor: first 100k %.1f, next 900k %.1f, overall %.1f' % ((r1-r0)*1024/100000, (r2-r1)*1024/900000, (r2-r0)*1024/1000000))"
}

coldplay() {
  local joins=${JOINS:-13000000} port
  port=$(free_port)
  write_config "$work/foyer.toml" "$port" "$(room_toml coldplay 60)"
  start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
  machine
  echo "coldplay: $joins joins into one room, $connections connections, base_bits ${BASE_BITS:-4}"
  (while kill -0 "$foyer_pid" 2>/dev/null; do echo "$(date +%s.%N) $(rss_kib "$foyer_pid")"; sleep 0.5; done) >"$work/rss.log" 2>/dev/null &
  started_pids+=($!)
  local pow_flag=()
  [[ ${BASE_BITS:-4} == 0 ]] && pow_flag=(--no-pow)
  load "$work/coldplay.out" "$foyer_pid" --scenario joins --target "127.0.0.1:$foyer_port" --room coldplay -c "$connections" \
    -n "$joins" --report-every 30 "${pow_flag[@]}"
  local max_rss
  max_rss=$(awk '$2 > m {m = $2} END {print m}' "$work/rss.log")
  echo "max RSS while absorbing: $max_rss KiB ($(python3 -c "print(round($max_rss/1048576, 3))") GiB; target < 1 GiB)"
  echo "data dir: $(du -sh "$work/data" | cut -f1)"
  kill -9 "$foyer_pid"
  wait "$foyer_pid" 2>/dev/null || true
  local t0 served_ms
  t0=$(date +%s%N)
  start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
  until curl -sf "http://127.0.0.1:$foyer_port/api/v1/rooms/coldplay" -o "$work/room.json"; do sleep 0.005; done
  served_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "restart after kill -9: listening after $start_ms ms, first answer after $served_ms ms (target < 1000 ms); room: $(jq -c '{joined, served, waiting}' "$work/room.json")"
  echo "RSS after restart: $(rss_kib "$foyer_pid") KiB"
}

ticker() {
  local rate=1200 minutes=${MINUTES:-10} kill_at=${KILL_AT:-300} down=${DOWN:-5} port
  port=$(free_port)
  write_config "$work/foyer.toml" "$port" "$(room_toml tick "$rate")"
  start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
  machine
  local target="127.0.0.1:$port" total=$((minutes * 60))
  # Enough visitors that the queue never empties: admission is then rate × time alone.
  "$FOYER_LOAD" --scenario joins --target "$target" --room tick -c 64 -n $((rate * minutes + 3000)) | grep -E '^  (join|oper)' | sed 's/^/    /'
  "$FOYER_LOAD" --scenario polls --target "$target" --room tick -c "$connections" -d $((total + 10)) >"$work/polls.out" &
  local load_pid=$!
  started_pids+=("$load_pid")
  local t_end=$(( $(date +%s) + total )) killed=0 t_start
  t_start=$(date +%s)
  : >"$work/frontier.log"
  while (( $(date +%s) < t_end )); do
    if (( !killed && $(date +%s) - t_start >= kill_at )); then
      kill -9 "$foyer_pid"
      wait "$foyer_pid" 2>/dev/null || true
      echo "kill -9 at $(date +%s.%N)" | tee -a "$work/events.log"
      sleep "$down"
      start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
      echo "restarted at $(date +%s.%N) (listening after $start_ms ms)" | tee -a "$work/events.log"
      killed=1
    fi
    curl -s -m 1 "http://$target/api/v1/rooms/tick/frontier" | jq -r '"\(.at) \(.served)"' >>"$work/frontier.log" || true
    sleep 1
  done
  wait "$load_pid" || true
  sed 's/^/    /' "$work/polls.out" | grep -E 'status|operations|error'
  curl -s "http://$target/api/v1/rooms/tick" >"$work/room.json"
  cp "$work/frontier.log" "${TICKER_LOG:-/tmp/foyer-ticker-frontier.log}"
  python3 - "$work/frontier.log" "$rate" "$(jq .created_at "$work/room.json")" "$(awk '/restarted at/ {print $3}' "$work/events.log")" <<'EOF'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
rate, created_s, restarted = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]) * 1000
per_ms = rate / 60000
# The room's clock starts at its creation (known to the second). The latest start
# consistent with never admitting ahead of the rate:
t0 = min(at - served / per_ms for at, served in rows)
d = [served - per_ms * (at - t0) for at, served in rows]
print("samples: %d over %.1f min, one a second" % (len(rows), (rows[-1][0] - rows[0][0]) / 60000))
print("room created at %d s; the fitted start is %+.0f ms from it (in [0, 1000) unless admission ran ahead)" % (created_s, t0 - created_s * 1000))
def report(name, idx):
    xs = [d[i] for i in idx]
    print("%s: admitted - rate x elapsed in [%.2f, %.2f], spread %.2f (target: |.| <= 1)" % (name, min(xs), max(xs), max(xs) - min(xs)))
report("all samples", range(len(d)))
settle = [i for i, (at, _) in enumerate(rows) if not (restarted <= at < restarted + 1000)]
report("all but the first second after the restart", settle)
n = len(d)
print("drift: mean deviation in the first tenth %.2f, in the last tenth %.2f" % (sum(d[: n // 10]) / (n // 10), sum(d[-(n // 10):]) / (n // 10)))
around = [i for i, (at, _) in enumerate(rows) if restarted - 4000 <= at <= restarted + 4000]
print("around the restart (at ms, served, deviation):")
for i in around:
    print("  %+7.0f ms  %6d  %7.2f" % (rows[i][0] - restarted, rows[i][1], d[i]))
# The best line: the offset that puts the most samples within ±1 of it.
inside, offset = max((sum(1 for x in d if abs(x - o / 100) <= 1), o / 100) for o in range(int(min(d) * 100) - 100, 101))
print("best line (offset %.2f): %d of %d samples within +-1" % (offset, inside, n))
back = sum(1 for i in range(1, n) if rows[i][1] < rows[i - 1][1])
print("samples where served went back: %d" % back)
EOF
}

# peer PORT BEHAVIOUR: a loopback peer in the background that accepts every connection and,
# with `hang`, never answers (a request to it times out; to a TLS client, the handshake does)
# or, with `refuse`, greets it with an SMTP 421 and closes it (a relay that takes no mail; to
# a TLS client, a handshake that fails at once).
peer() {
  python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(128)
held = []
while True:
    c = s.accept()[0]
    if sys.argv[2] == "hang":
        held.append(c)
    else:
        c.sendall(b"421 4.3.2 Service not available, closing transmission channel\r\n")
        c.close()
' "$1" "$2" &
  started_pids+=($!)
}

# alternate A B STEP: $rounds rounds of `STEP SERVER ROUND` for the servers A and B. Which
# goes first alternates too, so that neither always meets the machine as the other left it.
alternate() {
  local round which
  for round in $(seq 1 "$rounds"); do
    for which in $( ((round % 2)) && echo "$1 $2" || echo "$2 $1"); do
      "$3" "$which" "$round"
    done
  done
}

# ratio_line A B WHAT RUN KIND [TARGET]: B against A for the runs $work/{A,B}-RUN-ROUND.out,
# whose operation KIND (join, status) is WHAT: each round's ratio, the ratio of the medians
# and its target (0.95), p99 and server CPU per operation.
ratio_line() {
  local a=$1 b=$2 what=$3 run=$4 kind=$5 target=${6:-0.95}
  of() { local r; for r in $(seq 1 "$rounds"); do result "$work/$1-$run$r.out" ".$kind.$2"; done; }
  cpu() { local r; for r in $(seq 1 "$rounds"); do cpu_of "$work/$1-$run$r.out"; done; }
  python3 - "$what" "$(of "$a" per_s)" "$(of "$b" per_s)" "$(median $(of "$a" p99_us))" "$(median $(of "$b" p99_us))" \
    "$(median $(cpu "$a"))" "$(median $(cpu "$b"))" "$target" <<'EOF'
import statistics, sys
what, a, b = sys.argv[1], list(map(float, sys.argv[2].split())), list(map(float, sys.argv[3].split()))
p99_a, p99_b, cpu_a, cpu_b, target = map(float, sys.argv[4:])
ratio = statistics.median(b) / statistics.median(a)
print("  %s/s %.0f without, %.0f with: ratio %.3f (target >= %.2f: %s); per round %s" %
      (what, statistics.median(a), statistics.median(b), ratio, target, "met" if ratio >= target else "MISSED",
       " ".join("%.2f" % (y / x) for x, y in zip(a, b))))
print("    p99 %.2f ms without, %.2f ms with; server CPU per operation %.1f us without, %.1f us with" %
      (p99_a / 1000, p99_b / 1000, cpu_a, cpu_b))
EOF
}

# ceiling_line A B RUN KIND IO_THREADS: the most each server could do for RUN's operations
# (KIND) on this machine by CPU alone, from the medians of its rounds: one thread can use at
# most a core (the loop, the storage thread; the I/O threads IO_THREADS cores), and the server
# and the load generator together at most all of them; and how near each run came to it. The
# quotient of the two bounds is the ratio both would show, each at its bound.
ceiling_line() {
  python3 - "$work" "$1" "$2" "$3" "$4" "$rounds" "$5" "$(nproc)" <<'EOF'
import json, statistics, sys
work, a, b, run, kind = sys.argv[1:6]
rounds, io_threads, cores = map(int, sys.argv[6:])
def limit(server, threads):
    results = []
    for r in range(1, rounds + 1):
        with open("%s/%s-%s%d.out" % (work, server, run, r)) as f:
            results.append(json.loads([l for l in f if l.startswith("RESULT ")][-1][7:]))
    cpu = {part: statistics.median(x["server_cpu_us"][part] for x in results) for part in ("loop", "io", "storage", "total")}
    load = statistics.median(x["load_cpu_us"] for x in results)
    bounds = {"the loop": 1e6 / cpu["loop"], "the storage thread": 1e6 / max(cpu["storage"], 1e-3),
              "all %d cores (server %.1f us, load generator %.1f us)" % (cores, cpu["total"], load):
                  cores * 1e6 / (cpu["total"] + load)}
    if threads:
        bounds["the I/O threads"] = threads * 1e6 / max(cpu["io"], 1e-3)
    bound, by = min((v, k) for k, v in bounds.items())
    return bound, by, statistics.median(x[kind]["per_s"] for x in results) / bound
(la, wa, ra), (lb, wb, rb) = limit(a, 0), limit(b, io_threads)
print("    by CPU alone at most %.0f/s without (bound by %s; %.0f %% of it reached), %.0f/s with (bound by %s; %.0f %%):"
      " %.2f, each at its bound" % (la, wa, 100 * ra, lb, wb, 100 * rb, lb / la))
EOF
}

# timed_joins SERVER ROUND: durable joins with proofs solved ahead on SERVER (pid, port and
# label of the caller's arrays).
timed_joins() {
  echo "round $2 of $rounds: ${label[$1]}, durable joins, proofs solved ahead:"
  load "$work/$1-joins$2.out" "${pid[$1]}" --scenario joins --target "127.0.0.1:${port[$1]}" --room bench \
    -c "$connections" --solved-ahead $((duration * 20000)) -d "$duration"
}

# start_two A B: Foyer on $work/A.toml and on $work/B.toml, each with its data dir and log
# beside, into the caller's arrays pid and port (local -A pid port).
start_two() {
  local which
  for which in "$1" "$2"; do
    start_foyer "$work/$which.toml" "$work/$which-data" "$work/$which.log"
    pid[$which]=$foyer_pid port[$which]=$foyer_port
  done
}

# joins_and_polls SERVER ROUND: timed_joins, then status polls on the same server.
joins_and_polls() {
  timed_joins "$1" "$2"
  echo "round $2 of $rounds: ${label[$1]}, status polls:"
  load "$work/$1-polls$2.out" "${pid[$1]}" --scenario polls --target "127.0.0.1:${port[$1]}" --room bench \
    -c "$connections" -d "$duration"
}

sinks() {
  # The sink's requests time out and back off, again and again, while the joins are measured.
  local hang_port
  hang_port=$(free_port)
  peer "$hang_port" hang
  write_config "$work/plain.toml" "$(free_port)" "$(room_toml bench 60)"
  write_config "$work/sink.toml" "$(free_port)" "$(room_toml bench 60)" \
    "$(printf '[[sinks]]\ntype = "webhook"\nname = "hanging"\nurl = "http://127.0.0.1:%s/hook"\nsecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"\n' "$hang_port")"
  local -A pid port
  start_two plain sink
  local -A label=([plain]="foyer without a sink" [sink]="foyer with a webhook sink to a receiver that never answers")
  machine
  echo "durable joins, proofs solved ahead; $connections connections, $duration s per run, $rounds rounds, base_bits ${BASE_BITS:-4}"
  alternate plain sink timed_joins
  echo "summary (medians of the alternating rounds), with a hanging webhook against without a sink"
  ratio_line plain sink joins joins join
  echo "  the sink after the runs: $(curl -s "http://127.0.0.1:${port[sink]}/metrics" | grep '^foyer_sink_' | tr '\n' ' ')"
}

notices() {
  # A push service that takes the connection and never speaks TLS (every push hangs until
  # push_timeout_ms) and a relay that refuses every session with a 421 (every mail fails
  # at once and is retried after a back-off); PUSH_PEER and RELAY_PEER swap hang and refuse.
  local contacts=${CONTACTS:-4000} push_port relay_port
  push_port=$(free_port)
  relay_port=$(free_port)
  peer "$push_port" "${PUSH_PEER:-hang}"
  peer "$relay_port" "${RELAY_PEER:-refuse}"
  # 600 a minute: the contacts' line is admitted over minutes, so "soon" is due for all of
  # them at once (soon_minutes 10) and "turn" for ten a second all along the runs; the
  # queues (500 a channel) overflow and drop their oldest.
  write_config "$work/plain.toml" "$(free_port)" "$(room_toml bench 600)"
  write_config "$work/notify.toml" "$(free_port)" "$(room_toml bench 600)" "$(printf '%s\n' \
    '[notifications]' 'vapid_subject = "mailto:ops@example.com"' 'allow_private_push_hosts = ["127.0.0.1"]' \
    'push_timeout_ms = 2000' 'soon_minutes = 10' 'queue = 500' \
    '[notifications.email]' 'host = "127.0.0.1"' "port = $relay_port" 'from = "rooms@shop.example.com"' \
    'starttls = false' 'timeout_ms = 2000')"
  local -A pid port
  start_two plain notify
  local -A label=([plain]="foyer without [notifications]"
    [notify]="foyer notifying through a push service that ${PUSH_PEER:-hang}s and a relay that ${RELAY_PEER:-refuse}s")
  machine
  # The same line in both rooms; only the notifying server's visitors opt in, half to push,
  # half to email.
  echo "setup: $contacts visitors join each room; on the notifying server each opts in"
  echo "  without: $(python3 "$(dirname "$0")/notice_setup.py" "127.0.0.1:${port[plain]}" bench "$contacts")"
  echo "  with:    $(python3 "$(dirname "$0")/notice_setup.py" "127.0.0.1:${port[notify]}" bench "$contacts" --push-port "$push_port")"
  # What holding the contacts costs with nobody on the line: the notifier plans over every
  # contact each second.
  local which before
  for which in plain notify; do
    settle "${pid[$which]}"
    before=$(cpu_ticks "${pid[$which]}")
    sleep 5
    echo "  idle server CPU, ${label[$which]}: $(python3 -c "print(round(($(cpu_ticks "${pid[$which]}") - $before) * 1000 / $(getconf CLK_TCK) / 5, 1))") ms a second"
  done
  echo "durable joins (proofs solved ahead) and status polls; $connections connections, $duration s per run, $rounds rounds, base_bits ${BASE_BITS:-4}"
  alternate plain notify joins_and_polls
  echo "summary (medians of the alternating rounds), notifying against without [notifications]"
  ratio_line plain notify joins joins join
  ratio_line plain notify polls polls status
  echo "  the notifying server after the runs:"
  curl -s "http://127.0.0.1:${port[notify]}/metrics" | grep -E '^foyer_notifi' | sed 's/^/    /' || true
  echo "  its log: $(grep -c 'notifications: push' "$work/notify.log") failed pushes, $(grep -c 'notifications: email' "$work/notify.log") failed mails;" \
    "last: $(grep 'notifications: push' "$work/notify.log" | tail -1 | cut -c1-120); $(grep 'notifications: email' "$work/notify.log" | tail -1 | cut -c1-120)"
}

io_threads() {
  local io=${IO_THREADS:-}
  server_extra='io_threads = 0' write_config "$work/loop.toml" "$(free_port)" "$(room_toml bench 60)"
  server_extra=${IO_THREADS:+io_threads = $IO_THREADS} write_config "$work/io.toml" "$(free_port)" "$(room_toml bench 60)"
  local -A pid port
  start_two loop io
  local -A label=([loop]="foyer, io_threads = 0" [io]="foyer, io_threads = ${io:-default}")
  machine
  echo "durable joins (proofs solved ahead) and status polls; $connections connections, $duration s per run, $rounds rounds, base_bits ${BASE_BITS:-4}"
  alternate loop io joins_and_polls
  echo "summary (medians of the alternating rounds), I/O threads against io_threads = 0"
  local threads
  threads=$(grep -o '"io_threads":[0-9]*' "$work/io.log" | tail -1 | cut -d: -f2)
  ratio_line loop io joins joins join 1.1
  ceiling_line loop io joins join "$threads"
  ratio_line loop io polls polls status 0.95
  ceiling_line loop io polls status "$threads"
  local which what part
  for which in loop io; do
    for what in joins polls; do
      echo "  ${label[$which]}, $what, server CPU per operation by thread (medians): $(for part in loop io storage rocksdb other; do
        printf '%s %s  ' "$part" "$(median $(for r in $(seq 1 "$rounds"); do result "$work/$which-$what$r.out" ".server_cpu_us.$part"; done))"
      done)"
    done
  done
}

# Three etcd members on loopback (Debian's etcd 3.4), their data in $work; sets etcd_endpoints
# (TOML array items) once one of them knows a leader.
start_etcd() {
  local i clients=() peers=() initial=""
  for i in 0 1 2; do
    clients+=("$(free_port)") peers+=("$(free_port)")
    initial+="${initial:+,}e$i=http://127.0.0.1:${peers[$i]}"
  done
  etcd_endpoints=""
  for i in 0 1 2; do
    etcd --name "e$i" --data-dir "$work/etcd-$i" --log-level warn --initial-cluster "$initial" \
      --listen-client-urls "http://127.0.0.1:${clients[$i]}" --advertise-client-urls "http://127.0.0.1:${clients[$i]}" \
      --listen-peer-urls "http://127.0.0.1:${peers[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${peers[$i]}" \
      >"$work/etcd-$i.log" 2>&1 &
    started_pids+=($!)
    etcd_endpoints+="${etcd_endpoints:+, }\"http://127.0.0.1:${clients[$i]}\""
  done
  for i in $(seq 1 200); do
    curl -s -X POST "http://127.0.0.1:${clients[0]}/v3/maintenance/status" -d '{}' | grep -q '"leader"' && return
    sleep 0.1
  done
  echo "etcd did not elect a leader" >&2
  exit 1
}

cluster() {
  if [[ -n ${FAULTS:-} ]]; then
    FAILOVER_FAULTS=$FAULTS FOYER_BIN=$FOYER_BIN node "$(dirname "$0")/../tests/lib/run-node.js" --timeout=3600000 \
      "$(dirname "$0")/../tests/cluster/failover.test.js"
    return
  fi
  start_etcd
  write_config "$work/single.toml" "$(free_port)" "$(room_toml bench 60)"
  write_config "$work/cluster.toml" "$(free_port)" "$(room_toml bench 60)" \
    "$(printf '[cluster]\netcd = [%s]\nnode_id = "bench"\nsecrets_dir = "%s"' "$etcd_endpoints" "$work/shared")"
  local -A pid port
  start_two single cluster
  # A standby copies the leader's log all along (STANDBY=0: none); the leader's metrics say
  # how far behind it is, sampled every 0.2 s. On one machine it takes CPU from the leader.
  [[ ${STANDBY:-1} == 0 ]] || start_standby
  local standby=", a standby on this machine"
  [[ ${STANDBY:-1} == 0 ]] && standby=""
  local -A label=([single]="foyer, one node" [cluster]="foyer, cluster mode, three etcd members$standby")
  machine
  echo "durable joins (proofs solved ahead) and status polls; $connections connections, $duration s per run, $rounds rounds, base_bits ${BASE_BITS:-4}"
  alternate single cluster joins_and_polls
  echo "summary (medians of the alternating rounds), cluster mode against one node"
  ratio_line single cluster joins joins join 0.4
  ratio_line single cluster polls polls status 0.95
  [[ ${STANDBY:-1} == 0 ]] || standby_lag "$work/lag.log"
}

# start_standby: a second cluster node on the same etcd, and a sampler of the leader's
# cluster metrics into $work/lag.log.
start_standby() {
  write_config "$work/standby.toml" "$(free_port)" "$(room_toml bench 60)" \
    "$(printf '[cluster]\netcd = [%s]\nnode_id = "bench-standby"\nsecrets_dir = "%s"' "$etcd_endpoints" "$work/shared")"
  "$FOYER_BIN" serve --config "$work/standby.toml" --data-dir "$work/standby-data" >"$work/standby.log" 2>&1 &
  started_pids+=($!)
  (while sleep 0.2; do
    curl -s "http://127.0.0.1:${port[cluster]}/metrics" |
      awk -v t="$(date +%s.%N)" '/^foyer_cluster_(standby_lag_entries|log_last_entry|standbys) / {printf "%s %s %s\n", t, $1, $2}'
  done) >"$work/lag.log" 2>/dev/null &
  started_pids+=($!)
}

# standby_lag LOG: the standby's lag behind the leader over the whole run, in entries and
# in the time the leader took to write that many at that moment (the last second's rate).
standby_lag() {
  python3 - "$1" <<'EOF'
import statistics, sys
samples = {}
for line in open(sys.argv[1]):
    t, name, value = line.split()
    samples.setdefault(float(t), {})[name] = float(value)
rows = sorted((t, s) for t, s in samples.items()
              if s.get("foyer_cluster_standbys") == 1 and "foyer_cluster_standby_lag_entries" in s)
if not rows:
    sys.exit("  standby lag: no sample with the standby reporting")
lags, behind_ms = [], []
for i, (t, s) in enumerate(rows):
    lag = s["foyer_cluster_standby_lag_entries"]
    lags.append(lag)
    back = next((r for r in reversed(rows[:i]) if t - r[0] >= 1.0), None)
    if back:
        rate = (s["foyer_cluster_log_last_entry"] - back[1]["foyer_cluster_log_last_entry"]) / (t - back[0])
        behind_ms.append(1000 * lag / rate if rate > 0 else 0)
q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
print("  standby apply lag, %d samples 0.2 s apart (a standby reports at most once a second): entries behind"
      " median %.0f, p99 %.0f, max %.0f" % (len(lags), statistics.median(lags), q(lags, 0.99), max(lags)))
print("    as the leader's time to write them: median %.0f ms, p99 %.0f ms, max %.0f ms; last sample %.0f behind"
      % (statistics.median(behind_ms), q(behind_ms, 0.99), max(behind_ms), lags[-1]))
EOF
}

holds() {
  local rate=${RATE:-8000} visitors=${VISITORS:-400} hold_for=${HOLD_FOR_MS:-200} site=bench-site-token-0123456789
  # Open loop: each connection sends every connections/RATE seconds; 64 send 8,000/s at
  # 8 ms apart each, slack for answers late by a few ms.
  local paced_connections=${HOLD_CONNECTIONS:-64}
  # Admission follows the seats: the hot room admits as the visitors' holds free their
  # slots. The polls go to a room without seats, as in compare.
  # The per-pass request budget off: 400 passes make every attempt here, far past it.
  server_extra=$(printf 'site_token = "%s"\nhold_requests_per_minute = 0' "$site") \
    write_config "$work/foyer.toml" "$(free_port)" "$(room_toml bench 60)" \
    "$(room_toml hot 600000 "$(printf '[rooms.inventory]\ntotal = 200\nhold_seconds = 60\nmax_seats_per_hold = 4')")"
  local target ng_port
  start_with_reference
  echo "hot room: 200 seats, 2 a hold, $visitors visitors a run, placed holds released after $hold_for ms;" \
    "$connections connections (open loop: $paced_connections at $rate/s), $duration s per run, $rounds rounds, $threads load thread(s)"
  local ng_worker round
  ng_worker=$(pgrep -P "$nginx_pid" | head -1)
  local holds_args=(--scenario holds --target "$target" --room hot --visitors "$visitors" --seats 2 --site-token "$site"
    --hold-for-ms "$hold_for" -d "$duration")
  for round in $(seq 1 "$rounds"); do
    reference_round "$round" "$ng_worker"
    echo "round $round of $rounds: foyer, hold attempts as fast as they come (closed loop):"
    load "$work/closed$round.out" "$foyer_pid" "${holds_args[@]}" -c "$connections"
    echo "round $round of $rounds: foyer, hold attempts at $rate/s (open loop):"
    load "$work/paced$round.out" "$foyer_pid" "${holds_args[@]}" -c "$paced_connections" --rate "$rate"
  done
  echo "inventory after the runs: $(curl -s "http://$target/api/v1/rooms/hot/inventory")"

  each() { local r; for r in $(seq 1 "$rounds"); do result "$work/$1$r.out" "$2"; done; }
  each_cpu() { local r; for r in $(seq 1 "$rounds"); do cpu_of "$work/$1$r.out"; done; }
  local placed='(.outcomes.placed // 0) / .seconds'
  local refused='((.outcomes.sold_out // 0) + (.outcomes.live_hold_exists // 0)) / ([.ops, 1] | max)'
  python3 - "$(median $(each nginx .ops_per_s))" "$(median $(each polls .ops_per_s))" \
    "$(median $(each closed .ops_per_s))" "$(median $(each closed "$placed"))" \
    "$(median $(each paced .ops_per_s))" "$(median $(each paced "$placed"))" "$(median $(each paced "$refused"))" \
    "$(median $(each paced .hold.p50_us))" "$(median $(each paced .hold.p99_us))" \
    "$(median $(each closed .hold.p50_us))" "$(median $(each closed .hold.p99_us))" \
    "$(median $(each_cpu nginx))" "$(median $(each_cpu polls))" "$(median $(each_cpu closed))" "$(median $(each_cpu paced))" \
    "$(python3 -c "import sys; print(sum(map(float, sys.argv[1:])))" $(each closed .errors) $(each paced .errors))" "$rate" <<'EOF'
import sys
(nginx, polls, closed, closed_placed, paced, paced_placed, refused_share, p50, p99, closed_p50, closed_p99,
 cpu_nginx, cpu_polls, cpu_closed, cpu_paced, errors, rate) = map(float, sys.argv[1:])
print("summary (medians of the alternating rounds; nginx %.0f/s, status polls %.0f/s)" % (nginx, polls))
print("  open loop at %.0f/s: %.0f attempts/s, %.1f holds placed/s, %.1f%% refused (sold_out, live_hold_exists);"
      " p50 %.2f ms, p99 %.2f ms (from when each attempt was due)" % (rate, paced, paced_placed, 100 * refused_share, p50 / 1000, p99 / 1000))
print("  closed loop: %.0f attempts/s (%.2fx nginx, %.2fx polls), %.1f holds placed/s; p50 %.2f ms, p99 %.2f ms" %
      (closed, closed / nginx, closed / polls, closed_placed, closed_p50 / 1000, closed_p99 / 1000))
print("  server CPU per operation: nginx %.1f us, poll %.1f us; hold attempt %.1f us open loop (%.2fx nginx's, %.2fx a poll's),"
      " %.1f us closed loop (%.2fx nginx's, %.2fx a poll's), the site's releases included" %
      (cpu_nginx, cpu_polls, cpu_paced, cpu_paced / cpu_nginx, cpu_paced / cpu_polls, cpu_closed, cpu_closed / cpu_nginx, cpu_closed / cpu_polls))
print("  errors (all hold runs): %d" % errors)
EOF
}

scale() {
  machine
  SCALE_VISITORS=${VISITORS:-10000} SCALE_SECONDS=${SECONDS_RUN:-60} SCALE_POLL_MS=${POLL_MS:-10000} FOYER_BIN=$FOYER_BIN \
    node --test "$(dirname "$0")/../tests/nginx/scale.test.js" | grep -E '^# (SCALE|pass|fail)'
}

case "$mode" in
  compare) compare ;;
  memory) memory ;;
  coldplay) coldplay ;;
  ticker) ticker ;;
  sinks) sinks ;;
  notices) notices ;;
  holds) holds ;;
  scale) scale ;;
  io_threads) io_threads ;;
  cluster) cluster ;;
  *) echo "usage: $0 [compare|memory|coldplay|ticker|sinks|notices|holds|scale|io_threads]" >&2; exit 2 ;;
esac
