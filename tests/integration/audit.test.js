// The whole-draw audit (web/js/audit/audit.js, packaging/foyer-audit.mjs) against the real
// binary: a drand draw with two Go witnesses and the recorded round passes every check,
// under Node and as the CLI, every key pinned; the binary's own `foyer audit` passes all
// but the BLS check it cannot make. Then a loopback mirror of what the server published, with one
// file rewritten per case, fails the check that case is about.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { foyerAudit, nodeAudit } from '../lib/audit-cli.js';
import { auditDraw, CHECKS } from '../../web/js/audit/audit.js';
import { checkpointNote, noteKey, serveFiles, tileLog } from '../lib/ledger-writer.js';
import { ROUND, runDraw } from '../lib/real-draw.js';

const entrants = 300; // a full tile and a partial one

const entriesOf = (bundle) => {
  const out = [];
  for (let at = 0; at < bundle.length; at += 2 + bundle.readUInt16BE(at)) out.push(bundle.subarray(at + 2, at + 2 + bundle.readUInt16BE(at)));
  return out;
};
const bundleOf = (entries) => Buffer.concat(entries.flatMap((e) => [Buffer.of(e.length >> 8, e.length & 0xff), e]));

function failed(report) {
  return report.checks.filter((c) => c.status === 'fail' && !c.detail.startsWith('not run')).map((c) => c.name);
}

test('a real draw with two witnesses and a recorded round passes the whole audit; each tampering fails its check', async (t) => {
  const draw = await runDraw({ entrants });
  t.after(() => draw.close());
  const { foyer, room, vkey, witnesses, lottery } = draw;
  assert.equal(lottery.lobby_size, entrants);

  // Under Node, recording every file the audit reads.
  const read = new Set();
  const recording = (url, ...rest) => {
    read.add(new URL(url).pathname.slice(1));
    return fetch(url, ...rest);
  };
  const report = await auditDraw(foyer.url, room, { vkey, witnesses, fetch: recording });
  assert.deepEqual(report.checks.filter((c) => c.status !== 'pass'), [], JSON.stringify(report.checks, null, 1));
  assert.equal(report.ok, true);
  assert.deepEqual(report.checks.map((c) => c.name), CHECKS);
  assert.equal(report.fairness.lobbySize, entrants);
  assert.equal(report.fairness.timeline.beaconRound, ROUND);
  assert.equal(report.fairness.timeline.witnessedClose.length, 2);

  // As the CLI: every key pinned, every check passes; without pins, the keys' checks are
  // absent, not passed, and the exit code says so.
  const pins = ['--vkey', vkey, ...witnesses.flatMap((w) => ['--witness', w])];
  const pinned = await nodeAudit(foyer.url, room, ...pins);
  assert.equal(pinned.status, 0, pinned.stdout + pinned.stderr);
  assert.match(pinned.stdout, /^PASS: 16 of 16 checks passed, 0 failed, 0 absent/m);
  const unpinned = await nodeAudit(foyer.url, room);
  assert.equal(unpinned.status, 3, unpinned.stdout + unpinned.stderr);
  assert.match(unpinned.stdout, /^absent {2}ledger key: .*not pinned/m);
  assert.match(unpinned.stdout, /^absent {2}witness keys: 2 witnesses .*not pinned/m);
  assert.match(unpinned.stdout, /^INCOMPLETE: 14 of 16 checks passed, 0 failed, 2 absent/m);
  // The binary's own audit, every key pinned: all passes but the BLS check it cannot make.
  const binary = await foyerAudit(foyer.url, room, ...pins);
  assert.equal(binary.status, 3, binary.stdout + binary.stderr);
  assert.match(binary.stdout, /^absent {2}beacon: drand quicknet round 30662982, whose BLS signature this program cannot check/m);
  assert.match(binary.stdout, /^pass {4}witnessed close: checkpoint of \d+ entries cosigned by witness-a\.example, witness-b\.example/m);
  assert.match(binary.stdout, /^pass {4}close before beacon: /m);
  assert.match(binary.stdout, /^INCOMPLETE: 15 of 16 checks passed, 0 failed, 1 absent$/m);

  // A mirror of what the server published, to rewrite.
  const published = new Map();
  for (const p of read) {
    const res = await fetch(`${foyer.url}/${p}`);
    assert.equal(res.status, 200, p);
    published.set(p, Buffer.from(await res.arrayBuffer()));
  }
  const ledgerBundle = [...published.keys()].find((p) => p.startsWith('ledger/tile/entries/'));
  const lobbyBundle = [...published.keys()].find((p) => /^ledger\/lobbies\/[^/]+\/tile\/entries\/001/.test(p));
  const info = JSON.parse(published.get('api/v1/ledger'));
  const entries = entriesOf(published.get(ledgerBundle));
  assert.deepEqual(entries.map((e) => /^kind (\S+)$/m.exec(e)[1]), ['commit', 'witnessed', 'close', 'witnessed', 'reveal']);

  // A whole ledger of `list` signed by another key under the same origin, which the
  // server's /api/v1/ledger is rewritten to publish.
  const forgedLedger = (list) => {
    const other = noteKey(info.origin);
    const log = tileLog(list);
    const files = new Map(published);
    for (const p of files.keys()) if (p.startsWith('ledger/tile/')) files.delete(p);
    for (const [p, body] of log.files) files.set(`ledger/${p}`, body);
    files.set('ledger/checkpoint', checkpointNote(info.origin, list.length, log.root, other));
    files.set('api/v1/ledger', JSON.stringify({ ...info, vkey: other.vkey }));
    return files;
  };
  const lines = published.get('ledger/checkpoint').toString().split('\n');

  const cases = [
    {
      what: 'an entrant dropped from a lobby bundle',
      files: new Map(published).set(lobbyBundle, bundleOf(entriesOf(published.get(lobbyBundle)).slice(1))),
      fails: ['lobby tiles'],
    },
    {
      what: 'two entrants swapped',
      files: (() => {
        const list = entriesOf(published.get(lobbyBundle));
        [list[0], list[1]] = [list[1], list[0]];
        return new Map(published).set(lobbyBundle, bundleOf(list));
      })(),
      fails: ['lobby tiles'],
    },
    {
      what: "the reveal's places altered",
      files: new Map(published).set(ledgerBundle, bundleOf(entries.map((e, i) => (i === 4
        ? Buffer.from(e.toString().replace(/^places (.)/m, (_, c) => `places ${c === '0' ? '1' : '0'}`)) : e)))),
      fails: ['ledger tiles'],
    },
    {
      what: 'the ledger checkpoint re-signed with another key',
      files: new Map(published).set('ledger/checkpoint',
        checkpointNote(info.origin, Number(lines[1]), Buffer.from(lines[2], 'base64'), noteKey(info.origin))),
      fails: ['ledger checkpoint'],
    },
    {
      what: 'the whole ledger re-signed with another key, the key pinned',
      files: forgedLedger(entries),
      pinned: true,
      fails: ['ledger key'],
    },
    {
      what: 'the whole ledger re-signed with another key, published as the key',
      files: forgedLedger(entries),
      fails: ['witnessed commit', 'witnessed close', 'lobby checkpoint'],
    },
    {
      what: 'a reveal before the quorum: the witnessed close missing',
      files: forgedLedger(entries.filter((_, i) => i !== 3)),
      fails: ['entries order'],
    },
    {
      what: 'a reveal before the quorum: the witnessed close after the reveal',
      files: forgedLedger([entries[0], entries[1], entries[2], entries[4], entries[3]]),
      fails: ['entries order'],
    },
  ];
  for (const c of cases) {
    const mirror = await serveFiles(c.files);
    try {
      const tampered = await auditDraw(mirror.url, room, c.pinned ? { vkey } : {});
      assert.equal(tampered.ok, false, c.what);
      assert.deepEqual(failed(tampered), c.fails, `${c.what}: ${JSON.stringify(tampered.checks.filter((x) => !x.ok), null, 1)}`);
    } finally {
      await mirror.close();
    }
  }

  // The CLI fails a tampered record too, naming the check.
  const mirror = await serveFiles(cases[0].files);
  try {
    const run = await nodeAudit(mirror.url, room, '--vkey', vkey);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^FAIL {4}lobby tiles: /m);
    const binaryRun = await foyerAudit(mirror.url, room, '--vkey', vkey);
    assert.equal(binaryRun.status, 1, binaryRun.stdout + binaryRun.stderr);
    assert.match(binaryRun.stdout, /^FAIL {4}lobby tiles: lobby tile\/entries\/001\S* /m);
  } finally {
    await mirror.close();
  }
});
