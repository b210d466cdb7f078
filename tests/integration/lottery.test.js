// The verifiable opening end to end: a lobby of a few thousand visitors, the close,
// then every visitor's place and inclusion checked from the published values and
// their receipt alone, with the project's JS module (as the verify page does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Foyer, foyerBin } from '../lib/foyer.js';
import { verifyEntry, place as placeOf, deriveKey } from '../../web/js/lottery.js';

const lobbySize = 2000;
const admin_token = 'test-admin-token-0123456789';

function lobbyConfig(extra = {}) {
  // Opens in an hour: the lobby stays open until the operator closes it.
  const opensAt = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    server: { admin_token },
    rooms: [{ id: 'tatkal', name: 'Tatkal', rate_per_minute: 60000, target_url: '/welcome', opens_at: opensAt, ...extra }],
  };
}

async function joinMany(f, n, room) {
  const out = [];
  let started = 0;
  const workers = Array.from({ length: 32 }, async () => {
    while (started++ < n) {
      const r = await f.join(room);
      assert.equal(r.status, 201, r.text);
      out.push(r.json);
    }
  });
  await Promise.all(workers);
  return out;
}

const adminPost = (f, path, body) =>
  f.request('POST', `/api/v1/admin/rooms/tatkal/${path}`, { body, headers: { authorization: `Bearer ${admin_token}` } });

test('a lobby draw that anyone can check, visitor by visitor', async () => {
  const f = new Foyer(lobbyConfig());
  try {
    await f.start();
    const before = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.equal(before.state, 'lobby');
    assert.match(before.commitment, /^[0-9a-f]{64}$/);
    assert.equal(before.seed, null);
    assert.equal(before.lobby_root, null);

    const joins = await joinMany(f, lobbySize, 'tatkal');
    for (const j of joins) {
      assert.equal(j.place, null);
      assert.equal(j.receipt.commitment, before.commitment);
    }
    const indexes = new Set(joins.map((j) => j.lobby_index));
    assert.equal(indexes.size, joins.length, 'lobby indexes are distinct');
    // Receipts were signed in batches: fewer signatures than joins.
    assert.ok(new Set(joins.map((j) => j.receipt.signature)).size < joins.length);

    const status = await f.status(joins[0].ticket, 'tatkal');
    assert.equal(status.json.state, 'lobby');
    assert.ok(status.json.draw_at > Date.now() / 1000);
    assert.equal((await f.request('GET', '/api/v1/rooms/tatkal/lottery/proof?index=0')).status, 409);

    // A kill -9 before the close changes nothing.
    await f.kill9();
    await f.start();
    assert.equal((await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json.commitment, before.commitment);

    const closed = await adminPost(f, 'close-lobby');
    assert.equal(closed.status, 200, closed.text);
    const lottery = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.equal(lottery.lobby_size, joins.length);
    assert.match(lottery.seed, /^[0-9a-f]{64}$/);

    // And a kill -9 after it keeps the same seed, root and places.
    await f.kill9();
    await f.start();
    assert.deepEqual((await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json, lottery);

    const key = await deriveKey(lottery.seed, lottery.lobby_root, lottery.beacon ?? '');
    const places = new Set();
    let fullyChecked = 0;
    for (const [i, j] of joins.entries()) {
      const st = (await f.status(j.ticket, 'tatkal')).json;
      assert.equal(typeof st.place, 'number');
      assert.ok(st.ticket, 'the ticket is re-issued with the place');
      places.add(st.place);
      assert.equal(BigInt(st.place), await placeOf(key, BigInt(lottery.lobby_size), BigInt(j.lobby_index)));
      // The full check (receipt signature, inclusion proof, key, place) for a sample.
      if (i % 40 === 0) {
        const proof = (await f.request('GET', `/api/v1/rooms/tatkal/lottery/proof?index=${j.lobby_index}`)).json;
        const verdict = await verifyEntry({ lottery, receipt: j.receipt, proof });
        assert.ok(verdict.ok, JSON.stringify(verdict.checks));
        assert.equal(verdict.checks.find((c) => c.name === 'receipt signature').status, 'pass');
        assert.equal(verdict.checks.find((c) => c.name === 'inclusion').status, 'pass');
        assert.equal(verdict.place, BigInt(st.place));
        fullyChecked++;
      }
    }
    assert.equal(places.size, joins.length, 'places are a permutation');
    assert.ok(fullyChecked >= 50);
    // A receipt with a changed field fails.
    const forged = { ...joins[0].receipt, lobby_index: joins[0].receipt.lobby_index + 1 };
    assert.equal((await verifyEntry({ lottery, receipt: forged })).ok, false);
    // Later arrivals queue behind the lobby, first come first served.
    const late = await f.join('tatkal');
    assert.equal(late.json.place, joins.length);
  } finally {
    await f.cleanup();
  }
});

test('receipts from before a key rotation still verify, with the key their kid names', async () => {
  const f = new Foyer(lobbyConfig());
  const cli = (...args) => spawnSync(foyerBin, args, { encoding: 'utf8' });
  const file = (name, value) => {
    const at = path.join(f.dir, name);
    writeFileSync(at, JSON.stringify(value));
    return at;
  };
  try {
    await f.start();
    const joins = await joinMany(f, 5, 'tatkal');
    assert.equal((await adminPost(f, 'close-lobby')).status, 200);
    const oldKid = joins[0].receipt.kid;
    // The runbook: keygen after the sale, then a restart; later the old key is retired.
    await f.stop();
    assert.equal(cli('keygen', '--data-dir', f.dataDir).status, 0);
    await f.start();
    assert.equal(cli('keygen', '--data-dir', f.dataDir, '--retire', oldKid).status, 0);
    await f.stop();
    await f.start();
    const lottery = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.notEqual(lottery.receipt_kid, oldKid);
    assert.deepEqual(Object.keys(lottery.receipt_keys).sort(), [oldKid, lottery.receipt_kid].sort());
    // Retired: no longer good for passes, still published for the receipts it signed.
    const jwks = (await f.request('GET', '/.well-known/jwks.json')).json;
    assert.deepEqual(jwks.keys.map((k) => k.kid), [lottery.receipt_kid]);

    const { receipt } = joins[0];
    const proof = (await f.request('GET', `/api/v1/rooms/tatkal/lottery/proof?index=${receipt.lobby_index}`)).json;
    const verify = (r) => cli('lottery', 'verify', '--lottery', file('lottery.json', lottery),
      '--receipt', file('receipt.json', r), '--proof', file('proof.json', proof));
    const sound = verify(receipt);
    assert.equal(sound.status, 0, sound.stdout + sound.stderr);
    assert.match(sound.stdout, new RegExp(`^receipt signature\\s+pass\\s+signed by key ${oldKid}$`, 'm'));
    const unknown = verify({ ...receipt, kid: 'AAAAAAAAAAAAAAAA' });
    assert.equal(unknown.status, 1);
    assert.match(unknown.stdout,
      /^receipt signature\s+FAIL\s+the receipt names key AAAAAAAAAAAAAAAA, which the room does not publish$/m);
    const page = await verifyEntry({ lottery, receipt, proof });
    assert.ok(page.ok, JSON.stringify(page.checks));
  } finally {
    await f.cleanup();
  }
});

test('a beacon room waits for the beacon, and the key mixes it in', async () => {
  const f = new Foyer(lobbyConfig({ beacon_rule: 'the first drand quicknet round after the close' }));
  try {
    await f.start();
    const joins = await joinMany(f, 20, 'tatkal');
    assert.equal((await adminPost(f, 'close-lobby')).json.state, 'drawing');
    let lottery = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.equal(lottery.seed, null, 'no seed before the beacon');
    assert.equal((await f.status(joins[0].ticket, 'tatkal')).json.state, 'drawing');
    assert.equal((await adminPost(f, 'beacon', { value: 'zz' })).status, 400);
    const beacon = '8a62e967fcd6dfa5d75308c37808b4668a7faf1cdb06e09ac0a7161827603887';
    assert.equal((await adminPost(f, 'beacon', { value: beacon })).json.state, 'open');
    lottery = (await f.request('GET', '/api/v1/rooms/tatkal/lottery')).json;
    assert.equal(lottery.beacon, beacon);
    const proof = (await f.request('GET', `/api/v1/rooms/tatkal/lottery/proof?index=${joins[3].lobby_index}`)).json;
    const verdict = await verifyEntry({ lottery, receipt: joins[3].receipt, proof });
    assert.ok(verdict.ok, JSON.stringify(verdict.checks));
    assert.equal(Number(verdict.place), (await f.status(joins[3].ticket, 'tatkal')).json.place);
    assert.equal((await adminPost(f, 'beacon', { value: beacon })).status, 409);
  } finally {
    await f.cleanup();
  }
});

test('the admin API wants its token', async () => {
  const f = new Foyer(lobbyConfig());
  try {
    await f.start();
    assert.equal((await f.request('POST', '/api/v1/admin/rooms/tatkal/close-lobby')).status, 401);
    const wrong = await f.request('POST', '/api/v1/admin/rooms/tatkal/close-lobby', { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const list = await f.request('GET', '/api/v1/admin/rooms', { headers: { authorization: `Bearer ${admin_token}` } });
    assert.equal(list.json.rooms[0].state, 'lobby');
  } finally {
    await f.cleanup();
  }
});

test('operators pause, resume, sell out and close a room', async () => {
  const f = new Foyer({ server: { admin_token }, rooms: [{ id: 'tatkal', name: 'T', rate_per_minute: 60, target_url: '/welcome' }] });
  try {
    await f.start();
    const j = (await f.join('tatkal')).json;
    assert.equal((await adminPost(f, 'resume')).status, 409);
    assert.equal((await adminPost(f, 'pause')).json.state, 'paused');
    const paused = (await f.status(j.ticket, 'tatkal')).json;
    assert.ok(paused.state === 'paused' || paused.state === 'admitted');
    assert.equal((await adminPost(f, 'resume')).json.state, 'open');
    assert.equal((await adminPost(f, 'sold-out')).json.state, 'sold_out');
    const refused = await f.join('tatkal');
    assert.equal(refused.status, 410);
    assert.equal(refused.json.error, 'sold_out');
    assert.equal((await adminPost(f, 'close')).json.state, 'closed');
    assert.equal((await adminPost(f, 'close')).status, 409);
    assert.equal((await adminPost(f, 'explode')).status, 404);
  } finally {
    await f.cleanup();
  }
});
