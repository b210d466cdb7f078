// `foyer audit URL ROOM` (src/app/audit_cli.cpp, core/fairness/draw_audit.cpp), the
// binary's own whole-draw audit, against a real `foyer serve` whose lottery room has drawn:
// the same checks and the same three states as the Node auditor (web/js/audit/audit.js),
// pinned keys, a wrong pinned key failing, and an unreachable server named with the cause.
// tests/integration/audit.test.js runs it on a drand draw with two witnesses.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { auditDraw } from '../../web/js/audit/audit.js';
import { foyerAudit } from '../lib/audit-cli.js';
import { drawnRoom } from '../lib/plain-draw.js';

// The check lines of an audit's output: [state, name, detail].
const lines = (stdout) => [...stdout.matchAll(/^(pass|FAIL|absent) +([a-z ]+?)(?: \[lane [^\]]+\])?: (.*)$/gm)]
  .map(([, state, name, detail]) => [state, name, detail]);

test('foyer audit checks a drawn room as the Node auditor does, in three states', async (t) => {
  const { foyer, room, vkey } = await drawnRoom(t, { entrants: 300 });

  const run = await foyerAudit(foyer.url, room, '--vkey', vkey);
  assert.equal(run.status, 3, run.stdout + run.stderr);
  const checks = lines(run.stdout);
  // The same checks, in the same order and states, as the independent Node implementation.
  const node = await auditDraw(foyer.url, room, { vkey });
  const state = { pass: 'pass', fail: 'FAIL', absent: 'absent' };
  assert.deepEqual(checks.map(([s, name]) => [s, name]), node.checks.map((c) => [state[c.status], c.name]));
  assert.deepEqual(checks.filter(([s]) => s === 'absent').map(([, name]) => name),
    ['witness keys', 'witnessed commit', 'witnessed close', 'beacon', 'close before beacon', 'reveal after quorum']);
  assert.match(run.stdout, /^pass {4}ledger key: .* \(pinned\)$/m);
  assert.match(run.stdout, /^pass {4}places: all 300 places recomputed, SHA-256 [0-9a-f]{64}$/m);
  assert.match(run.stdout, /^absent {2}beacon: no beacon: the organiser knew the seed/m);
  assert.match(run.stdout, /^INCOMPLETE: 10 of 16 checks passed, 0 failed, 6 absent$/m);

  // Not pinned: the key came from the server itself, and says so.
  const unpinned = await foyerAudit(foyer.url, room);
  assert.equal(unpinned.status, 3);
  assert.match(unpinned.stdout, /^absent {2}ledger key: .*as the audited server publishes it, not pinned/m);
  // Another key pinned fails, and the checks that rest on it are not run.
  const wrong = await foyerAudit(foyer.url, room, '--vkey', 'other+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
  assert.equal(wrong.status, 1);
  assert.match(wrong.stdout, /^FAIL {4}ledger key: the published key .* is not the pinned other\+/m);
  assert.match(wrong.stdout, /^FAIL {4}places: not run/m);
  assert.match(wrong.stdout, /^FAIL: 0 of 16 checks passed, 16 failed, 0 absent$/m);
  // A room the ledger has no draw of fails its order check.
  const other = await foyerAudit(foyer.url, 'nope', '--vkey', vkey);
  assert.equal(other.status, 1);
  assert.match(other.stdout, /^FAIL {4}entries order: room nope's entries are none/m);

  // Unreachable: the URL and the cause, not "fetch failed".
  const down = await foyerAudit('http://127.0.0.1:1', room);
  assert.equal(down.status, 1);
  assert.match(down.stdout, /^FAIL {4}ledger key: http:\/\/127\.0\.0\.1:1\/api\/v1\/ledger: cannot connect: Connection refused$/m);
  // Bad usage.
  assert.equal((await foyerAudit('not a url', room)).status, 2);
  assert.equal((await foyerAudit(foyer.url, room, '--witness', 'w+00000000+AA==', '--quorum', '2')).status, 2);
});

test('foyer audit checks each lane\'s own draw, as the Node auditor does', async (t) => {
  const { foyer, room, vkey } = await drawnRoom(t, { entrants: 30, members: 12 });
  const run = await foyerAudit(foyer.url, room, '--vkey', vkey);
  assert.equal(run.status, 3, run.stdout + run.stderr);
  const node = await auditDraw(foyer.url, room, { vkey });
  const state = { pass: 'pass', fail: 'FAIL', absent: 'absent' };
  const lanes = [...run.stdout.matchAll(/^(pass|FAIL|absent) +([a-z ]+?)(?: \[lane ([^\]]+)\])?: /gm)]
    .map(([, s, name, lane]) => [s, name, lane ?? '']);
  assert.deepEqual(lanes, node.checks.map((c) => [state[c.status], c.name, c.lane ?? '']));
  assert.match(run.stdout, /^pass {4}places \[lane members\]: all 12 places recomputed/m);
  assert.match(run.stdout, /^pass {4}distinct entrants \[lane members\]: 12 different entrant ids$/m);
  assert.match(run.stdout, /^pass {4}entries order: commit at \d+, close at \d+, reveal at \d+; lane members: /m);
});
