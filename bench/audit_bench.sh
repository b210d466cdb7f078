#!/usr/bin/env bash
# The whole-draw audit on a large lobby: tests/lib/ledger-writer.js writes a ledger and a
# lobby of N entrants (default 1,000,000), serves them on loopback, and
# packaging/foyer-audit.mjs audits the draw over HTTP as it would a real server. Prints
# the writer's time, the audit's wall time and its exit status (0 = every check passed).
#
#   bench/audit_bench.sh [N]
#
# The writer computes the N places with web/js/lottery.js's permutation, not with its own
# node:crypto HMACs, which would take minutes at this size; tests/js/audit.test.js checks
# the two against each other.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-1000000}"
echo "audit bench: $n entrants, load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version), $(git -C "$repo" rev-parse --short HEAD)"
REPO="$repo" N="$n" node --input-type=module -e '
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
const { TestLedger, serveFiles } = await import(`${process.env.REPO}/tests/lib/ledger-writer.js`);
const { permutation } = await import(`${process.env.REPO}/web/js/lottery.js`);
const n = Number(process.env.N);
let t = performance.now();
const ledger = new TestLedger();
const ids = Array.from({ length: n }, () => randomBytes(16));
ledger.draw({ room: "big", entrants: ids, places: (key, size) => {
  const pi = permutation(key, size);
  return Array.from({ length: size }, (_, i) => pi.place(i));
} });
const files = ledger.files();
console.log(`written in ${((performance.now() - t) / 1000).toFixed(1)} s: ${files.size} files`);
const server = await serveFiles(files);
t = performance.now();
const json = `${process.env.TMPDIR ?? "/tmp"}/audit-bench-${process.pid}.json`;
execFile(process.execPath, [`${process.env.REPO}/packaging/foyer-audit.mjs`, server.url, "big", "--vkey", ledger.key.vkey, "--json", json],
  { maxBuffer: 1 << 24 }, async (error, stdout) => {
    const seconds = (performance.now() - t) / 1000;
    process.stdout.write(stdout.split("\n").filter((l) => /^(FAIL|PASS|ok +(places|lobby tiles))/.test(l)).join("\n") + "\n");
    const { checks } = JSON.parse(readFileSync(json, "utf8"));
    rmSync(json);
    console.log(checks.filter((c) => c.ms >= 100).map((c) => `  ${c.name}: ${(c.ms / 1000).toFixed(1)} s`).join("\n"));
    console.log(`audit of ${n} entrants: ${seconds.toFixed(1)} s wall, exit ${error?.code ?? 0}`);
    await server.close();
    process.exitCode = error ? 1 : 0;
  });
'
