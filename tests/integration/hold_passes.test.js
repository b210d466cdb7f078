// The hold routes verify a pass's signature once and then find it in a cache. The cache
// must not change who gets through: after a good pass was cached, a forged one, the same
// pass in another room and the same pass past its exp are refused as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer, until } from '../lib/foyer.js';

const SITE = 'site-token-for-the-tests-0123';
const PASS_TTL = 10;  // the shortest a room allows

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const claims = (pass) => JSON.parse(Buffer.from(pass.split('.')[1], 'base64url').toString());

async function passOf(f, room) {
  const ticket = (await f.join(room)).json.ticket;
  return (await until('admission', async () => (await f.status(ticket, room)).json.pass));
}

test('after a good pass is cached, forged, other-room and expired passes are still refused', async () => {
  const f = new Foyer({
    server: { site_token: SITE },
    rooms: [
      { id: 'hall', rate_per_minute: 6000, target_url: '/welcome', pass_ttl_seconds: PASS_TTL, inventory: { total: 10 } },
      { id: 'annex', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 10 } },
    ],
  });
  try {
    await f.start();
    const hallPass = await passOf(f, 'hall');
    const annexPass = await passOf(f, 'annex');
    let keys = 0;
    const hold = (room, pass) => f.request('POST', `/api/v1/rooms/${room}/holds`, {
      body: { seats: 1 }, headers: { authorization: `Bearer ${pass}`, 'idempotency-key': `k${keys++}` },
    });
    const refused = async (room, pass, why) => {
      const r = await hold(room, pass);
      assert.equal(r.status, 401, `${why}: ${r.text}`);
      assert.equal(r.json.error, 'pass_required', why);
    };

    // Both passes verified in full once, and cached in their rooms.
    const placed = await hold('hall', hallPass);
    assert.equal(placed.status, 201, placed.text);
    assert.equal((await hold('annex', annexPass)).status, 201);
    // From the cache: still this visitor, who holds seats already.
    assert.equal((await hold('hall', hallPass)).json.error, 'live_hold_exists');
    const own = await f.request('GET', `/api/v1/rooms/hall/holds/${placed.json.hold_id}`,
      { headers: { authorization: `Bearer ${hallPass}` } });
    assert.equal(own.status, 200, own.text);

    const [header, payload, signature] = hallPass.split('.');
    const otherSignature = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    await refused('hall', `${header}.${payload}.${otherSignature}`, 'a signature one character off');
    const longer = Buffer.from(JSON.stringify({ ...claims(hallPass), exp: claims(hallPass).exp + 3600 })).toString('base64url');
    await refused('hall', `${header}.${longer}.${signature}`, 'a later exp under the cached signature');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    await refused('hall', `${none}.${payload}.`, 'alg none');
    await refused('annex', hallPass, "the hall's pass in the annex");
    await refused('hall', annexPass, "the annex's pass in the hall");

    // Once its exp has passed, the cached pass is refused like any expired one.
    await sleep(Math.max(0, claims(hallPass).exp * 1000 - Date.now()) + 50);
    await refused('hall', hallPass, 'an expired pass');
    const release = await f.request('POST', `/api/v1/rooms/hall/holds/${placed.json.hold_id}/release`,
      { headers: { authorization: `Bearer ${hallPass}`, 'idempotency-key': 'r1' } });
    assert.equal(release.status, 401, release.text);
    // The site still can, and the annex's pass, which lives longer, still works.
    const bySite = await f.request('POST', `/api/v1/rooms/hall/holds/${placed.json.hold_id}/release`,
      { headers: { authorization: `Bearer ${SITE}`, 'idempotency-key': 'r2' } });
    assert.equal(bySite.json.state, 'released', bySite.text);
    assert.equal((await hold('annex', annexPass)).json.error, 'live_hold_exists');
  } finally {
    await f.cleanup();
  }
});
