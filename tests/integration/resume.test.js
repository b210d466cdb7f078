// Resume links ("Keep my place"): a visitor's link restores their ticket elsewhere, the
// same place and pass; it outlives a restart, is revoked on request and opens nowhere else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, withFoyer } from '../lib/foyer.js';

const rooms = [
  { id: 'shop', name: 'Shop', rate_per_minute: 1, target_url: 'https://shop.example/enter' },
  { id: 'other', name: 'Other', rate_per_minute: 1, target_url: 'https://shop.example/enter' },
];

const keep = (f, ticket, method = 'POST') => f.request(method, '/api/v1/rooms/shop/resume-link', { ticket });
const cookieOf = (res) => /^foyer_ticket=([^;]+); Path=\/api\/v1\/rooms\/shop;.*HttpOnly/.exec(res.headers.get('set-cookie'))?.[1];

test('a resume link restores the same ticket and place, once, durably, until it is revoked', async () => {
  await withFoyer({ rooms }, async (f) => {
    const first = (await f.join('shop')).json;
    const second = (await f.join('shop')).json;
    assert.equal(second.place, 1);

    assert.equal((await keep(f, undefined)).json.error, 'missing_ticket');
    const made = await keep(f, second.ticket);
    assert.equal(made.status, 200, made.text);
    assert.equal(made.headers.get('cache-control'), 'no-store');
    assert.match(made.json.path, /^\/r\/shop\/resume\/[A-Za-z0-9_-]+$/);
    assert.equal(made.json.url, `${f.url}${made.json.path}`);
    assert.match(made.json.qr_svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) \1"/);
    // Asked again, the live link comes back as it is.
    assert.equal((await keep(f, second.ticket)).json.path, made.json.path);
    // The link holds no personal data: nothing but the ticket and a random id.
    assert.ok(!made.json.path.includes(second.visitor_id));

    // Opened in another browser: on to the room's API path, where a browser shows the ticket
    // cookie it may hold; holding none, the ticket as its cookie, and the waiting page.
    const forwarded = await call(f.url + made.json.path, 'GET');
    assert.equal(forwarded.status, 303);
    assert.equal(forwarded.headers.get('location'), made.json.path.replace('/r/shop/', '/api/v1/rooms/shop/'));
    assert.equal(forwarded.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(cookieOf(forwarded), undefined);
    const opened = await call(f.url + forwarded.headers.get('location'), 'GET');
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get('location'), '/r/shop?resumed=1');
    assert.equal(opened.headers.get('referrer-policy'), 'no-referrer');
    const cookie = cookieOf(opened);
    assert.ok(cookie, opened.headers.get('set-cookie'));
    // The page takes the cookie up with a join that presents it: the same entry, no new place.
    const taken = await call(`${f.url}/api/v1/rooms/shop/join`, 'POST', { cookie: `foyer_ticket=${cookie}` });
    assert.equal(taken.status, 200);
    assert.equal(taken.json.existing, true);
    assert.equal(taken.json.place, 1);
    assert.equal(taken.json.visitor_id, second.visitor_id);
    // Both browsers poll the one place.
    const [a, b] = await Promise.all([f.status(second.ticket, 'shop'), f.status(taken.json.ticket, 'shop')]);
    assert.equal(a.json.place, 1);
    assert.equal(b.json.place, 1);
    assert.equal(a.json.position, b.json.position);
    // One ticket, one place: the next visitor is third.
    assert.equal((await f.join('shop')).json.place, 2);

    // The link is in the log: a restart keeps it.
    await f.stop();
    await f.start();
    assert.equal((await call(f.url + made.json.path, 'GET')).status, 303);

    // Elsewhere it opens nothing: another room, an altered token, an unknown room.
    const elsewhere = await call(f.url + made.json.path.replace('/r/shop/', '/r/other/'), 'GET');
    assert.equal(elsewhere.status, 403);
    assert.equal(elsewhere.json.error, 'ticket_for_other_room');
    assert.equal(elsewhere.headers.get('content-type'), 'application/problem+json');
    // One character of the token changed well before its end (whose last bits a decoder drops).
    const at = made.json.path.length - 10;
    const alteredPath = made.json.path.slice(0, at) + (made.json.path[at] === 'A' ? 'B' : 'A') + made.json.path.slice(at + 1);
    const altered = await call(`${f.url}${alteredPath}`, 'GET');
    assert.equal(altered.status, 404);
    assert.equal(altered.json.error, 'invalid_resume_link');
    assert.equal((await call(f.url + made.json.path.replace('/r/shop/', '/r/gone/'), 'GET')).json.error, 'unknown_room');

    // Revoked: refused; revoking again changes nothing; a new link replaces it.
    assert.equal((await keep(f, taken.json.ticket, 'DELETE')).status, 204);
    const revoked = await call(f.url + made.json.path, 'GET');
    assert.equal(revoked.status, 410);
    assert.equal(revoked.json.error, 'resume_link_revoked');
    assert.equal((await keep(f, second.ticket, 'DELETE')).status, 204);
    const fresh = await keep(f, second.ticket);
    assert.notEqual(fresh.json.path, made.json.path);
    assert.equal((await call(f.url + fresh.json.path, 'GET')).status, 303);
    assert.equal((await call(f.url + made.json.path, 'GET')).status, 410);
    // Another visitor's link is their own.
    const theirs = await keep(f, first.ticket);
    assert.notEqual(theirs.json.path, fresh.json.path);
  });
});

test('a ticket makes a bounded number of links: each is a write', async () => {
  await withFoyer({ rooms }, async (f) => {
    const { ticket } = (await f.join('shop')).json;
    for (let i = 0; i < 8; i++) {
      assert.equal((await keep(f, ticket)).status, 200);
      assert.equal((await keep(f, ticket, 'DELETE')).status, 204);
    }
    const refused = await keep(f, ticket);
    assert.equal(refused.status, 409);
    assert.equal(refused.json.error, 'resume_links_used_up');
  });
});
