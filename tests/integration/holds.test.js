// Holds on a 200-seat room through the real binary: 40 visitors with passes hold,
// confirm or release at random and retry every request with its key, while the server is
// killed -9 twice. After the restart the seats add up, no seat is sold twice, every
// acknowledged confirmation is there and every retry got its first answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer, until } from '../lib/foyer.js';

const SITE = 'site-token-for-the-tests-0123';
const ADMIN = 'admin-token-for-the-tests-0123';
const TOTAL = 200;
const VISITORS = 40;
const ROUNDS = 6;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One request, again and again while the server is down (a kill -9 in the middle), until it
// answers; bounded.
async function answered(f, method, path, options) {
  for (let attempt = 0; attempt < 400; attempt++) {
    try {
      const r = await f.request(method, path, options);
      if (r.status !== 503) return r;
    } catch { /* the server is restarting */ }
    await sleep(25);
  }
  throw new Error(`no answer to ${method} ${path}`);
}

test('40 visitors hold, confirm and release 200 seats across two kill -9s; nothing is sold twice', async () => {
  const f = new Foyer({
    server: { site_token: SITE },
    rooms: [{
      id: 'venue', rate_per_minute: 6000, target_url: '/welcome',
      inventory: { total: TOTAL, hold_seconds: 60, max_seats_per_hold: 4 },
    }],
  });
  try {
    await f.start();
    const passes = [];
    for (let i = 0; i < VISITORS; i++) {
      const ticket = (await f.join('venue')).json.ticket;
      const st = await until('admission', async () => {
        const s = (await f.status(ticket, 'venue')).json;
        return s.state === 'admitted' && s.pass ? s : null;
      });
      passes.push(st.pass);
    }
    assert.deepEqual((await f.request('GET', '/api/v1/rooms/venue/inventory')).json,
      { total: TOTAL, available: TOTAL, held: 0, confirmed: 0, frozen: false, legs: {} });

    const firstAnswers = new Map();  // key -> {status, json} first heard
    const confirmations = new Map();  // hold_id -> confirmation_id acknowledged
    const heard = [];
    // The first answer a key got, and every later answer for it, are the same.
    const call = async (key, method, path, auth, body) => {
      const r = await answered(f, method, path, { body, headers: { authorization: `Bearer ${auth}`, 'idempotency-key': key } });
      const got = { status: r.status, json: r.json };
      if (firstAnswers.has(key)) heard.push([key, got]);
      else firstAnswers.set(key, got);
      return got;
    };

    let seed = 7;
    const random = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const visitor = async (v) => {
      for (let round = 0; round < ROUNDS; round++) {
        const key = `v${v}-r${round}`;
        const seats = 1 + random(4);
        const placed = await call(`${key}-hold`, 'POST', '/api/v1/rooms/venue/holds', passes[v], { seats });
        // A retry of the placement, with the same key.
        await call(`${key}-hold`, 'POST', '/api/v1/rooms/venue/holds', passes[v], { seats });
        if (placed.status !== 201) {
          assert.equal(placed.status, 409, JSON.stringify(placed.json));
          continue;
        }
        const hold = placed.json.hold_id;
        const path = `/api/v1/rooms/venue/holds/${hold}`;
        if (random(3) > 0) {
          const confirmed = await call(`${key}-confirm`, 'POST', `${path}/confirm`, SITE);
          await call(`${key}-confirm`, 'POST', `${path}/confirm`, SITE);
          assert.equal(confirmed.status, 200);
          assert.equal(confirmed.json.state, 'confirmed');
          confirmations.set(hold, confirmed.json.confirmation_id);
        } else {
          const released = await call(`${key}-release`, 'POST', `${path}/release`, passes[v]);
          await call(`${key}-release`, 'POST', `${path}/release`, passes[v]);
          assert.equal(released.status, 200);
          assert.equal(released.json.state, 'released');
        }
      }
    };
    const work = Promise.all(passes.map((_, v) => visitor(v)));
    for (let kill = 0; kill < 2; kill++) {
      await sleep(300);
      await f.kill9();
      await f.start();
    }
    await work;

    for (const [key, got] of heard) assert.deepEqual(got, firstAnswers.get(key), key);
    const inv = (await f.request('GET', '/api/v1/rooms/venue/inventory')).json;
    assert.equal(inv.confirmed + inv.held + inv.available, TOTAL);
    assert.ok(inv.confirmed <= TOTAL);
    assert.equal(inv.frozen, false);
    let acknowledged = 0;
    for (const [hold, confirmation] of confirmations) {
      const r = await f.request('GET', `/api/v1/rooms/venue/holds/${hold}`, { headers: { authorization: `Bearer ${SITE}` } });
      assert.equal(r.json.state, 'confirmed', hold);
      assert.equal(r.json.confirmation_id, confirmation);
      acknowledged++;
    }
    assert.ok(acknowledged > 0);
  } finally {
    await f.cleanup();
  }
});

test('a hold refuses a second one, takes no seats from a bad pass, and answers retries from the first', async () => {
  const f = new Foyer({
    server: { site_token: SITE },
    rooms: [{ id: 'hall', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 3 } }],
  });
  try {
    await f.start();
    const ticket = (await f.join('hall')).json.ticket;
    const { pass } = await until('admission', async () => {
      const s = (await f.status(ticket, 'hall')).json;
      return s.pass ? s : null;
    });
    const hold = (key, body, auth = pass) => f.request('POST', '/api/v1/rooms/hall/holds',
      { body, headers: { authorization: `Bearer ${auth}`, 'idempotency-key': key } });
    const first = await hold('a', { seats: 2 });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.state, 'held');
    assert.equal(first.json.seats, 2);
    assert.ok(Date.parse(first.json.expires_at) > Date.now());
    assert.deepEqual((await hold('a', { seats: 2 })).json, first.json);
    assert.equal((await hold('a', { seats: 1 })).json.error, 'idempotency_key_reused');
    assert.equal((await hold('b', { seats: 1 })).json.error, 'live_hold_exists');
    assert.equal((await hold('c', { seats: 1 }, 'not-a-pass')).status, 401);
    assert.equal((await f.request('POST', '/api/v1/rooms/hall/holds', { body: { seats: 1 }, headers: { authorization: `Bearer ${pass}` } })).status, 400);
    const inventory = await f.request('GET', '/api/v1/rooms/hall/inventory');
    assert.equal(inventory.headers.get('cache-control'), 'public, max-age=1');
    assert.equal(inventory.json.held, 2);
    const site = (path, key) => f.request('POST', `/api/v1/rooms/hall/holds/${first.json.hold_id}/${path}`,
      { headers: { authorization: `Bearer ${SITE}`, 'idempotency-key': key } });
    assert.equal((await f.request('POST', `/api/v1/rooms/hall/holds/${first.json.hold_id}/confirm`,
      { headers: { authorization: `Bearer ${pass}`, 'idempotency-key': 'x' } })).status, 401);
    const extended = await site('payment-pending', 'p1');
    assert.equal(extended.status, 200, extended.text);
    assert.ok(Date.parse(extended.json.expires_at) > Date.parse(first.json.expires_at));
    assert.equal((await site('payment-pending', 'p2')).json.error, 'hold_extended_already');
    const confirmed = await site('confirm', 'c1');
    assert.equal(confirmed.json.state, 'confirmed');
    assert.deepEqual((await site('confirm', 'c2')).json, confirmed.json);
    await f.kill9();
    await f.start();
    assert.deepEqual((await site('confirm', 'c1')).json, confirmed.json);
    assert.equal((await site('release', 'r1')).json.error, 'hold_not_held');
    const own = await f.request('GET', `/api/v1/rooms/hall/holds/${first.json.hold_id}`, { headers: { authorization: `Bearer ${pass}` } });
    assert.equal(own.json.state, 'confirmed');
    assert.equal((await hold('d', { seats: 2 })).json.error, 'sold_out');
  } finally {
    await f.cleanup();
  }
});

test('seats on legs: a hold takes every leg between its stations, and names the field it gets wrong', async () => {
  const f = new Foyer({
    server: { site_token: SITE },
    rooms: [{
      id: 'line', rate_per_minute: 6000, target_url: '/welcome',
      inventory: { total: 2, legs: ['A', 'B', 'C', 'D'], leg_totals: [2, 1, 2] },
    }],
  });
  try {
    await f.start();
    const passes = [];
    for (let i = 0; i < 2; i++) {
      const ticket = (await f.join('line')).json.ticket;
      passes.push((await until('admission', async () => {
        const s = (await f.status(ticket, 'line')).json;
        return s.pass ? s : null;
      })).pass);
    }
    const hold = (v, key, body) => f.request('POST', '/api/v1/rooms/line/holds',
      { body, headers: { authorization: `Bearer ${passes[v]}`, 'idempotency-key': key } });
    const missing = await hold(0, 'm', { seats: 1, to: 'C' });
    assert.equal(missing.status, 422, missing.text);
    assert.equal(missing.json.field, 'from');
    assert.equal((await hold(0, 'r', { seats: 1, from: 'C', to: 'A' })).json.field, 'to');
    assert.equal((await hold(0, 'a', { seats: 1, from: 'A', to: 'C' })).status, 201);
    // B-C has one seat, taken: B-D is refused whole.
    assert.equal((await hold(1, 'b', { seats: 1, from: 'B', to: 'D' })).json.error, 'sold_out');
    assert.equal((await hold(1, 'c', { seats: 1, from: 'C', to: 'D' })).status, 201);
    assert.deepEqual((await f.request('GET', '/api/v1/rooms/line/inventory')).json, {
      total: 2, available: 0, held: 2, confirmed: 0, frozen: false,
      legs: {
        'A-B': { total: 2, available: 1, held: 1, confirmed: 0 },
        'B-C': { total: 1, available: 0, held: 1, confirmed: 0 },
        'C-D': { total: 2, available: 1, held: 1, confirmed: 0 },
      },
    });
  } finally {
    await f.cleanup();
  }
});

test('a waitlist: the third visitor waits in line, and holds the seat the first releases', async () => {
  const f = new Foyer({
    server: { site_token: SITE, admin_token: ADMIN },
    rooms: [{ id: 'club', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 3, waitlist: 1 } }],
  });
  try {
    await f.start();
    const passes = [];
    const tickets = [];
    for (let i = 0; i < 3; i++) {
      tickets.push((await f.join('club')).json.ticket);
      passes.push((await until('admission', async () => {
        const s = (await f.status(tickets[i], 'club')).json;
        return s.pass ? s : null;
      })).pass);
    }
    const hold = (v, key, seats) => f.request('POST', '/api/v1/rooms/club/holds',
      { body: { seats }, headers: { authorization: `Bearer ${passes[v]}`, 'idempotency-key': key } });
    const first = await hold(0, 'a', 2);
    assert.equal(first.status, 201, first.text);
    assert.equal((await hold(1, 'b', 1)).status, 201);
    const waiting = await hold(2, 'c', 1);
    assert.equal(waiting.status, 409, waiting.text);
    assert.equal(waiting.json.error, 'waitlist_offered');
    assert.equal(waiting.json.waitlist_position, 1);
    assert.deepEqual((await hold(2, 'c', 1)).json, waiting.json);
    const mine = () => f.request('GET', `/api/v1/rooms/club/holds/${waiting.json.hold_id}`,
      { headers: { authorization: `Bearer ${passes[2]}` } });
    assert.equal((await mine()).json.state, 'waitlisted');
    assert.equal((await mine()).json.waitlist_position, 1);
    // The waiting page's status shows the place in line where the pass was.
    const inLine = (await f.status(tickets[2], 'club')).json;
    assert.equal(inLine.state, 'waitlisted', JSON.stringify(inLine));
    assert.equal(inLine.hold_id, waiting.json.hold_id);
    assert.equal(inLine.waitlist_position, 1);
    assert.equal(inLine.poll_after_ms, 2000);
    assert.equal(inLine.pass, undefined);
    const released = await f.request('POST', `/api/v1/rooms/club/holds/${first.json.hold_id}/release`,
      { headers: { authorization: `Bearer ${SITE}`, 'idempotency-key': 'r' } });
    assert.equal(released.json.state, 'released');
    await f.kill9();
    await f.start();
    const held = (await mine()).json;
    assert.equal(held.state, 'held');
    assert.ok(Date.parse(held.expires_at) > Date.now());
    const holding = (await f.status(tickets[2], 'club')).json;
    assert.equal(holding.state, 'holding');
    assert.equal(holding.waitlist_position, undefined);
    // The audit trail says what each request did.
    const audit = await f.request('GET', '/api/v1/admin/rooms/club/audit', { headers: { authorization: `Bearer ${ADMIN}` } });
    const holds = audit.text.trimEnd().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type.startsWith('hold'));
    assert.deepEqual(holds.map((l) => [l.type, l.outcome]),
      [['hold_placed', 'placed'], ['hold_placed', 'placed'], ['hold_placed', 'waitlisted'], ['hold_released', 'released']]);
  } finally {
    await f.cleanup();
  }
});

test('the room says how many seats are promised to admitted visitors beside those available', async () => {
  const f = new Foyer({
    server: { admin_token: ADMIN },
    rooms: [{ id: 'hall', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 3 } }],
  });
  try {
    await f.start();
    const tickets = [];
    for (let i = 0; i < 5; i++) tickets.push((await f.join('hall')).json.ticket);
    // Three admitted, one seat each still theirs to hold: no seat is free for the fourth.
    const info = await until('admission held by the seats', async () => {
      const r = (await f.request('GET', '/api/v1/rooms/hall')).json;
      return r.rate_reason === 'held_by_seats' ? r : null;
    });
    assert.equal(info.served, 3);
    assert.equal(info.inventory.available, 3);
    assert.equal(info.inventory.promised, 3);
    const adminView = (await f.request('GET', '/api/v1/admin/rooms/hall', { headers: { authorization: `Bearer ${ADMIN}` } })).json;
    assert.equal(adminView.inventory.promised, 3);
    // One of them holds two seats: two are taken, and that visitor is owed none any more.
    const { pass } = await until('a pass', async () => (await f.status(tickets[0], 'hall')).json.pass && (await f.status(tickets[0], 'hall')).json);
    const hold = await f.request('POST', '/api/v1/rooms/hall/holds',
      { body: { seats: 2 }, headers: { authorization: `Bearer ${pass}`, 'idempotency-key': 'h' } });
    assert.equal(hold.status, 201, hold.text);
    const afterRoom = (await f.request('GET', '/api/v1/rooms/hall')).json;
    assert.equal(afterRoom.inventory.available, 1);
    // Each admitted visitor but the one who holds is still owed a seat.
    assert.equal(afterRoom.inventory.promised, afterRoom.served - 1);
  } finally {
    await f.cleanup();
  }
});
