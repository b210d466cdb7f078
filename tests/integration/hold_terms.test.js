// What a hold is held to, on the real binary: an access lane's longer hold, and an event's
// cap on one account's seats across the event's rooms (two dates of one tour).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer, accountHint, call, until } from '../lib/foyer.js';

const admin = 'hold-terms-admin-token-0123456789';
const secret = 'shared-with-the-shop-0123456789';
const date = (id, extra = {}) => ({
  id, rate_per_minute: 6000, target_url: '/checkout', require_account: true, event: 'tour',
  inventory: { total: 20, max_seats_per_account: 5, max_seats_per_pass: 8 }, ...extra,
});

test("an access lane's holds last longer, and an account takes at most the event's cap across its rooms", async () => {
  const f = new Foyer({
    server: { admin_token: admin, account_hint_secret: secret },
    rooms: [date('day1', { lanes: { access: { share: 0.5, hold_seconds: 900 } } }), date('day2')],
  });
  try {
    await f.start();
    const shown = await call(`${f.url}/api/v1/admin/rooms/day1`, 'GET', { bearer: admin });
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.json.config.event, 'tour');
    assert.equal(shown.json.config.lanes.access.hold_seconds, 900);
    assert.equal(shown.json.config.inventory.max_seats_per_account, 5);

    const codes = await call(`${f.url}/api/v1/admin/rooms/day1/codes`, 'POST',
      { bearer: admin, body: { batch: 'access-1', lane: 'access', count: 1 } });
    assert.equal(codes.status, 201, codes.text);
    const passOf = async (room, account, extra = {}) => {
      const joined = await f.join(room, { account, account_hint: accountHint(secret, room, account), ...extra });
      assert.equal(joined.status, 201, joined.text);
      return until(`${account}'s pass in ${room}`, async () => (await f.status(joined.json.ticket, room)).json.pass);
    };
    let keys = 0;
    const hold = (room, pass, seats) => f.request('POST', `/api/v1/rooms/${room}/holds`,
      { body: { seats }, headers: { authorization: `Bearer ${pass}`, 'idempotency-key': `k${keys++}` } });

    const alice = await passOf('day1', 'alice', { code: codes.json.generated[0] });
    const bob = await passOf('day1', 'bob');
    const access = await hold('day1', alice, 4);
    const general = await hold('day1', bob, 1);
    assert.equal(access.status, 201, access.text);
    assert.equal(general.status, 201, general.text);
    // The access lane's 15 minutes against the room's 3.
    const longer = Date.parse(access.json.expires_at) - Date.parse(general.json.expires_at);
    assert.ok(longer > 700_000 && longer <= 720_000, `${longer} ms longer`);

    // Alice holds 4 on day 1: on day 2 her account may take 1 more.
    const alice2 = await passOf('day2', 'alice');
    const over = await hold('day2', alice2, 2);
    assert.equal(over.status, 409, over.text);
    assert.equal(over.json.error, 'seats_per_account_exceeded');
    // Bob's seats are his own.
    const bob2 = await passOf('day2', 'bob');
    assert.equal((await hold('day2', bob2, 4)).status, 201);
    // Released on day 1, her seats are free for day 2.
    const released = await f.request('POST', `/api/v1/rooms/day1/holds/${access.json.hold_id}/release`,
      { headers: { authorization: `Bearer ${alice}`, 'idempotency-key': `k${keys++}` } });
    assert.equal(released.status, 200, released.text);
    const placed = await hold('day2', alice2, 2);
    assert.equal(placed.status, 201, placed.text);

    // After a kill -9 the log gives the same: 2 held on day 2, 3 more at most.
    await f.kill9();
    await f.start();
    const again = await passOf('day1', 'carol');
    assert.equal((await hold('day1', again, 4)).status, 201);
    const still = await f.request('POST', `/api/v1/rooms/day1/holds`,
      { body: { seats: 4 }, headers: { authorization: `Bearer ${alice}`, 'idempotency-key': `k${keys++}` } });
    assert.equal(still.status, 409, still.text);
    assert.equal(still.json.error, 'seats_per_account_exceeded');
  } finally {
    await f.cleanup();
  }
});
