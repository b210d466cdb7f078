// The whole-draw audit's three states (web/js/audit/audit.js, packaging/foyer-audit.mjs):
// a guarantee that is not there (no beacon, no witnesses, keys taken from the audited
// server) is "absent", never "passed", and the summary counts only what passed. A real
// lottery room with neither beacon nor witnesses, drawn by the real binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';

import { nodeAudit } from '../lib/audit-cli.js';
import { auditDraw, CHECKS } from '../../web/js/audit/audit.js';
import { drawnRoom } from '../lib/plain-draw.js';

const ABSENT = ['ledger key', 'witness keys', 'witnessed commit', 'witnessed close', 'beacon', 'close before beacon',
  'reveal after quorum'];
const OTHER_VKEY = 'other+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
// A well-formed witness (cosignature) vkey for a witness that never saw this ledger.
const witnessVkey = (name, key = Buffer.alloc(32, 7)) => {
  const id = createHash('sha256').update(Buffer.concat([Buffer.from(name), Buffer.of(0x0a, 0x04), key])).digest().subarray(0, 4);
  return `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(0x04), key]).toString('base64')}`;
};


test('absent guarantees are absent, not passed; only what passed is counted', async (t) => {
  const { foyer, vkey } = await drawnRoom(t);

  const report = await auditDraw(foyer.url, 'tatkal');
  assert.deepEqual(report.checks.map((c) => c.name), CHECKS);
  const byStatus = (status) => report.checks.filter((c) => c.status === status).map((c) => c.name);
  assert.deepEqual(byStatus('absent'), ABSENT, JSON.stringify(report.checks, null, 1));
  assert.deepEqual(byStatus('fail'), []);
  assert.equal(report.ok, false);
  assert.deepEqual([report.passed, report.failed, report.absent], [CHECKS.length - ABSENT.length, 0, ABSENT.length]);
  // Each absence says what it allows.
  const detail = (name) => report.checks.find((c) => c.name === name).detail;
  assert.match(detail('beacon'), /could add entrants to steer the draw/);
  assert.match(detail('witnessed close'), /nothing but the ledger key vouches/);
  assert.match(detail('ledger key'), /not pinned: a server that rewrote its whole ledger/);

  // The ledger key pinned: that check passes, the others stay absent.
  const pinned = await auditDraw(foyer.url, 'tatkal', { vkey });
  assert.equal(pinned.checks.find((c) => c.name === 'ledger key').status, 'pass');
  assert.equal(pinned.absent, ABSENT.length - 1);
  // A witness pinned that the draw never waited for: the draw fails, it does not pass.
  const witnessed = await auditDraw(foyer.url, 'tatkal', { vkey, witnesses: [witnessVkey('witness.example')] });
  assert.equal(witnessed.checks.find((c) => c.name === 'witness keys').status, 'pass');
  assert.equal(witnessed.checks.find((c) => c.name === 'entries order').status, 'fail');

  // The CLI prints the three states and counts only what passed; it exits 3, not 0.
  const run = await nodeAudit(foyer.url, 'tatkal', '--vkey', vkey);
  assert.equal(run.status, 3, run.stdout + run.stderr);
  assert.match(run.stdout, /^absent {2}beacon: no beacon: /m);
  assert.match(run.stdout, /^absent {2}witnessed commit: no witnesses: /m);
  assert.match(run.stdout, /^pass {4}ledger key: .* \(pinned\)$/m);
  assert.doesNotMatch(run.stdout, /^pass .*no (beacon|witnesses)/m);
  assert.match(run.stdout, new RegExp(`^INCOMPLETE: ${CHECKS.length - ABSENT.length + 1} of ${CHECKS.length} checks passed, 0 failed, ${ABSENT.length - 1} absent`, 'm'));

  // Another key pinned fails; an unreachable server is named with the cause.
  const wrong = await nodeAudit(foyer.url, 'tatkal', '--vkey', OTHER_VKEY);
  assert.equal(wrong.status, 1);
  assert.match(wrong.stdout, /^FAIL {4}ledger key: the published key .* is not the pinned other\+/m);
  // A loopback port nothing listens on (fetch refuses the low ones outright).
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address();
  await new Promise((resolve) => closed.close(resolve));
  const unreachable = await nodeAudit(`http://127.0.0.1:${port}`, 'tatkal');
  assert.equal(unreachable.status, 1);
  assert.match(unreachable.stdout, new RegExp(`^FAIL {4}ledger key: http://127\\.0\\.0\\.1:${port}/api/v1/ledger: connect ECONNREFUSED`, 'm'));
  assert.equal((await nodeAudit(foyer.url, 'tatkal', '--quorum', '1')).status, 2);
});
