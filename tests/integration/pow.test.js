// Joins that cost work: challenges from the real server, solved by the page's solver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Foyer, accountHint } from '../lib/foyer.js';
import { solveSync } from '../../web/js/pow.js';

const challenge = async (f, room = 'demo') => (await f.request('POST', `/api/v1/rooms/${room}/challenge`)).json;

test('a solved challenge joins once; replays, reuse after a restart and wrong rooms are refused alike', async () => {
  const f = new Foyer({
    proof_of_work: { base_bits: 10 },
    rooms: [
      { id: 'demo', name: 'Demo', rate_per_minute: 60, target_url: '/welcome' },
      { id: 'other', name: 'Other', rate_per_minute: 60, target_url: '/welcome' },
    ],
  });
  try {
    await f.start();
    const c = await challenge(f);
    assert.equal(c.difficulty_bits, 10);
    assert.ok(c.expires_at > Date.now());
    const proof = solveSync(c.challenge);
    assert.equal((await f.join('other', proof)).json.error, 'proof_rejected');
    assert.equal((await f.join('demo', proof)).status, 201);
    const replay = await f.join('demo', proof);
    assert.equal(replay.status, 403);
    assert.equal(replay.headers.get('retry-after'), '1');
    // Solved before a restart, redeemed after it: refused, so replays can't reopen.
    const early = solveSync((await challenge(f)).challenge);
    await f.kill9();
    await f.start();
    const afterRestart = await f.join('demo', early);
    assert.equal(afterRestart.status, 403);
    assert.deepEqual(afterRestart.json, replay.json, 'every refusal looks the same');
    const metrics = (await f.request('GET', '/metrics')).text;
    assert.match(metrics, /foyer_proofs_refused_total\{reason="issued_before_start"\} 1/);
    assert.equal((await f.join('demo', solveSync((await challenge(f)).challenge))).status, 201);
    assert.equal((await f.join('demo', {})).json.error, 'bad_join_body');
  } finally {
    await f.cleanup();
  }
});

test('behind a trusted proxy, clients are priced and bound by the address it forwards', async () => {
  const pricing = { base_bits: 2, pressure_threshold: 4, max_pressure_bits: 6, puzzles: 1 };
  const as = (address) => ({ 'X-Forwarded-For': address });
  const challengeAs = async (f, address) =>
    (await f.request('POST', '/api/v1/rooms/demo/challenge', { headers: as(address) })).json;
  const joinAs = (f, address, body) => f.request('POST', '/api/v1/rooms/demo/join', { body, headers: as(address) });

  const behind = new Foyer({ server: { trusted_proxies: ['127.0.0.0/8'] }, proof_of_work: pricing });
  try {
    await behind.start();
    // A busy network pays more; its neighbour behind the same proxy does not.
    for (let i = 0; i < 24; i++) {
      const c = await challengeAs(behind, `203.0.113.${i}`);
      assert.equal((await joinAs(behind, `203.0.113.${i + 1}`, solveSync(c.challenge))).status, 201, 'the same /24 may redeem it');
    }
    assert.ok((await challengeAs(behind, '203.0.113.200')).difficulty_bits >= pricing.base_bits + 2);
    assert.equal((await challengeAs(behind, '198.51.100.9')).difficulty_bits, pricing.base_bits);
    // A challenge is bound to the client's network, not the proxy's.
    const c = await challengeAs(behind, '198.51.100.9');
    assert.equal((await joinAs(behind, '192.0.2.1', solveSync(c.challenge))).json.error, 'proof_rejected');
    assert.match((await behind.request('GET', '/metrics')).text, /foyer_proofs_refused_total\{reason="wrong_network"\} 1/);
    // What a client writes into the header itself is passed over: the proxy's entry counts.
    const spoofed = await challengeAs(behind, '192.0.2.1, 198.51.100.9');
    assert.equal((await joinAs(behind, '198.51.100.77', solveSync(spoofed.challenge))).status, 201);
  } finally {
    await behind.cleanup();
  }

  // Without trusted proxies the header is ignored: the socket's address is the client.
  const direct = new Foyer({ proof_of_work: pricing });
  try {
    await direct.start();
    const c = await challengeAs(direct, '198.51.100.9');
    assert.equal((await joinAs(direct, '192.0.2.1', solveSync(c.challenge))).status, 201);
  } finally {
    await direct.cleanup();
  }
});

test('challenges fetched early while calm pay at redemption what fresh ones pay', async () => {
  // An hour's window: the two bursts are priced alike, not split by a window's turn.
  const pricing = { base_bits: 2, pressure_threshold: 4, max_pressure_bits: 6, puzzles: 1, pressure_window_ms: 3_600_000 };
  const f = new Foyer({ server: { trusted_proxies: ['127.0.0.0/8'] }, proof_of_work: pricing });
  const as = (address) => ({ headers: { 'X-Forwarded-For': address } });
  const challengeAs = async (address) => (await f.request('POST', '/api/v1/rooms/demo/challenge', as(address))).json;
  const joinAs = (address, c) =>
    f.request('POST', '/api/v1/rooms/demo/join', { body: solveSync(c.challenge), ...as(address) });
  try {
    await f.start();
    const burst = 30;
    const fresh = [];
    for (let i = 0; i < burst; i++) {
      const c = await challengeAs('198.51.100.9');
      fresh.push(c.difficulty_bits);
      assert.equal((await joinAs('198.51.100.9', c)).status, 201);
    }
    const early = [];
    for (let i = 0; i < burst; i++) early.push(await challengeAs('203.0.113.9'));
    assert.ok(early.every((c) => c.difficulty_bits === pricing.base_bits), 'fetched while calm');
    const paid = [];
    let rose = null;
    for (const c of early) {
      let res = await joinAs('203.0.113.9', c);
      let bits = c.difficulty_bits;
      if (res.status === 409) {
        rose = res;
        assert.equal(res.json.error, 'price_rose');
        bits = res.json.new_challenge.difficulty_bits;
        res = await joinAs('203.0.113.9', res.json.new_challenge);
      }
      assert.equal(res.status, 201);
      paid.push(bits);
    }
    assert.deepEqual(paid, fresh);
    assert.ok(fresh.at(-1) >= pricing.base_bits + 2, `the price rose: ${fresh}`);
    // The refusal is a problem carrying a challenge at the price now, shaped as POST .../challenge answers.
    assert.equal(rose.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(Object.keys(rose.json.new_challenge).sort(), ['challenge', 'difficulty_bits', 'expires_at']);
    assert.match((await f.request('GET', '/metrics')).text, /foyer_proofs_refused_total\{reason="underpriced"\} \d+/);
  } finally {
    await f.cleanup();
  }
});

test('a network that joins often pays more; the page still gets in', async () => {
  const f = new Foyer({ proof_of_work: { base_bits: 2, pressure_threshold: 4, max_pressure_bits: 6, puzzles: 1 } });
  try {
    await f.start();
    const bits = [];
    for (let i = 0; i < 40; i++) {
      const c = await challenge(f);
      bits.push(c.difficulty_bits);
      assert.equal((await f.join('demo', solveSync(c.challenge))).status, 201);
    }
    assert.equal(bits[0], 2);
    assert.ok(bits.at(-1) >= 2 + 3, `difficulty rose: ${bits}`);
    assert.ok(bits.at(-1) <= 2 + 6);
  } finally {
    await f.cleanup();
  }
});

test('an account hint gives one entry per account per room', async () => {
  const secret = 'shared-with-the-shop-0123456789';
  const f = new Foyer({ server: { account_hint_secret: secret } });
  try {
    await f.start();
    const hint = (room, account) => accountHint(secret, room, account);
    const first = await f.join('demo', { account: 'alice@example', account_hint: hint('demo', 'alice@example') });
    assert.equal(first.status, 201);
    const second = await f.join('demo', { account: 'alice@example', account_hint: hint('demo', 'alice@example') });
    assert.equal(second.status, 200);
    assert.equal(second.json.place, first.json.place);
    assert.equal(second.json.visitor_id, first.json.visitor_id);
    const bob = await f.join('demo', { account: 'bob@example', account_hint: hint('demo', 'bob@example') });
    assert.equal(bob.json.place, first.json.place + 1);
    assert.equal((await f.join('demo', { account: 'bob@example', account_hint: hint('demo', 'alice@example') })).status, 403);
    // After a kill -9 the account still has its entry.
    await f.kill9();
    await f.start();
    const third = await f.join('demo', { account: 'alice@example', account_hint: hint('demo', 'alice@example') });
    assert.equal(third.json.place, first.json.place);
  } finally {
    await f.cleanup();
  }
});

test('a room with require_account refuses joins without the account hint', async () => {
  const secret = 'shared-with-the-shop-0123456789';
  const f = new Foyer({
    server: { account_hint_secret: secret },
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 60, target_url: '/welcome', require_account: true }],
  });
  try {
    await f.start();
    const hint = (account) => accountHint(secret, 'demo', account);
    const bare = await f.join('demo', {});
    assert.equal(bare.status, 403);
    assert.equal(bare.json.error, 'account_required');
    assert.equal(bare.headers.get('content-type'), 'application/problem+json');
    const alice = await f.join('demo', { account: 'alice@example', account_hint: hint('alice@example') });
    assert.equal(alice.status, 201);
    // Three more tries without the hint: none is an entry.
    for (let i = 0; i < 3; i++) assert.equal((await f.join('demo', {})).json.error, 'account_required');
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.joined, 1);
    // The setting is part of the room's config, and holds after a restart.
    await f.kill9();
    await f.start();
    assert.equal((await f.join('demo', {})).json.error, 'account_required');
  } finally {
    await f.cleanup();
  }
});
