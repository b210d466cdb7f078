// Admission that follows the site, through the real binary: the stock it reports, the
// passes it reports done under max_active, and the signals that move the adaptive rate.
// Each survives a kill -9.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer, until } from '../lib/foyer.js';

const SITE = 'site-token-for-the-tests-0123';
const site = (f, path, body, headers = {}) =>
  f.request('POST', `/api/v1/rooms/${path}`, { body, headers: { authorization: `Bearer ${SITE}`, ...headers } });
const stock = (f, room, body, key) => site(f, `${room}/stock`, body, key ? { 'idempotency-key': key } : {});
const info = async (f, room) => (await f.request('GET', `/api/v1/rooms/${room}`)).json;
const jti = (pass) => JSON.parse(Buffer.from(pass.split('.')[1], 'base64url').toString()).jti;

function assertProblem(r, status, code) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.equal(r.json.error, code);
}

async function withSite(rooms, fn) {
  const f = new Foyer({ server: { site_token: SITE }, rooms });
  try {
    await f.start();
    await fn(f);
  } finally {
    await f.cleanup();
  }
}


test('ten retries of one stock report count once, also after kill -9', () =>
  withSite([{ id: 'shop', rate_per_minute: 60, target_url: '/welcome', stock: 10 }], async (f) => {
    for (let i = 0; i < 10; i++) {
      const r = await stock(f, 'shop', { consumed: 3 }, 'order-1');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json, { remaining: 7, state: 'open' });
    }
    assert.equal((await info(f, 'shop')).stock_remaining, 7);
    assertProblem(await stock(f, 'shop', { consumed: 4 }, 'order-1'), 422, 'idempotency_key_reused');
    assertProblem(await stock(f, 'shop', { consumed: 1 }), 400, 'idempotency_key_required');
    assertProblem(await stock(f, 'shop', { consumed: -1 }, 'order-2'), 400, 'bad_body');
    assertProblem(await stock(f, 'shop', { consumed: 1, released: 1 }, 'order-2'), 400, 'bad_body');
    assertProblem(await f.request('POST', '/api/v1/rooms/shop/stock', { body: { consumed: 1 }, headers: { 'idempotency-key': 'x' } }),
      401, 'site_token_required');
    assertProblem(await stock(f, 'nowhere', { consumed: 1 }, 'order-2'), 404, 'unknown_room');
    await f.kill9();
    await f.start();
    const retry = await stock(f, 'shop', { consumed: 3 }, 'order-1');
    assert.deepEqual(retry.json, { remaining: 7, state: 'open' });
    assert.equal((await info(f, 'shop')).stock_remaining, 7);
  }));

test('the last item sold turns every waiting poll into sold_out, refuses joins, and released stock reopens', () =>
  withSite([
    { id: 'train', rate_per_minute: 1, target_url: '/welcome', stock: 2, alternatives: ['bus'] },
    { id: 'bus', name: 'The bus', rate_per_minute: 60, target_url: '/welcome' },
  ], async (f) => {
    const tickets = [];
    for (let i = 0; i < 4; i++) tickets.push((await f.join('train')).json.ticket);
    const waiting = await f.status(tickets[3], 'train');
    assert.equal(waiting.json.state, 'waiting');
    assert.equal(waiting.json.stock_left, 2);
    assert.deepEqual((await stock(f, 'train', { consumed: 2 }, 'last')).json, { remaining: 0, state: 'sold_out' });
    for (const t of tickets.slice(1)) {
      const st = await f.status(t, 'train');
      assert.equal(st.json.state, 'sold_out');
      assert.deepEqual(st.json.alternatives, [{ id: 'bus', name: 'The bus', state: 'open', url: '/r/bus' }]);
    }
    assertProblem(await f.join('train'), 410, 'sold_out');
    assertProblem(await f.request('POST', '/api/v1/rooms/train/challenge'), 410, 'sold_out');
    await f.kill9();
    await f.start();
    assert.equal((await f.status(tickets[3], 'train')).json.state, 'sold_out');
    assert.deepEqual((await stock(f, 'train', { released: 1 }, 'refund')).json, { remaining: 1, state: 'open' });
    assert.equal((await f.status(tickets[3], 'train')).json.state, 'waiting');
    assert.equal((await f.join('train')).status, 201);
  }));

test('max_active holds the queue while passes are live; passes reported done let the next in', () =>
  withSite([{ id: 'shop', rate_per_minute: 6000, target_url: '/welcome', max_active: 2 }], async (f) => {
    const tickets = [];
    for (let i = 0; i < 5; i++) tickets.push((await f.join('shop')).json.ticket);
    await until('two admitted', async () => (await info(f, 'shop')).served === 2);
    const first = await f.status(tickets[0], 'shop');
    const second = await f.status(tickets[1], 'shop');
    assert.equal(first.json.state, 'admitted');
    assert.equal(second.json.state, 'admitted');
    // The same pass on every poll: claimed once, with a fixed expiry.
    assert.equal((await f.status(tickets[0], 'shop')).json.pass, first.json.pass);
    // The claims are written after the answers, not waited for.
    let room = await until('two passes live', async () => {
      const r = await info(f, 'shop');
      return r.active === 2 && r;
    });
    assert.equal(room.claimed, 2);
    assert.equal(room.rate_reason, 'held_by_max_active');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await info(f, 'shop')).served, 2);
    assert.equal((await f.status(tickets[2], 'shop')).json.state, 'waiting');

    await f.kill9();
    await f.start();
    room = await info(f, 'shop');
    assert.equal(room.active, 2, 'the claims were made durable');
    assert.equal(room.served, 2);

    const done = await site(f, 'shop/passes/done', { passes: [jti(first.json.pass), jti(first.json.pass), 'ab'.repeat(16)] });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.json, { done: 1, active: 1 });
    // Idempotent: nothing more is freed the second time.
    assert.deepEqual((await site(f, 'shop/passes/done', { passes: [jti(first.json.pass)] })).json, { done: 0, active: 1 });
    await until('the third admitted', async () => (await f.status(tickets[2], 'shop')).json.state === 'admitted');
    assert.equal((await info(f, 'shop')).served, 3);
    // The finished visitor's turn has ended.
    assert.equal((await f.status(tickets[0], 'shop')).json.state, 'expired');
    assertProblem(await site(f, 'shop/passes/done', { passes: ['not-a-jti'] }), 400, 'bad_body');
  }));

test('signals move the adaptive rate within its bounds, each change in the log with its reason', () =>
  withSite([{
    id: 'shop', rate_per_minute: 600, target_url: '/welcome',
    adaptive: { min_rate_per_minute: 100, max_rate_per_minute: 1000, target_p95_ms: 800, adjust_every_seconds: 1, increase_per_minute: 50 },
  }], async (f) => {
    assert.equal((await info(f, 'shop')).rate_per_minute, 600);
    const slow = await site(f, 'shop/signals', { p95_ms: 2000 });
    assert.equal(slow.status, 202, slow.text);
    const cut = await until('a decrease', async () => {
      const r = await info(f, 'shop');
      return r.rate_per_minute < 600 && r;
    });
    assert.equal(cut.rate_per_minute, 420);
    assert.equal(cut.rate_reason, 'adaptive_decrease');
    await site(f, 'shop/signals', { p95_ms: 100, error_rate: 0.001 });
    const raised = await until('an increase', async () => {
      const r = await info(f, 'shop');
      return r.rate_per_minute > 420 && r;
    });
    assert.equal(raised.rate_reason, 'adaptive_increase');
    assert.ok(raised.rate_per_minute <= 1000);
    assertProblem(await site(f, 'shop/signals', { p95_ms: 'fast' }), 400, 'bad_body');
    assertProblem(await site(f, 'shop/signals', { error_rate: 2 }), 400, 'bad_body');
    assertProblem(await site(f, 'shop/signals', {}), 400, 'bad_body');

    const before = (await info(f, 'shop')).rate_per_minute;
    await f.kill9();
    await f.start();
    const after = await info(f, 'shop');
    // The rate as the log last made it durable; the controller then goes on from there.
    assert.ok(Math.abs(after.rate_per_minute - before) <= 50, `${after.rate_per_minute} vs ${before}`);
  }));

test('the site calls are off without a site token, and the admin token works for them too', async () => {
  const ADMIN = 'admin-token-for-the-tests-0123';
  const f = new Foyer({ server: { admin_token: ADMIN }, rooms: [{ id: 'shop', rate_per_minute: 60, target_url: '/welcome' }] });
  try {
    await f.start();
    const withAdmin = await f.request('POST', '/api/v1/rooms/shop/stock', {
      body: { remaining: 5 }, headers: { authorization: `Bearer ${ADMIN}`, 'idempotency-key': 'k' },
    });
    assert.deepEqual(withAdmin.json, { remaining: 5, state: 'open' });
    assertProblem(await f.request('POST', '/api/v1/rooms/shop/signals', { body: { p95_ms: 1 }, headers: { authorization: `Bearer ${SITE}` } }),
      401, 'site_token_required');
  } finally {
    await f.cleanup();
  }
  const off = new Foyer({ rooms: [{ id: 'shop', rate_per_minute: 60, target_url: '/welcome' }] });
  try {
    await off.start();
    assertProblem(await off.request('POST', '/api/v1/rooms/shop/signals', { body: { p95_ms: 1 } }), 404, 'site_calls_off');
  } finally {
    await off.cleanup();
  }
});

test('seats that are all taken hold the queue: the room says held_by_seats, and the waiting get no invented time', () =>
  withSite([{ id: 'venue', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 2 } }], async (f) => {
    const tickets = [];
    for (let i = 0; i < 4; i++) tickets.push((await f.join('venue')).json.ticket);
    await until('two admitted', async () => (await info(f, 'venue')).served === 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const room = await info(f, 'venue');
    assert.equal(room.served, 2);
    assert.equal(room.rate_reason, 'held_by_seats');
    const waiting = (await f.status(tickets[3], 'venue')).json;
    assert.equal(waiting.state, 'waiting');
    assert.equal(waiting.position, 1);
    assert.equal(waiting.eta_seconds, null);
    assert.equal(waiting.held_reason, 'held_by_seats');
    const admitted = (await f.status(tickets[0], 'venue')).json;
    assert.equal(admitted.state, 'admitted');
    assert.equal(admitted.held_reason, undefined);
  }));
