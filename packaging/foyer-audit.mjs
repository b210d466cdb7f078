#!/usr/bin/env node
// foyer-audit: checks a whole draw from a Foyer server's public record, with the same
// module the verify page runs (web/js/audit/audit.js). The binary's `foyer audit` is a
// second, independent implementation of the same checks.
//
//   node packaging/foyer-audit.mjs URL ROOM [--vkey VKEY] [--witness VKEY]... [--quorum N] [--json FILE]
//
// --vkey pins the ledger's key and --witness (repeatable) the witnesses' keys, from a
// source you trust; --quorum is how many pinned witnesses must cosign (default: all).
// Without pins the keys are the audited server's own, and those checks say "absent".
// Prints one line per check (pass, FAIL or absent) and the fairness report; exits 0 only
// when every check passed, 1 if one failed, 3 if none failed but a guarantee is absent,
// 2 on bad usage. --json writes the whole report (checks and fairness data) to FILE.
// Node 18 needs --experimental-global-webcrypto for crypto.subtle; this script
// re-runs itself with it when it is missing.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

if (!globalThis.crypto?.subtle) {
  const child = spawnSync(process.execPath, ['--experimental-global-webcrypto', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const { auditDraw } = await import(new URL('../web/js/audit/audit.js', import.meta.url));

function usage(message) {
  console.error(`foyer-audit: ${message}\nusage: foyer-audit URL ROOM [--vkey VKEY] [--witness VKEY]... [--quorum N] [--json FILE]`);
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
const options = { witness: [] };
for (let i = 0; i < args.length; i++) {
  const m = /^--(vkey|witness|quorum|json)(?:=(.*))?$/.exec(args[i]);
  if (m) {
    const value = m[2] ?? args[++i] ?? usage(`--${m[1]} needs a value`);
    if (m[1] === 'witness') options.witness.push(value);
    else options[m[1]] = value;
  } else if (args[i].startsWith('--')) {
    usage(`unknown option ${args[i]}`);
  } else {
    positional.push(args[i]);
  }
}
if (positional.length !== 2) usage('expected URL and ROOM');
const [url, room] = positional;
let quorum;
if (options.quorum != null) {
  quorum = Number(options.quorum);
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > options.witness.length) usage('--quorum must be from 1 to the number of --witness keys');
}

const tty = process.stderr.isTTY;
let lastPhase = null;
const onProgress = ({ phase, done, total }) => {
  if (!tty) return;
  if (phase !== lastPhase && lastPhase !== null) process.stderr.write('\n');
  lastPhase = phase;
  process.stderr.write(`\r${phase}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')}`);
};

const started = performance.now();
const report = await auditDraw(url, room, { vkey: options.vkey, witnesses: options.witness, quorum, onProgress });
const seconds = (performance.now() - started) / 1000;
if (tty && lastPhase) process.stderr.write('\n');

const iso = (ms) => (ms == null ? '—' : new Date(ms).toISOString());
console.log(`Audit of room ${room} at ${url}`);
const LABEL = { pass: 'pass', fail: 'FAIL', absent: 'absent' };
for (const c of report.checks) console.log(`${LABEL[c.status].padEnd(6)}  ${c.name}${c.lane ? ` [lane ${c.lane}]` : ''}: ${c.detail}`);
const { timeline } = report.fairness;
console.log('\nFairness report');
// The general lane's figures, then each other lane's.
for (const { lane, lobbySize, uniformity } of [report.fairness, ...(report.fairness.lanes ?? [])]) {
  const indent = lane ? '    ' : '  ';
  if (lane) console.log(`  lane ${lane}`);
  console.log(`${`${indent}lobby size`.padEnd(22)}${lobbySize ?? '—'}`);
  if (uniformity?.chiSquare != null) {
    console.log(`${indent}join order vs place chi-square ${uniformity.chiSquare.toFixed(1)} on ${uniformity.df} df ` +
      `(${uniformity.bands}×${uniformity.bands} bands), p = ${uniformity.pValue.toFixed(3)}`);
  }
}
console.log(`  commit              ${iso(timeline.commit)}`);
for (const w of timeline.witnessedCommit ?? []) console.log(`    cosigned by ${w.name} ${iso(w.time)}`);
console.log(`  close               ${iso(timeline.close)}`);
for (const w of timeline.witnessedClose ?? []) console.log(`    cosigned by ${w.name} ${iso(w.time)}`);
if (timeline.beaconRound != null) console.log(`  beacon round ${timeline.beaconRound} ${iso(timeline.beacon)}`);
console.log(`  reveal              ${iso(timeline.reveal)}`);
for (const l of timeline.lanes ?? []) {
  console.log(`  lane ${l.lane}: commit ${iso(l.commit)}, close ${iso(l.close)}, reveal ${iso(l.reveal)}`);
}
// Only what passed counts as passed: an absent guarantee is named, never counted in.
const verdict = report.failed > 0 ? 'FAIL' : report.absent > 0 ? 'INCOMPLETE' : 'PASS';
console.log(`\n${verdict}: ${report.passed} of ${report.checks.length} checks passed, ${report.failed} failed, ` +
  `${report.absent} absent, in ${seconds.toFixed(1)} s`);
if (options.json) writeFileSync(options.json, `${JSON.stringify({ ...report, seconds }, null, 2)}\n`);
process.exit(report.failed > 0 ? 1 : report.absent > 0 ? 3 : 0);
