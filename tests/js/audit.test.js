// The whole-draw audit (web/js/audit) against the independent writer in
// tests/lib/ledger-writer.js, served on loopback: a sound record passes, and each
// tampering is caught by the check that names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { auditDraw, CHECKS, LANE_CHECKS } from '../../web/js/audit/audit.js';
import { parseEntry } from '../../web/js/audit/entries.js';
import { openNote, parseCheckpoint, parseVkey } from '../../web/js/audit/note.js';
import { indexPath, logFiles } from '../../web/js/audit/tiles.js';
import { timelineEvents } from '../../web/js/audit/timeline.js';
import { checkpointNote, noteKey, placesOf, renamedKey, serveFiles, signatureLine, TestLedger, tileLog } from '../lib/ledger-writer.js';

const ROOM = 'sale';
const cli = fileURLToPath(new URL('../../packaging/foyer-audit.mjs', import.meta.url));
const entrants = (n) => Array.from({ length: n }, () => randomBytes(16));

/** A ledger with another room's draw and then ROOM's; `change` tampers before serving. */
function ledgerWith(options = {}, ledgerOptions = {}) {
  const ledger = new TestLedger(ledgerOptions);
  ledger.draw({ room: 'earlier', entrants: entrants(3) });
  ledger.draw({ room: ROOM, entrants: entrants(600), ...options });
  return ledger;
}

async function audit(files, options = {}) {
  const server = await serveFiles(files);
  try {
    return await auditDraw(server.url, ROOM, options);
  } finally {
    await server.close();
  }
}

function failed(report) {
  return report.checks.filter((c) => c.status === 'fail' && !c.detail.startsWith('not run')).map((c) => (c.lane ? `${c.name} [${c.lane}]` : c.name));
}

// The ledger's and the witnesses' keys, pinned.
const pinsOf = (ledger) => ({ vkey: ledger.key.vkey, witnesses: ledger.witnesses.map((w) => w.vkey) });
const statusOf = (report, status) => report.checks.filter((c) => c.status === status).map((c) => c.name);

const replaceEntry = (ledger, kind, edit) => {
  const i = ledger.entries.findLastIndex((e) => e.toString().includes(`kind ${kind}\nroom ${ROOM}\n`));
  ledger.entries[i] = Buffer.from(edit(ledger.entries[i].toString()));
};

test('a sound draw fails no check, with the fairness report; an operator\'s beacon is absent, not passed', async () => {
  const ledger = ledgerWith({ beacon: { kind: 'operator', value: 'c0ffee' } });
  const report = await audit(ledger.files(), pinsOf(ledger));
  assert.deepEqual(report.checks.map((c) => c.name), CHECKS);
  assert.deepEqual(statusOf(report, 'fail'), []);
  assert.deepEqual(statusOf(report, 'absent'), ['beacon', 'close before beacon']);
  assert.equal(report.ok, false);
  assert.deepEqual([report.passed, report.absent], [CHECKS.length - 2, 2]);
  const { lobbySize, uniformity, timeline } = report.fairness;
  assert.equal(lobbySize, 600);
  assert.equal(uniformity.bands, 10);
  assert.ok(uniformity.pValue > 1e-6, JSON.stringify(uniformity));
  assert.equal(timeline.close - timeline.commit, 60_000);
  assert.deepEqual(timeline.witnessedClose.map((w) => w.name), ['witness.one', 'witness.two']);
  assert.equal(timeline.witnessedClose[0].time, timeline.close + 2_000);
  assert.equal(timeline.reveal, timeline.close + 10_000);
});

test('without witnesses, a beacon or pinned keys nothing fails, and each missing guarantee is absent', async () => {
  const ledger = ledgerWith({}, { witnesses: [] });
  const report = await audit(ledger.files());
  assert.equal(report.failed, 0, JSON.stringify(report.checks));
  assert.equal(report.ok, false);
  assert.deepEqual(statusOf(report, 'absent'), ['ledger key', 'witness keys', 'witnessed commit', 'witnessed close',
    'beacon', 'close before beacon', 'reveal after quorum']);
  const detail = Object.fromEntries(report.checks.map((c) => [c.name, c.detail]));
  assert.match(detail.beacon, /no beacon/);
  assert.match(detail['witnessed close'], /no witnesses/);
  assert.match(detail['ledger key'], /not pinned/);
});

test('an entrant dropped from the tiles is caught', async () => {
  const ledger = ledgerWith();
  const lobby = ledger.lobbies.get(ROOM);
  // Only the bundle: the tiles no longer match it.
  const bundle = lobby.get('tile/entries/000');
  lobby.set('tile/entries/000', Buffer.concat([bundle.subarray(0, 18 * 5), bundle.subarray(18 * 6), bundle.subarray(0, 18)]));
  assert.deepEqual(failed(await audit(ledger.files())), ['lobby tiles']);
});

test('an entrant dropped and the lobby log rebuilt and re-signed is caught', async () => {
  const ledger = ledgerWith();
  const original = ledger.lobbies.get(ROOM);
  const bundles = [...original].filter(([p]) => p.startsWith('tile/entries/')).map(([, b]) => b);
  const all = [];
  for (const b of bundles) for (let o = 0; o < b.length; o += 18) all.push(b.subarray(o + 2, o + 18));
  all.splice(7, 1);
  const rebuilt = tileLog(all); // the lobby one entrant short, tiled and signed anew
  const files = new Map(rebuilt.files);
  files.set('checkpoint', checkpointNote(`${ledger.origin}/lobby/${ROOM}`, all.length, rebuilt.root, ledger.key));
  ledger.lobbies.set(ROOM, files);
  assert.deepEqual(failed(await audit(ledger.files())), ['lobby checkpoint']);
});

test('two entrants swapped are caught', async () => {
  const ledger = ledgerWith();
  const lobby = ledger.lobbies.get(ROOM);
  const bundle = Buffer.from(lobby.get('tile/entries/001'));
  const a = Buffer.from(bundle.subarray(2, 18));
  bundle.copy(bundle, 2, 20, 36);
  a.copy(bundle, 20);
  lobby.set('tile/entries/001', bundle);
  assert.deepEqual(failed(await audit(ledger.files())), ['lobby tiles']);
});

test('a changed place is caught', async () => {
  const swapTwo = (key, n) => {
    const places = placesOf(key, n);
    [places[3], places[4]] = [places[4], places[3]];
    return places;
  };
  const ledger = ledgerWith({ places: swapTwo });
  assert.deepEqual(failed(await audit(ledger.files())), ['places']);
});

test('a checkpoint re-signed with another key is caught, and a pinned key catches a swapped one', async () => {
  const ledger = ledgerWith();
  const impostor = noteKey(ledger.origin);
  const files = ledger.files();
  const text = files.get('ledger/checkpoint').split('\n\n')[0] + '\n';
  files.set('ledger/checkpoint', `${text}\n${signatureLine(impostor, text)}`);
  assert.deepEqual(failed(await audit(files)), ['ledger checkpoint']);

  // The impostor also publishes its key: only a pinned key tells.
  files.set('api/v1/ledger', JSON.stringify({ ...JSON.parse(files.get('api/v1/ledger')), vkey: impostor.vkey }));
  assert.deepEqual(failed(await audit(files, { vkey: ledger.key.vkey })), ['ledger key']);
});

test('a reveal before the quorum is caught', async () => {
  // In time: the witnesses cosigned the close after the seed was out.
  const late = ledgerWith({ witnessDelay: 20_000 });
  assert.deepEqual(failed(await audit(late.files())), ['reveal after quorum']);

  // In the ledger: the reveal is written before the witnessed close.
  const early = ledgerWith();
  const n = early.entries.length;
  [early.entries[n - 2], early.entries[n - 1]] = [early.entries[n - 1], early.entries[n - 2]];
  assert.deepEqual(failed(await audit(early.files())), ['entries order']);
});

test('a quorum short of a witness is caught', async () => {
  const ledger = ledgerWith({}, { quorum: 2 });
  replaceEntry(ledger, 'witnessed', (entry) => entry.replace(/— witness\.two .*\n/, ''));
  assert.deepEqual(failed(await audit(ledger.files())), ['witnessed close']);
});

test('history rewritten after it was witnessed is caught (consistency)', async () => {
  const ledger = ledgerWith();
  replaceEntry(ledger, 'commit', (entry) => entry.replace(/closes_at (\d+)/, (_, t) => `closes_at ${Number(t) + 1}`));
  assert.deepEqual(failed(await audit(ledger.files())), ['witnessed commit', 'witnessed close']);
});

test('a seed that is not the commitment, and a wrong key, are caught', async () => {
  const ledger = ledgerWith();
  replaceEntry(ledger, 'reveal', (entry) => entry.replace(/seed [0-9a-f]{64}/, `seed ${'ab'.repeat(32)}`));
  assert.deepEqual(failed(await audit(ledger.files())), ['commitment', 'key']);
});

test('a beacon other than the committed one is caught', async () => {
  const ledger = ledgerWith({ beacon: { kind: 'operator', value: 'c0ffee' } });
  replaceEntry(ledger, 'reveal', (entry) => entry.replace('beacon operator c0ffee', 'beacon none'));
  assert.deepEqual(failed(await audit(ledger.files())), ['beacon']);
});

// A real drand quicknet round (drand's public API, round 123); the draw happened in 2023.
const ROUND_123 = 'b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92';
test('a drand quicknet draw: the round verifies and the close was witnessed before it', async () => {
  const beacon = { kind: 'drand-quicknet', round: 123, signature: ROUND_123, randomness: createHash('sha256').update(Buffer.from(ROUND_123, 'hex')).digest() };
  const roundTime = (1692803367 + 122 * 3) * 1000;
  const sound = ledgerWith({ beacon, at: roundTime - 90_000 });
  // Every key pinned and a drand round: every check passes.
  const all = await audit(sound.files(), pinsOf(sound));
  assert.equal(all.ok, true, JSON.stringify(all.checks.filter((c) => c.status !== 'pass')));
  const late = ledgerWith({ beacon, at: roundTime - 60_000 });
  assert.deepEqual(failed(await audit(late.files())), ['close before beacon']);
  const forged = ledgerWith({ beacon: { ...beacon, signature: ROUND_123.replace(/^b7/, 'b8') }, at: roundTime - 90_000 });
  assert.deepEqual(failed(await audit(forged.files())), ['beacon']);
});

test('ledger entries parse only in the spec\'s exact shape', () => {
  const commit = 'foyer/ledger/v1\nkind commit\nroom r\ncommitment ' + '0'.repeat(64) + '\nbeacon drand-quicknet 7\ncloses_at 10\nat 5\n';
  assert.deepEqual(parseEntry(Buffer.from(commit)), {
    kind: 'commit', room: 'r', commitment: '0'.repeat(64), beacon: { kind: 'drand-quicknet', round: 7 }, closes_at: 10, at: 5,
  });
  const bad = [
    commit.replace('closes_at 10\nat 5', 'at 5\ncloses_at 10'), // order
    commit.replace('at 5\n', 'at 5\nextra 1\n'), // an extra line
    commit.replace('at 5\n', 'at 05\n'), // leading zero
    commit.replace('0'.repeat(64), 'A'.repeat(64)), // upper-case hex
    commit.slice(0, -1), // no final newline
    commit.replace('foyer/ledger/v1', 'foyer/ledger/v2'),
    commit.replace('at 5\n', 'at 5\n\nsomething\n'), // a blank line outside a witnessed entry
  ];
  for (const text of bad) assert.throws(() => parseEntry(Buffer.from(text)), Error, JSON.stringify(text));
});

// A room with two lanes beside the general one, each drawing its own places.
const LANES = [{ lane: 'members', entrants: entrants(300) }, { lane: 'access', entrants: entrants(7) }];
const laneLedger = (options = {}, ledgerOptions = {}) => ledgerWith({ lanes: LANES, ...options }, ledgerOptions);
const replaceLaneEntry = (ledger, kind, lane, edit) => {
  const i = ledger.entries.findLastIndex((e) => e.toString().includes(`kind ${kind}\nroom ${ROOM}\nlane ${lane}\n`));
  ledger.entries[i] = Buffer.from(edit(ledger.entries[i].toString()));
};

test('a room with lanes: each lane\'s draw is checked, the general lane\'s as before', async () => {
  const ledger = laneLedger({ beacon: { kind: 'operator', value: 'c0ffee' } });
  const report = await audit(ledger.files(), pinsOf(ledger));
  assert.deepEqual(statusOf(report, 'fail'), []);
  // Every lane's check after the general lane's, in the order of CHECKS.
  const expected = CHECKS.flatMap((name) => (LANE_CHECKS.has(name) ? [name, `${name} [members]`, `${name} [access]`] : [name]));
  assert.deepEqual(report.checks.map((c) => (c.lane ? `${c.name} [${c.lane}]` : c.name)), expected);
  const detail = (name, lane) => report.checks.find((c) => c.name === name && c.lane === lane).detail;
  assert.match(detail('places', 'members'), /^all 300 places recomputed/);
  assert.match(detail('places', undefined), /^all 600 places recomputed/);
  assert.match(detail('distinct entrants', 'access'), /^7 different entrant ids, none in another lane/);
  assert.match(detail('entries order'), /; lane members: commit at \d+, close at \d+, reveal at \d+; lane access: /);
  const { lobbySize, lanes, timeline } = report.fairness;
  assert.equal(lobbySize, 600);
  assert.deepEqual(lanes.map((l) => [l.lane, l.lobbySize, l.uniformity.bands]), [['members', 300, 7], ['access', 7, 1]]);
  assert.deepEqual(timeline.lanes.map((l) => [l.lane, l.close - timeline.close, l.reveal - timeline.reveal]),
    [['members', 0, 0], ['access', 0, 0]]);
});

test('a lane declared in the open lobby commits later, and is witnessed again', async () => {
  const at = Date.UTC(2026, 0, 1);
  const ledger = ledgerWith({ at, lanes: [{ ...LANES[0], committedAt: at + 20_000 }] });
  const report = await audit(ledger.files());
  assert.equal(report.failed, 0, JSON.stringify(failed(report)));
  assert.equal(report.fairness.timeline.lanes[0].commit, at + 20_000);
  // Its commit not witnessed: the order fails.
  const unwitnessed = ledgerWith({ at, lanes: [{ ...LANES[0], committedAt: at + 20_000 }] });
  const i = unwitnessed.entries.findLastIndex((e) => e.toString().includes('stage commit'));
  unwitnessed.entries.splice(i, 1);
  assert.deepEqual(failed(await audit(unwitnessed.files())), ['entries order']);
});

test('a changed place, seed or lobby of one lane is caught in that lane', async () => {
  const swapTwo = (key, n) => {
    const places = placesOf(key, n);
    [places[3], places[4]] = [places[4], places[3]];
    return places;
  };
  const places = laneLedger({ lanes: [LANES[0], { ...LANES[1], places: swapTwo }] });
  assert.deepEqual(failed(await audit(places.files())), ['places [access]']);

  const seed = laneLedger();
  replaceLaneEntry(seed, 'reveal', 'members', (entry) => entry.replace(/seed [0-9a-f]{64}/, `seed ${'ab'.repeat(32)}`));
  assert.deepEqual(failed(await audit(seed.files())), ['commitment [members]', 'key [members]']);

  // The lane's lobby signed as the room's: its origin names the lane.
  const origin = laneLedger();
  const lobby = origin.lobbies.get(`${ROOM}/lanes/members`);
  const room = `${origin.origin}/lobby/${ROOM}`;
  lobby.set('checkpoint', checkpointNote(room, 300, tileLog(LANES[0].entrants).root, renamedKey(origin.key, room)));
  assert.deepEqual(failed(await audit(origin.files())), ['lobby checkpoint [members]']);

  // An entrant of one lane's lobby also in another's.
  const shared = laneLedger({ lanes: [{ lane: 'members', entrants: [...LANES[0].entrants, LANES[1].entrants[0]] }, LANES[1]] });
  assert.deepEqual(failed(await audit(shared.files())), ['distinct entrants [access]']);
});

test('a lane\'s entries out of order, or drawn with another beacon, are caught', async () => {
  const noReveal = laneLedger();
  noReveal.entries.splice(noReveal.entries.findLastIndex((e) => e.toString().includes('lane access\n')), 1);
  const report = await audit(noReveal.files());
  assert.deepEqual(failed(report), ['entries order']);
  assert.match(report.checks[4].detail, /^lane access's entries are commit, close, not commit → close → reveal$/);

  const beacon = laneLedger({ beacon: { kind: 'operator', value: 'c0ffee' } });
  replaceLaneEntry(beacon, 'reveal', 'members', (entry) => entry.replace('beacon operator c0ffee', 'beacon operator c0ffef'));
  assert.deepEqual(failed(await audit(beacon.files())), ['beacon']);
});

test('a lane line parses in commit, close and reveal entries, right after the room', () => {
  const close = `foyer/ledger/v1\nkind close\nroom r\nlane members\nsize 3\nroot ${'0'.repeat(64)}\nat 5\n`;
  assert.deepEqual(parseEntry(Buffer.from(close)), { kind: 'close', room: 'r', lane: 'members', size: 3, root: '0'.repeat(64), at: 5 });
  const bad = [
    close.replace('room r\nlane members\n', 'lane members\nroom r\n'),
    close.replace('at 5\n', 'at 5\nlane members\n'),
    close.replace('lane members', 'lane'),
    close.replace('lane members', 'lane members x'),
    `foyer/ledger/v1\nkind witnessed\nroom r\nlane members\nstage close\n\nnote\n`,
  ];
  for (const text of bad) assert.throws(() => parseEntry(Buffer.from(text)), Error, JSON.stringify(text));
});

test('vkeys, notes and checkpoints follow signed-note and tlog-checkpoint', async () => {
  // The example vkey of c2sp.org/signed-note.
  assert.equal(parseVkey('PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW').id, 0xc74f20a3);
  assert.throws(() => parseVkey('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'), /id does not match/);
  const key = noteKey('log.example');
  const other = noteKey('other.example');
  const text = 'log.example\n2\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n';
  const note = `${text}\n${signatureLine(other, text)}${signatureLine(key, text)}`;
  const opened = await openNote(note, [parseVkey(key.vkey)]);
  assert.equal(opened.unknown, 1);
  assert.deepEqual(parseCheckpoint(opened.text), { origin: 'log.example', size: 2, root: new Uint8Array(32) });
  await assert.rejects(openNote(note.replace('\n2\n', '\n3\n'), [parseVkey(key.vkey)]), /does not verify/);
  await assert.rejects(openNote(note, [parseVkey(noteKey('log.example').vkey)]), /no known key/);
  assert.throws(() => parseCheckpoint('o\n02\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n'), /malformed/);
});

test('tile paths follow tlog-tiles, as fairness.md\'s example of 70,000 entries', () => {
  assert.equal(indexPath(5), '005');
  assert.equal(indexPath(1000), 'x001/000');
  assert.equal(indexPath(1234067), 'x001/x234/067');
  const files = logFiles(70_000);
  for (const path of ['tile/0/273.p/112', 'tile/1/000', 'tile/1/001.p/17', 'tile/2/000.p/1', 'tile/entries/273.p/112', 'tile/0/272']) {
    assert.ok(files.includes(path), path);
  }
  assert.equal(files.filter((p) => p.startsWith('tile/entries/')).length, 274);
  // The writer publishes exactly the files the checker reads, at the edges of tiles too.
  for (const size of [1, 255, 256, 257, 880, 65_536]) {
    const log = tileLog(entrants(size));
    assert.deepEqual([...log.files.keys()].sort(), logFiles(size).sort(), `size ${size}`);
  }
});

test('foyer-audit prints the report in three states, exits 0 only when every check passed, 1 on a failure', async () => {
  const ledger = ledgerWith();
  const files = ledger.files();
  const server = await serveFiles((path) => files.get(path));
  const run = (...args) => new Promise((resolve) => {
    execFile(process.execPath, [cli, server.url, ROOM, ...args], (error, stdout) => resolve({ code: error?.code ?? 0, stdout }));
  });
  try {
    const good = await run('--vkey', ledger.key.vkey);
    assert.equal(good.code, 3, good.stdout);
    assert.match(good.stdout, /^pass +places: all 600 places recomputed/m);
    assert.match(good.stdout, /^absent {2}beacon: no beacon/m);
    assert.match(good.stdout, /lobby size +600/);
    assert.match(good.stdout, /^INCOMPLETE: 13 of 16 checks passed, 0 failed, 3 absent/m);
    const witnesses = ledger.witnesses.flatMap((w) => ['--witness', w.vkey]);
    const pinned = await run('--vkey', ledger.key.vkey, ...witnesses, '--quorum', '2');
    assert.equal(pinned.code, 3, pinned.stdout);
    assert.match(pinned.stdout, /^pass {4}witness keys: 2 pinned witnesses \(witness\.one, witness\.two\), quorum 2$/m);
    assert.match(pinned.stdout, /^INCOMPLETE: 14 of 16 checks passed, 0 failed, 2 absent/m);
    files.set('ledger/checkpoint', files.get('ledger/checkpoint').replace(/\n\d+\n/, '\n1\n'));
    const bad = await run();
    assert.equal(bad.code, 1, bad.stdout);
    assert.match(bad.stdout, /^FAIL {4}ledger checkpoint: /m);
  } finally {
    await server.close();
  }
});

test('foyer-audit names each lane\'s checks and figures', async () => {
  const ledger = laneLedger();
  const files = ledger.files();
  files.set(`ledger/lobbies/${ROOM}/lanes/access/tile/entries/000.p/7`, Buffer.alloc(0));
  const server = await serveFiles(files);
  try {
    const { code, stdout } = await new Promise((resolve) => {
      execFile(process.execPath, [cli, server.url, ROOM], (error, out) => resolve({ code: error?.code ?? 0, stdout: out }));
    });
    assert.equal(code, 1, stdout);
    assert.match(stdout, /^pass {4}places \[lane members\]: all 300 places recomputed/m);
    assert.match(stdout, /^FAIL {4}lobby tiles \[lane access\]: /m);
    assert.match(stdout, /^ {2}lane members\n {4}lobby size +300$/m);
    assert.match(stdout, /^ {2}lane access: commit \S+, close \S+, reveal \S+$/m);
  } finally {
    await server.close();
  }
});

test('the timeline puts the events in time order, a witness step at its last cosignature', () => {
  const labels = { commit: 'c', witnessedCommit: 'wc', close: 'x', witnessedClose: 'wx', beacon: (r) => `b${r}`, reveal: 'r' };
  const events = timelineEvents({
    commit: 1000, close: 5000, reveal: 9000, beacon: 8000, beaconRound: 7,
    witnessedCommit: [{ name: 'w1', time: 2000 }, { name: 'w2', time: 3000 }],
    witnessedClose: [{ name: 'w1', time: 6000 }],
  }, labels);
  assert.deepEqual(events.map((e) => [e.id, e.label, e.time]), [
    ['commit', 'c', 1000], ['witnessedCommit', 'wc', 3000], ['close', 'x', 5000], ['witnessedClose', 'wx', 6000],
    ['beacon', 'b7', 8000], ['reveal', 'r', 9000],
  ]);
  assert.match(events[1].detail, /^w1 1970-01-01T00:00:02\.000Z\nw2 1970-01-01T00:00:03\.000Z$/);
  // A cosignature stamped in the second of its stage's entry (ms) still follows it.
  assert.deepEqual(timelineEvents({ commit: 53_400, close: 60_000, reveal: 90_000, witnessedCommit: [{ name: 'w1', time: 53_000 }] }, labels)
    .map((e) => e.id), ['commit', 'witnessedCommit', 'close', 'reveal']);
  // Lanes: a lane's steps at the general lane's times are those events; one declared later has its own.
  const lanes = timelineEvents({
    commit: 1000, close: 5000, reveal: 9000,
    lanes: [{ lane: 'm', commit: 1000, close: 5000, reveal: 9000 }, { lane: 'a', commit: 3000, close: 5000, reveal: 9000 }],
  }, { ...labels, laneName: (id) => id || 'g', inLanes: (label, n) => `${label}×${n}`, ofLane: (label, name) => `${label} ${name}` });
  assert.deepEqual(lanes.map((e) => [e.id, e.label, e.time, e.lane, e.detail]), [
    ['commit', 'c×2', 1000, undefined, 'g, m'], ['commit', 'c a', 3000, 'a', undefined],
    ['close', 'x×3', 5000, undefined, 'g, m, a'], ['reveal', 'r×3', 9000, undefined, 'g, m, a'],
  ]);
  // No witnesses, no beacon: three events.
  assert.deepEqual(timelineEvents({ commit: 1, close: 2, reveal: 3 }, labels).map((e) => e.id), ['commit', 'close', 'reveal']);
});
