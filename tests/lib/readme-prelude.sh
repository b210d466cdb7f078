# Sourced by tests/integration/readme.test.js before each README block it runs.
set -euo pipefail
readme_pids=()
readme_stop() {
  for p in "${readme_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait
}
trap readme_stop EXIT

# Every curl's HTTP status, on stderr, for the test to check against the README.
curl() { command curl -w '%{stderr}\nREADME-CURL-STATUS %{http_code}\n' "$@"; }

# A reader runs `foyer serve` and `foyer guard` in a terminal of their own: here they go to
# the background, and the block goes on once their /healthz answers.
foyer() {
  case "$1" in
    serve | guard) readme_background "$@" ;;
    *) command foyer "$@" ;;
  esac
}

readme_background() {
  local args=("$@") listen="" i
  for ((i = 0; i + 1 < ${#args[@]}; i++)); do
    if [[ ${args[i]} == --listen ]]; then listen=${args[i + 1]}; fi
  done
  if [[ -z $listen ]]; then
    listen=127.0.0.1:$README_PORT
    args+=(--listen "$listen")
  fi
  command foyer "${args[@]}" >>"$README_LOG" 2>&1 &
  readme_pids+=($!)
  for ((i = 0; i < 300; i++)); do
    command curl -fs -o /dev/null "http://$listen/healthz" && return 0
    kill -0 "$!" 2>/dev/null || break
    sleep 0.05
  done
  echo "foyer $1 did not answer on $listen:" >&2
  cat "$README_LOG" >&2
  return 1
}
