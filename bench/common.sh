# Shared by bench/run.sh, bench/soak.sh and bench/lanes.sh (sourced, not run): starting Foyer and the
# nginx reference on loopback, reading RSS, cleaning up whatever was started.

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FOYER_BIN="${FOYER_BIN:-$repo/build-bench/foyer}"
FOYER_LOAD="${FOYER_LOAD:-$repo/build-bench/foyer_load}"
for bin in "$FOYER_BIN" "$FOYER_LOAD"; do
  if [[ ! -x "$bin" ]]; then
    echo "missing $bin: build it with" >&2
    echo "  cmake -S $repo -B $repo/build-bench -DCMAKE_BUILD_TYPE=Release && cmake --build $repo/build-bench --target foyer foyer_load foyer_alloc_count" >&2
    exit 2
  fi
done

# Preloaded into every Foyer started here, the counting allocator (bench/alloc_count) lets
# the load generator report allocations per operation by thread; ALLOC_COUNTS=0 leaves it out.
FOYER_ALLOC_LIB="${FOYER_ALLOC_LIB:-$(dirname "$FOYER_LOAD")/libfoyer_alloc_count.so}"
[[ ${ALLOC_COUNTS:-1} == 1 && -f $FOYER_ALLOC_LIB ]] || FOYER_ALLOC_LIB=""

work="$(mktemp -d /tmp/foyer-bench.XXXXXX)"
started_pids=()
declare -A alloc_counts  # by Foyer's pid: its counting allocator's file

cleanup() {
  # nginx's master is asked to stop so that its worker goes too.
  if [[ -n "${nginx_pid:-}" ]]; then
    kill -TERM "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  for pid in "${started_pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# write_config FILE PORT ROOM_TOML...: bench settings: a low proof-of-work price (4 bits),
# no join pressure (every client is 127.0.0.1), a short challenge life so that the spent
# set stays small at tens of thousands of joins a second. $server_extra, if set, is added
# to [server] (server_extra='site_token = "..."' write_config ...).
write_config() {
  local file=$1 port=$2
  shift 2
  {
    printf '[server]\nlisten = "127.0.0.1:%s"\nmax_connections = 60000\n' "$port"
    [[ -z ${server_extra:-} ]] || printf '%s\n' "$server_extra"
    printf '[proof_of_work]\nbase_bits = %s\nmax_pressure_bits = 0\nchallenge_ttl_ms = 10000\n' "${BASE_BITS:-4}"
    printf '%s\n' "$@"
  } >"$file"
}

room_toml() {  # room_toml ID RATE [EXTRA_LINE]
  printf '[[rooms]]\nid = "%s"\nname = "%s"\nrate_per_minute = %s\ntarget_url = "/welcome"\n%s' "$1" "$1" "$2" "${3:-}"
}

# start_foyer CONFIG DATA_DIR LOG: sets foyer_pid and foyer_port; prints nothing.
# Sets start_ms: from spawn to the "serving" line.
start_foyer() {
  local config=$1 data=$2 log=$3 t0
  t0=$(date +%s%N)
  if [[ -n $FOYER_ALLOC_LIB ]]; then
    LD_PRELOAD="$FOYER_ALLOC_LIB" FOYER_ALLOC_COUNTS="$data.allocs" \
      "$FOYER_BIN" serve --config "$config" --data-dir "$data" >>"$log" 2>&1 &
  else
    "$FOYER_BIN" serve --config "$config" --data-dir "$data" >>"$log" 2>&1 &
  fi
  foyer_pid=$!
  alloc_counts[$foyer_pid]="${FOYER_ALLOC_LIB:+$data.allocs}"
  started_pids+=("$foyer_pid")
  local before
  before=$(grep -c 'serving .* on http' "$log" 2>/dev/null || true)
  for _ in $(seq 1 6000); do
    if [[ $(grep -c 'serving .* on http' "$log" || true) -gt $before ]]; then
      start_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
      foyer_port=$(grep -o 'serving .* on http://127.0.0.1:[0-9]*' "$log" | tail -1 | sed 's/.*://')
      return 0
    fi
    if ! kill -0 "$foyer_pid" 2>/dev/null; then
      echo "foyer did not start:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.01
  done
  echo "foyer did not start in 60 s" >&2
  exit 1
}

# start_nginx PORT BODY_FILE: one worker answering every request with 200 and the body.
start_nginx() {
  local port=$1 body
  body=$(cat "$2")
  mkdir -p "$work/nginx"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 65536; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 65s;
  server {
    listen 127.0.0.1:$port;
    location / {
      default_type application/json;
      return 200 '$body';
    }
  }
}
EOF
  nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
  nginx_pid=$!
  for _ in $(seq 1 500); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null && return 0
    sleep 0.01
  done
  echo "nginx did not start" >&2
  cat "$work/nginx/error.log" >&2
  exit 1
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }

# result FILE JQ_FILTER: a field of foyer_load's RESULT line.
result() { grep '^RESULT ' "$1" | tail -1 | cut -d' ' -f2- | jq -r "$2"; }

# load OUT SERVER_PID ARGS...: runs the load generator ($threads threads), keeps its output, and adds the
# server's CPU time per operation (user + system, all threads): a figure that holds even
# when other work on the machine takes CPU from both sides. The load generator reads it
# around its timed phase alone (--server-pid), split by thread, so that what it does
# before the clock starts (challenges fetched ahead, tickets, passes) is not counted in;
# and the server's allocations the same way, if it runs with the counting allocator.
load() {
  local out=$1 server=$2
  shift 2
  local counts=()
  [[ -z ${alloc_counts[$server]:-} ]] || counts=(--alloc-counts "${alloc_counts[$server]}")
  "$FOYER_LOAD" --threads "$threads" --server-pid "$server" "${counts[@]}" "$@" | tee "$out" | sed 's/^/    /'
  echo "CPU_US_PER_OP $(result "$out" .server_cpu_us.total)" >>"$out"
}

# settle PID: waits (up to 10 s) until the server has used no CPU for 0.3 s, so that the
# background work of a run before (RocksDB's flushes and compactions) is not counted in the next.
settle() {
  local before
  for _ in $(seq 1 33); do
    before=$(cpu_ticks "$1")
    sleep 0.3
    [[ $(cpu_ticks "$1") != "$before" ]] || return 0
  done
}

cpu_of() { awk '/^CPU_US_PER_OP/ {print $2}' "$1"; }

median() { python3 -c "import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))" "$@"; }

machine() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$repo" rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
