#!/usr/bin/env bash
# Installs a built .deb into a fresh Debian 12 root (/work/shared/tools/fresh-debian.sh,
# debootstrap minbase, no systemd), runs the installed unit's ExecStart as the unit's
# User, asks the demo room, purges the package and checks what is left. Needs root;
# takes minutes (the first run builds the base root).
#
#   packaging/deb/test.sh build-release/foyer_0.1.0_amd64.deb
set -euo pipefail

if [ "${1:-}" != --inside ]; then
  deb=$(realpath "${1:?usage: $0 path/to/foyer_VERSION_ARCH.deb}")
  fresh=${FRESH_DEBIAN:-/work/shared/tools/fresh-debian.sh}
  # fresh-debian.sh clones a git repository into the root: one holding the .deb and this.
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp "$deb" "$0" "$work/"
  git -C "$work" init -q
  git -C "$work" add .
  git -C "$work" -c user.name=test -c user.email=test@localhost commit -q -m "the package under test"
  exec "$fresh" "$work" "bash ./$(basename "$0") --inside"
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

apt-get update -q >/dev/null
apt-get install -y -q ./foyer_*.deb curl >/dev/null
ok "apt-get install ./$(ls foyer_*.deb)"

[ -x /usr/bin/foyer ] || fail "no /usr/bin/foyer"
dpkg-query -W -f='${Conffiles}\n' foyer | grep -q '^ /etc/foyer/foyer.toml ' || fail "foyer.toml is not a conffile"
unit=/usr/lib/systemd/system/foyer.service
[ -f "$unit" ] || fail "no $unit"
getent passwd foyer >/dev/null || fail "no user foyer"
[ "$(stat -c %U:%a /var/lib/foyer)" = foyer:700 ] || fail "/var/lib/foyer is $(stat -c %U:%a /var/lib/foyer)"
ok "binary, conffile, unit, user foyer, /var/lib/foyer 0700"

# The unit's command line as systemd would run it ('-', '@', '+', '!' prefixes dropped).
read -r -a command <<<"$(sed -n 's/^ExecStart=[-@:+!]*//p' "$unit")"
[ "${command[0]}" = /usr/bin/foyer ] || fail "ExecStart runs ${command[0]}, not the packaged binary"
user=$(sed -n 's/^User=//p' "$unit")
as_user=()
[ -n "$user" ] && as_user=(setpriv --reuid="$user" --regid="$user" --init-groups --)
# The root shares this machine's network: any free loopback port rather than the file's 8080.
log=$(mktemp)
"${as_user[@]}" "${command[@]}" --listen 127.0.0.1:0 2>"$log" &
pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.*serving [0-9]* room(s) on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "foyer exited at start"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; fail "foyer did not listen within 10 s"; }
ok "started as ${user:-root}: ${command[*]}"

room=$(curl -fsS "http://127.0.0.1:$port/api/v1/rooms/demo") || fail "GET /api/v1/rooms/demo"
grep -q '"id":"demo"' <<<"$room" || fail "the demo room answered $room"
ok "GET /api/v1/rooms/demo: ${room:0:80}..."
[ "$(stat -c %U /var/lib/foyer/secret)" = "${user:-root}" ] || fail "the data dir is not the user's"

kill -TERM "$pid"
wait "$pid" || fail "foyer exited $? on SIGTERM"
ok "SIGTERM: drained and exited 0"

apt-get purge -y -q foyer >/dev/null
ok "apt-get purge foyer"
for gone in /usr/bin/foyer /etc/foyer "$unit" /var/lib/foyer /var/log/foyer; do
  [ ! -e "$gone" ] || fail "$gone is left after purge"
done
getent passwd foyer >/dev/null || fail "the foyer user went with the purge"
ok "purge: the binary, the config, the unit, the data and the logs are gone; the user foyer stays"
echo "PASS"
