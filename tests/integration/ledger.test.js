// The public record of a draw, as the server publishes it (docs/fairness.md, "The public
// record of every draw"): the ledger's entries and the closed lobby as C2SP tlog-tiles,
// mirrored to disk as a monitor would and checked by Go's reference code (tests/go/notecheck,
// not Foyer's), and the reveal's places recomputed from the published values alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Foyer } from '../lib/foyer.js';
import { deriveKey, place, toHex } from '../../web/js/lottery.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const admin_token = 'test-admin-token-0123456789';
const lobbySize = 300;  // a full tile and a partial one

function config() {
  const opensAt = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    server: { admin_token },
    ledger: { origin: 'tickets.example/foyer/ledger' },
    rooms: [{ id: 'tatkal', name: 'Tatkal', rate_per_minute: 60000, target_url: '/welcome', opens_at: opensAt }],
  };
}

async function bytes(f, urlPath) {
  const res = await fetch(f.url + urlPath);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

// The tile paths a tree of `size` entries has (tlog-tiles), bundles included.
function tilePaths(size) {
  const index = (n) => {
    let out = String(n % 1000).padStart(3, '0');
    for (n = Math.floor(n / 1000); n > 0; n = Math.floor(n / 1000)) out = `x${String(n % 1000).padStart(3, '0')}/${out}`;
    return out;
  };
  const paths = [];
  for (let level = 0, nodes = size; level === 0 || nodes > 0; level++, nodes = Math.floor(nodes / 256)) {
    for (let n = 0; n < Math.floor(nodes / 256); n++) paths.push(`tile/${level}/${index(n)}`);
    if (nodes % 256) paths.push(`tile/${level}/${index(Math.floor(nodes / 256))}.p/${nodes % 256}`);
    if (level === 0) {
      for (let n = 0; n < Math.floor(nodes / 256); n++) paths.push(`tile/entries/${index(n)}`);
      if (nodes % 256) paths.push(`tile/entries/${index(Math.floor(nodes / 256))}.p/${nodes % 256}`);
    }
    if (nodes < 256) break;
  }
  return paths;
}

// Mirrors a log into a directory and runs Go's reference check on it: the checkpoint, an
// older one and the proofs from `proofs(entries)` ("inclusion I H..." / "consistency M N H...").
async function notecheck(f, base, vkey, dir, old, proofs) {
  const checkpoint = await bytes(f, `${base}/checkpoint`);
  assert.equal(checkpoint.status, 200);
  const size = Number(checkpoint.body.toString().split('\n')[1]);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'vkey'), vkey);
  writeFileSync(path.join(dir, 'checkpoint'), checkpoint.body);
  writeFileSync(path.join(dir, 'checkpoint.old'), old ?? checkpoint.body);
  const files = {};
  for (const p of tilePaths(size)) {
    const file = await bytes(f, `${base}/${p}`);
    assert.equal(file.status, 200, `${base}/${p}`);
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), file.body);
    files[p] = file;
  }
  writeFileSync(path.join(dir, 'proofs'), await proofs(files));
  const binary = path.join(os.tmpdir(), 'foyer-notecheck-ledger');
  execFileSync('go', ['build', '-o', binary, '.'], {
    cwd: path.join(repo, 'tests/go/notecheck'),
    env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '-mod=mod', GOCACHE: path.join(os.tmpdir(), 'foyer-go-cache') },
  });
  assert.match(execFileSync(binary, [dir], { encoding: 'utf8' }), /notecheck: .*: \d+ entries/);
  return { size, files };
}

function entriesOf(bundles) {
  const out = [];
  for (const body of bundles) {
    for (let at = 0; at < body.length;) {
      const length = body.readUInt16BE(at);
      out.push(body.subarray(at + 2, at + 2 + length));
      at += 2 + length;
    }
  }
  return out;
}

test('a draw is published as a ledger and a lobby that Go\'s reference code checks, and its places recompute', async () => {
  const f = new Foyer(config());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'foyer-ledger-'));
  try {
    await f.start();
    const info = (await f.request('GET', '/api/v1/ledger')).json;
    assert.equal(info.origin, 'tickets.example/foyer/ledger');
    assert.match(info.vkey, /^tickets\.example\/foyer\/ledger\+[0-9a-f]{8}\+A/);
    assert.equal((await f.request('GET', '/.well-known/foyer.json')).json.ledger.vkey, info.vkey);
    // The ledger holds the commit alone: a checkpoint to check the later one against.
    const commitOnly = (await bytes(f, '/ledger/checkpoint')).body;
    assert.match(commitOnly.toString(), /^tickets\.example\/foyer\/ledger\n1\n/);
    const lottery0 = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.equal(lottery0.draw.beacon, 'none');
    assert.equal(lottery0.draw.grinding_guarantee, false);
    assert.match(lottery0.draw.grinding_note, /guarantee is absent/);
    // Not published while the lobby is open.
    assert.equal((await f.request('GET', '/ledger/lobbies/tatkal/checkpoint')).status, 409);
    assert.equal((await f.request('GET', '/ledger/lobbies/tatkal/tile/0/000.p/1')).status, 409);

    const joins = [];
    for (let i = 0; i < lobbySize; i++) {
      const r = await f.join('tatkal');
      assert.equal(r.status, 201, r.text);
      joins.push(r.json);
    }
    assert.equal((await f.request('POST', '/api/v1/admin/rooms/tatkal/close-lobby', { headers: { authorization: `Bearer ${admin_token}` } })).status, 200);
    const lottery = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.equal(lottery.lobby_size, lobbySize);

    // The ledger: commit, close, reveal, checked by Go from its tiles alone.
    // From 1 entry to 3, RFC 9162's proof is the leaf hashes of entries 1 and 2.
    const leaf = (entry) => createHash('sha256').update(Buffer.concat([Buffer.of(0), entry])).digest('base64');
    // A generic C2SP client finds the logs from what the server publishes: the ledger's
    // tlog-tiles prefix in its document, the lobby's in the room's draw.
    assert.equal(info.tlog, '/ledger');
    assert.equal(lottery.draw.ledger_tlog, info.tlog);
    assert.equal(lottery.draw.lobby, '/ledger/lobbies/tatkal');
    const ledger = await notecheck(f, info.tlog, info.vkey, path.join(dir, 'ledger'), commitOnly, (files) => {
      const [, second, third] = entriesOf([files['tile/entries/000.p/3'].body]);
      return `consistency 1 3 ${leaf(second)} ${leaf(third)}\n`;
    });
    assert.equal(ledger.size, 3);
    const entries = entriesOf([ledger.files['tile/entries/000.p/3'].body]).map((e) => e.toString());
    assert.deepEqual(entries.map((e) => e.split('\n')[1]), ['kind commit', 'kind close', 'kind reveal']);
    assert.match(entries[0], new RegExp(`^foyer/ledger/v1\nkind commit\nroom tatkal\ncommitment ${lottery.commitment}\nbeacon none\ncloses_at \\d+\nat \\d+\n$`));
    assert.match(entries[1], new RegExp(`\nsize ${lobbySize}\nroot ${lottery.lobby_root}\n`));
    const reveal = Object.fromEntries(entries[2].trim().split('\n').slice(1).map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
    assert.equal(reveal.seed, lottery.seed);
    assert.equal(reveal.beacon, 'none');
    assert.equal(ledger.files['tile/0/000.p/3'].headers.get('cache-control'), 'no-cache');

    // The lobby: every entrant id at its index, checked by Go under the lobby's own key.
    // The tlog-proof of an entrant, checked by Go as an inclusion proof.
    const proofOf = async (index) => {
      const text = (await f.request('GET', `/ledger/lobbies/tatkal/proof/${index}`)).text;
      return `inclusion ${index} ${text.split('\n\n')[0].split('\n').slice(2).join(' ')}\n`;
    };
    const lobby = await notecheck(f, lottery.draw.lobby, lottery.draw.lobby_vkey, path.join(dir, 'lobby'), null,
      async () => (await proofOf(0)) + (await proofOf(257)) + (await proofOf(lobbySize - 1)));
    assert.equal(lobby.size, lobbySize);
    assert.match(lobby.files['tile/0/000'].headers.get('cache-control'), /immutable/);
    const ids = entriesOf([lobby.files['tile/entries/000'].body, lobby.files['tile/entries/001.p/44'].body]).map((e) => e.toString('hex'));
    for (const j of joins) assert.equal(ids[j.lobby_index], j.receipt.entrant_id);
    assert.equal(new Set(ids).size, lobbySize, 'no entrant twice');

    // Every place from the published values, hashed as the reveal says.
    const key = await deriveKey(reveal.seed, lottery.lobby_root, '');
    assert.equal(reveal.key, toHex(key));
    const places = [];
    for (let i = 0; i < lobbySize; i++) places.push(await place(key, lobbySize, i));
    assert.equal(new Set(places).size, lobbySize);
    const hash = createHash('sha256');
    for (const p of places) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(p);
      hash.update(b);
    }
    assert.equal(reveal.places, hash.digest('hex'));

    // A receipt's inclusion proof in the tlog-proof format.
    const proof = await f.request('GET', `/ledger/lobbies/tatkal/proof/${joins[7].lobby_index}`);
    assert.equal(proof.status, 200);
    assert.match(proof.text, new RegExp(`^c2sp\\.org/tlog-proof@v1\nindex ${joins[7].lobby_index}\n([A-Za-z0-9+/]{43}=\n)+\ntickets\\.example/foyer/ledger/lobby/tatkal\n${lobbySize}\n`));
    assert.equal((await f.request('GET', `/ledger/lobbies/tatkal/proof/${lobbySize}`)).status, 404);

    // Paths that are no file of the log, and the same after a restart.
    for (const p of ['/ledger/tile/0/001', '/ledger/tile/0/000.p/2', '/ledger/tile/0/x000/000.p/3', '/ledger/tiles',
                     '/ledger/lobbies/tatkal/tile/0/002', '/ledger/lobbies/nope/checkpoint']) {
      const r = await f.request('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.headers.get('content-type'), 'application/problem+json');
    }
    const checkpoint = (await bytes(f, '/ledger/checkpoint')).body;
    await f.kill9();
    await f.start();
    assert.deepEqual((await bytes(f, '/ledger/checkpoint')).body, checkpoint);
    assert.deepEqual((await bytes(f, '/ledger/tile/entries/000.p/3')).body, ledger.files['tile/entries/000.p/3'].body);
  } finally {
    await f.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('each lane of a lottery room draws on its own: its commitment, lobby, reveal and places, kept through kill -9', async () => {
  const base = config();
  base.rooms[0].lanes = { members: { name: 'Members', share: 0.3 } };
  const f = new Foyer(base);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'foyer-lane-ledger-'));
  const bearer = { authorization: `Bearer ${admin_token}` };
  try {
    await f.start();
    const batch = (await f.request('POST', '/api/v1/admin/rooms/tatkal/codes', { headers: bearer, body: { batch: 'm', lane: 'members', count: 12 } })).json;
    const before = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.notEqual(before.lanes.members.commitment, before.commitment);
    assert.equal(before.lanes.members.seed, null);
    assert.equal((await f.request('GET', '/ledger/lobbies/tatkal/lanes/members/checkpoint')).status, 409);
    assert.equal((await f.request('GET', '/ledger/lobbies/tatkal/lanes/nope/checkpoint')).json.error, 'unknown_lane');

    const members = [];
    const general = [];
    for (let i = 0; i < 12; i++) {
      if (i === 6) {
        await f.kill9();
        await f.start();
      }
      const m = await f.join('tatkal', { code: batch.generated[i] });
      assert.equal(m.status, 201, m.text);
      assert.equal(m.json.lane, 'members');
      assert.equal(m.json.lobby_index, i, 'each lane numbers its own lobby');
      assert.equal(m.json.receipt.lane, 'members');
      assert.equal(m.json.receipt.commitment, before.lanes.members.commitment);
      members.push(m.json);
      for (let k = 0; k < 2; k++) general.push((await f.join('tatkal')).json);
    }
    assert.equal(general[23].lobby_index, 23);
    assert.equal(general[0].receipt.lane, undefined);
    const lobbyStatus = (await f.status(members[3].ticket, 'tatkal')).json;
    assert.equal(lobbyStatus.state, 'lobby');
    assert.equal(lobbyStatus.lane, 'members');

    assert.equal((await f.request('POST', '/api/v1/admin/rooms/tatkal/close-lobby', { headers: bearer })).status, 200);
    const lottery = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    const lane = lottery.lanes.members;
    assert.equal(lottery.lobby_size, 24);
    assert.equal(lane.lobby_size, 12);
    assert.notEqual(lane.seed, lottery.seed);
    assert.equal(createHash('sha256').update(Buffer.from(lane.seed, 'hex')).digest('hex'), lane.commitment);

    // The ledger: each draw's commit, close and reveal, the lane's naming it.
    const bundle = await bytes(f, '/ledger/tile/entries/000.p/6');
    assert.equal(bundle.status, 200);
    const entries = entriesOf([bundle.body]).map((e) => e.toString());
    assert.deepEqual(entries.map((e) => e.split('\n').slice(1, 4).join(' ').replace(/ (commitment|size|seed) .*$/, '')),
      ['kind commit room tatkal', 'kind commit room tatkal lane members', 'kind close room tatkal',
       'kind close room tatkal lane members', 'kind reveal room tatkal', 'kind reveal room tatkal lane members']);
    assert.match(entries[1], new RegExp(`\ncommitment ${lane.commitment}\n`));
    assert.match(entries[3], new RegExp(`\nsize 12\nroot ${lane.lobby_root}\n`));
    assert.match(entries[5], new RegExp(`\nseed ${lane.seed}\n`));

    // The lane's lobby is a log of its own, checked by Go under its own key.
    const proofOf = async (index) => {
      const text = (await f.request('GET', `/ledger/lobbies/tatkal/lanes/members/proof/${index}`)).text;
      assert.match(text, /\ntickets\.example\/foyer\/ledger\/lobby\/tatkal\/members\n12\n/);
      return `inclusion ${index} ${text.split('\n\n')[0].split('\n').slice(2).join(' ')}\n`;
    };
    const lobby = await notecheck(f, lane.lobby, lane.lobby_vkey, path.join(dir, 'lobby'), null,
      async () => (await proofOf(0)) + (await proofOf(11)));
    const ids = entriesOf([lobby.files['tile/entries/000.p/12'].body]).map((e) => e.toString('hex'));
    members.forEach((m, i) => assert.equal(ids[i], m.receipt.entrant_id));

    // Every member's place is the lane's draw, recomputed from the published values.
    const key = await deriveKey(lane.seed, lane.lobby_root, '');
    const places = new Set();
    for (const m of members) {
      const st = (await f.status(m.ticket, 'tatkal')).json;
      assert.equal(st.lane, 'members');
      assert.equal(BigInt(st.place), await place(key, 12, m.lobby_index));
      places.add(st.place);
    }
    assert.equal(places.size, 12);
    const proof = await f.request('GET', `/api/v1/rooms/tatkal/lottery/proof?index=5&lane=members`);
    assert.equal(proof.json.lobby_root, lane.lobby_root);
    assert.equal(proof.json.entrant_id, members[5].receipt.entrant_id);
  } finally {
    await f.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
