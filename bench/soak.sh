#!/usr/bin/env bash
# A soak (not in CI): mixed load (10% joins) for MINUTES (15) while RSS and open file
# descriptors of the server are sampled every SAMPLE seconds (10). Leaks show as growth
# after the warm-up; the verdict compares the second half of the run with the first.
#
# Environment: MINUTES, SAMPLE, CONNECTIONS (256), BASE_BITS (4), SCENARIO (long: polls with
# every tenth operation a join; polls: polls only, which separates what requests cost from
# what the growing log costs), FOYER_BIN, FOYER_LOAD.
set -euo pipefail
source "$(dirname "$0")/common.sh"

minutes=${MINUTES:-15}
every=${SAMPLE:-10}
connections=${CONNECTIONS:-256}
port=$(free_port)
# A room that admits 600 a minute, so passes are signed and visitors leave the queue too.
write_config "$work/foyer.toml" "$port" "$(room_toml soak 600)"
start_foyer "$work/foyer.toml" "$work/data" "$work/foyer.log"
machine
echo "soak: $minutes min of ${SCENARIO:-long}, $connections connections, samples every $every s"

"$FOYER_LOAD" --scenario "${SCENARIO:-long}" --target "127.0.0.1:$foyer_port" --room soak -c "$connections" \
  -d $((minutes * 60)) --report-every 60 >"$work/load.out" &
load_pid=$!
started_pids+=("$load_pid")
echo "      t_s   rss_kib   fds" | tee "$work/samples.log"
t0=$(date +%s)
while kill -0 "$load_pid" 2>/dev/null; do
  printf '%9d %9d %5d\n' $(( $(date +%s) - t0 )) "$(rss_kib "$foyer_pid")" "$(fds "$foyer_pid")" | tee -a "$work/samples.log"
  sleep "$every"
done
wait "$load_pid" || true
sed 's/^/    /' "$work/load.out"
printf 'after the load stopped (idle connections closed): rss %s KiB, fds %s\n' "$(rss_kib "$foyer_pid")" "$(fds "$foyer_pid")"
python3 - "$work/samples.log" <<'EOF'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]).readlines()[1:] if l.strip()]
half = len(rows) // 2
a, b = rows[1:half], rows[half:]
mean = lambda xs: sum(xs) / len(xs)
rss_a, rss_b = mean([r[1] for r in a]), mean([r[1] for r in b])
print("RSS: first half mean %.0f KiB, second half mean %.0f KiB (%+.1f%%), max %d KiB" %
      (rss_a, rss_b, 100 * (rss_b - rss_a) / rss_a, max(r[1] for r in rows)))
print("fds: first half %d..%d, second half %d..%d" %
      (min(r[2] for r in a), max(r[2] for r in a), min(r[2] for r in b), max(r[2] for r in b)))
EOF
