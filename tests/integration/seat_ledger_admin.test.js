// The seat ledger against a hurried operator and a greedy visitor, through the real
// binary: a seat total lowered while holds arrive is refused when it would not hold them,
// a pass reported done places nothing, a release of an ended hold writes nothing, and one
// pass takes no more seats than max_seats_per_pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { writeFileSync } from 'node:fs';

import { Foyer, configText, until } from '../lib/foyer.js';

const SITE = 'site-token-for-the-tests-0123';
const ADMIN = 'admin-token-for-the-tests-0123';
const server = { site_token: SITE, admin_token: ADMIN };

const jti = (pass) => JSON.parse(Buffer.from(pass.split('.')[1], 'base64url').toString()).jti;

async function passes(f, room, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const ticket = (await f.join(room)).json.ticket;
    const st = await until('admission', async () => {
      const s = (await f.status(ticket, room)).json;
      return s.pass ? s : null;
    });
    out.push(st.pass);
  }
  return out;
}

const hold = (f, room, pass, key, seats) => f.request('POST', `/api/v1/rooms/${room}/holds`,
  { body: { seats }, headers: { authorization: `Bearer ${pass}`, 'idempotency-key': key } });
const act = (f, room, id, action, key, auth = SITE) => f.request('POST', `/api/v1/rooms/${room}/holds/${id}/${action}`,
  { headers: { authorization: `Bearer ${auth}`, 'idempotency-key': key } });
const admin = (f, method, path, body) =>
  f.request(method, `/api/v1/admin/rooms${path}`, { body, headers: { authorization: `Bearer ${ADMIN}` } });
const inventory = async (f, room) => (await f.request('GET', `/api/v1/rooms/${room}/inventory`)).json;

// A server with one room of seats, `settings` over its inventory, and `count` admitted
// visitors' passes.
async function withRoom(id, settings, count, fn, extra = {}) {
  const f = new Foyer({
    server: { ...server, ...extra },
    rooms: [{ id, rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 10, ...settings } }],
  });
  try {
    await f.start();
    await fn(f, await passes(f, id, count));
  } finally {
    await f.cleanup();
  }
}

test('a seat total lowered while holds arrive is refused with the numbers, never frozen, across a restart', async () => {
  const f = new Foyer({
    server,
    rooms: [{ id: 'venue', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 100, max_seats_per_hold: 4 } }],
  });
  try {
    await f.start();
    const visitors = await passes(f, 'venue', 24);
    // Each round sends the holds and, among them, a total that fits what is held before
    // they land: whichever the log applies first, the ledger stays whole.
    let refusals = 0;
    const held = [];
    for (let round = 0; round < 8; round++) {
      const before = await inventory(f, 'venue');
      const mine = visitors.slice(round * 3, round * 3 + 3);
      const first = hold(f, 'venue', mine[0], `r${round}-0`, 4);
      const patch = admin(f, 'PATCH', '/venue', { inventory: { total: Math.max(before.held + before.confirmed, 1), max_seats_per_hold: 4 } });
      const rest = mine.slice(1).map((p, i) => hold(f, 'venue', p, `r${round}-${i + 1}`, 4));
      const [patched, ...answers] = await Promise.all([patch, first, ...rest]);
      for (const a of answers) if (a.status === 201) held.push(a.json.hold_id);
      const now = await inventory(f, 'venue');
      assert.equal(now.frozen, false, JSON.stringify(now));
      assert.equal(now.available + now.held + now.confirmed, now.total, JSON.stringify(now));
      if (patched.status === 409) {
        refusals++;
        assert.equal(patched.json.error, 'change_refused', patched.text);
        assert.equal(patched.json.field, 'inventory.total');
        assert.equal(typeof patched.json.held, 'number', patched.text);
        assert.equal(typeof patched.json.confirmed, 'number');
      } else {
        assert.equal(patched.status, 200, patched.text);
        assert.equal(patched.json.config.inventory.total, now.total);
      }
      // Raise it back for the next round.
      assert.equal((await admin(f, 'PATCH', '/venue', { inventory: { total: 100, max_seats_per_hold: 4 } })).status, 200);
    }
    // Every hold held can be paid for: it ends confirmed.
    for (const [i, id] of held.entries()) {
      const confirmed = await act(f, 'venue', id, 'confirm', `c${i}`);
      assert.equal(confirmed.status, 200, confirmed.text);
      assert.equal(confirmed.json.state, 'confirmed');
    }
    const settled = await inventory(f, 'venue');
    await f.kill9();
    await f.start();
    assert.deepEqual(await inventory(f, 'venue'), settled);
    assert.equal(settled.frozen, false);
    assert.ok(refusals + held.length > 0);
  } finally {
    await f.cleanup();
  }
});

test('a pass reported done places no hold, and one that placed holds is refused once reported done', () => withRoom('shop', { total: 10 }, 2, async (f, [first, second]) => {
  const done = await f.request('POST', '/api/v1/rooms/shop/passes/done',
    { body: { passes: [jti(first)] }, headers: { authorization: `Bearer ${SITE}` } });
  assert.equal(done.status, 200, done.text);
  const refused = await hold(f, 'shop', first, 'a', 1);
  assert.equal(refused.status, 401, refused.text);
  assert.equal(refused.json.error, 'pass_required');
  // The second holds, then is reported done: its pass is refused from then on.
  const held = await hold(f, 'shop', second, 'b', 1);
  assert.equal(held.status, 201, held.text);
  await f.request('POST', '/api/v1/rooms/shop/passes/done',
    { body: { passes: [jti(second)] }, headers: { authorization: `Bearer ${SITE}` } });
  assert.equal((await act(f, 'shop', held.json.hold_id, 'release', 'c', second)).status, 401);
  assert.equal((await hold(f, 'shop', second, 'd', 1)).status, 401);
  await f.kill9();
  await f.start();
  assert.equal((await hold(f, 'shop', first, 'e', 1)).status, 401);
  assert.equal((await inventory(f, 'shop')).held, 1);
}));

test('releases of an ended hold answer as it stands and write nothing', () => withRoom('hall', { total: 10 }, 1, async (f, [pass]) => {
  const placed = await hold(f, 'hall', pass, 'h', 1);
  assert.equal(placed.status, 201, placed.text);
  const id = placed.json.hold_id;
  assert.equal((await act(f, 'hall', id, 'release', 'r0')).json.state, 'released');
  // The releases in the log (the ticker writes the frontier meanwhile).
  const audit = async () => (await f.request('GET', '/api/v1/admin/rooms/hall/audit',
    { headers: { authorization: `Bearer ${ADMIN}` } })).text.split('\n').filter((l) => l.includes('hold_released')).length;
  const before = await audit();
  assert.equal(before, 1);
  for (let i = 0; i < 200; i++) {
    const again = await act(f, 'hall', id, 'release', `r${i + 1}`);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.state, 'released');
  }
  assert.equal(await audit(), before);
}));

test('a pass past its request budget on the holds endpoints gets 429 with Retry-After; the site does not', () => withRoom('hall', { total: 10 }, 1, async (f, [pass]) => {
  const placed = await hold(f, 'hall', pass, 'h', 1);
  assert.equal(placed.status, 201, placed.text);
  const id = placed.json.hold_id;
  const answers = [];
  for (let i = 0; i < 40; i++) answers.push(await act(f, 'hall', id, 'release', `v${i}`, pass));
  const limited = answers.filter((a) => a.status === 429);
  assert.ok(limited.length >= 8, answers.map((a) => a.status).join(','));
  assert.equal(limited[0].json.error, 'too_many_requests');
  assert.ok(Number(limited[0].headers.get('retry-after')) >= 1);
  for (let i = 0; i < 40; i++) assert.equal((await act(f, 'hall', id, 'release', `s${i}`)).status, 200);
}, { hold_requests_per_minute: 30 }));

test('one pass takes at most max_seats_per_pass seats, one hold after another', () => withRoom('hall', { total: 100, max_seats_per_hold: 4, second_hold: 'release_first' }, 1, async (f, [pass]) => {
  let confirmed = 0;
  for (let i = 0; i < 4; i++) {
    const placed = await hold(f, 'hall', pass, `h${i}`, 4);
    if (placed.status !== 201) {
      assert.equal(placed.status, 409, placed.text);
      assert.equal(placed.json.error, 'seats_per_pass_exceeded');
      continue;
    }
    const ok = await act(f, 'hall', placed.json.hold_id, 'confirm', `c${i}`);
    assert.equal(ok.json.state, 'confirmed');
    confirmed += 4;
  }
  assert.equal(confirmed, 4);
  assert.equal((await inventory(f, 'hall')).confirmed, 4);
}));

test('a room whose seats are held or confirmed is deleted only with force: 409 with the counts', () => withRoom('hall', { total: 10 }, 2, async (f, [one, two]) => {
  const held = await hold(f, 'hall', one, 'a', 2);
  const paid = await hold(f, 'hall', two, 'b', 3);
  assert.equal((await act(f, 'hall', paid.json.hold_id, 'confirm', 'c')).json.state, 'confirmed');
  const refused = await admin(f, 'DELETE', '/hall');
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.json.error, 'change_refused');
  assert.equal(refused.json.held, 2);
  assert.equal(refused.json.confirmed, 3);
  // The site's confirm of the held seats still answers.
  assert.equal((await act(f, 'hall', held.json.hold_id, 'confirm', 'd')).json.state, 'confirmed');
}));

test('a room deleted with force answers its holds through the late grace, held ones refunded, across a restart', () => withRoom('hall', { total: 10, late_grace_seconds: 6 }, 2, async (f, [one, two]) => {
  const held = (await hold(f, 'hall', one, 'a', 2)).json.hold_id;
  const paid = (await hold(f, 'hall', two, 'b', 3)).json.hold_id;
  const confirmation = (await act(f, 'hall', paid, 'confirm', 'c')).json;
  assert.equal(confirmation.state, 'confirmed');
  const removed = await admin(f, 'DELETE', '/hall?force=true');
  assert.equal(removed.status, 200, removed.text);
  const lookup = (id) => f.request('GET', `/api/v1/rooms/hall/holds/${id}`, { headers: { authorization: `Bearer ${SITE}` } });
  const refund = { hold_id: held, state: 'refund_required', reason: 'room_removed' };
  const answers = async (run) => {
    const late = await act(f, 'hall', held, 'confirm', `d${run}`);
    assert.equal(late.status, 200, late.text);
    assert.deepEqual(late.json, refund);
    assert.deepEqual((await act(f, 'hall', paid, 'confirm', `e${run}`)).json, confirmation);
    assert.deepEqual((await lookup(held)).json, refund);
    assert.equal((await act(f, 'hall', held, 'release', `r${run}`)).status, 409);
  };
  await answers(1);
  // The file no longer declares it (a removed room's id is never used again).
  writeFileSync(f.configPath, configText({ server, rooms: [] }));
  await f.kill9();
  await f.start();
  await answers(2);
  // Past the late grace it is as unknown as any removed room.
  await until('the late grace to pass', async () => (await lookup(held)).status === 404, 15000);
  const gone = await act(f, 'hall', paid, 'confirm', 'e3');
  assert.equal(gone.status, 404, gone.text);
  assert.equal(gone.json.error, 'unknown_room');
}));

test('a recount of a healthy seat ledger answers its numbers and writes nothing', () => withRoom('hall', { total: 10 }, 1, async (f, [pass]) => {
  const placed = await hold(f, 'hall', pass, 'a', 2);
  assert.equal(placed.status, 201, placed.text);
  const lines = async () => (await f.request('GET', '/api/v1/admin/rooms/hall/audit',
    { headers: { authorization: `Bearer ${ADMIN}` } })).text.split('\n').filter((l) => l.includes('seats_recounted')).length;
  for (let i = 0; i < 3; i++) {
    const recount = await admin(f, 'POST', '/hall/inventory/recount');
    assert.equal(recount.status, 200, recount.text);
    assert.deepEqual(recount.json, { total: 10, available: 8, held: 2, confirmed: 0, frozen: false, legs: {} });
  }
  assert.equal(await lines(), 0);
  assert.equal((await admin(f, 'POST', '/nowhere/inventory/recount')).status, 404);
}));
