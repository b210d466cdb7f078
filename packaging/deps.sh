#!/usr/bin/env bash
# Installs everything Foyer needs to build, run and test on Debian 12, as root.
# Idempotent: a second run installs nothing and takes about a second.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates curl
  libboost-dev libboost-system-dev librocksdb-dev libsodium-dev libssl-dev
  libsimdjson-dev libfmt-dev catch2 libcli11-dev libtomlplusplus-dev libgoogle-perftools-dev
  libqrencode-dev  # the resume link's QR code
  nginx-light chromium python3 openssl jq  # jq: the README's examples and bench/
  prometheus clang libclang-rt-14-dev
  llvm  # llvm-symbolizer: a sanitizer's or fuzzer's report names the function and line
  golang-go golang-golang-x-mod-dev  # Go's sumdb/note and sumdb/tlog check the public logs (tests/go)
  # The connectors' platforms (connectors/, tests/connectors/): each connector runs in its own.
  # Jetty 9 as a library (libjetty9-java), not the jetty9 service, which would hold port 8080.
  caddy haproxy php-cli php-nyholm-psr7 openjdk-17-jdk-headless libjetty9-java libservlet-api-java
  python3-jwt python3-cryptography python3-uvicorn
  python3-aiosmtpd  # a real SMTP relay on loopback for the email tests (tests/support/smtp_server.py)
  etcd-server etcd-client  # cluster mode's consensus: the failover tests run three members on loopback
  nftables iproute2  # the partition test cuts a leader off from etcd in a network namespace of its own
)
# Node: keep a newer Node already on the machine, else take Debian's.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Test tooling from npm (playwright-core drives Debian's chromium), installed again when
# tests/package-lock.json changes (the copy in node_modules is the lock last installed).
here=$(cd "$(dirname "$0")/.." && pwd)
if ! cmp -s "$here/tests/package-lock.json" "$here/tests/node_modules/.foyer-package-lock.json"; then
  (cd "$here/tests" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.foyer-package-lock.json)
fi

# The web pages' libraries (@noble/curves checks drand signatures), embedded into the
# binary at build time from web/node_modules: installed the same way, by the lock.
if ! cmp -s "$here/web/package-lock.json" "$here/web/node_modules/.foyer-package-lock.json"; then
  (cd "$here/web" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.foyer-package-lock.json)
fi
