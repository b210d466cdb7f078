// The queue without JavaScript on the real binary: off unless a lane takes it; then a
// form, a join without proof of work, the ticket cookie, a page that refreshes itself,
// the lane's share of admission, the per-network cap and the way through to the target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Foyer, call, until } from '../lib/foyer.js';

const admin = 'plain-admin-token-0123456789';
const html = { accept: 'text/html' };

async function get(url, headers = {}) {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// A join as the form sends it; the cookie the answer sets, if any.
async function plainJoin(f, headers = html) {
  const res = await fetch(`${f.url}/api/v1/rooms/sale/plain`, {
    method: 'POST', redirect: 'manual',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: '',
  });
  const text = await res.text();
  const cookie = /^(foyer_ticket=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  return { status: res.status, headers: res.headers, text, cookie };
}

test('off by default: no form, no join, no waiting page', async () => {
  const f = new Foyer({ rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 60, target_url: '/checkout' }] });
  try {
    await f.start();
    assert.equal((await get(`${f.url}/r/sale/plain`, html)).status, 404);
    const join = await plainJoin(f, {});
    assert.equal(join.status, 404);
    assert.equal(JSON.parse(join.text).error, 'not_found');
    assert.equal(join.cookie, undefined);
    assert.equal((await get(`${f.url}/api/v1/rooms/sale/plain`)).status, 404);
  } finally {
    await f.cleanup();
  }
});

test('a no_script lane: form, join, cookie, refreshing page, its share of the rate, the cap and the pass', async () => {
  const f = new Foyer({
    server: { admin_token: admin },
    // Joins with JavaScript pay a proof of work; those without cannot, and need none.
    proof_of_work: { base_bits: 8 },
    rooms: [{ id: 'sale', name: 'Sale <b>"now"</b>', rate_per_minute: 600, target_url: '/checkout',
              lanes: { plain: { name: 'Quiet <lane> & co', share: 0.2, entry: 'no_script' } } }],
  });
  try {
    await f.start();
    // The form, with every value escaped.
    const form = await get(`${f.url}/r/sale/plain`, html);
    assert.equal(form.status, 200, form.text);
    assert.match(form.headers.get('content-type'), /^text\/html/);
    assert.match(form.headers.get('content-security-policy'), /script-src 'self'/);
    assert.match(form.text, /<form method="post" action="\/api\/v1\/rooms\/sale\/plain">/);
    assert.match(form.text, /Quiet &lt;lane&gt; &amp; co/);
    assert.match(form.text, /Sale &lt;b&gt;&quot;now&quot;&lt;\/b&gt;/);
    assert.match(form.text, /20 % of the room's visitors/);
    assert.doesNotMatch(form.text, /<lane>|<b>/);
    // The JavaScript join still pays its proof.
    assert.equal((await f.join('sale')).json.error, 'bad_join_body');
    const info = (await f.request('GET', '/api/v1/rooms/sale')).json;
    assert.deepEqual(info.lanes.map((l) => [l.id, l.entry]), [['general', 'open'], ['plain', 'no_script']]);

    // Held while the queues fill, so that both lanes have visitors waiting.
    assert.equal((await call(`${f.url}/api/v1/admin/rooms/sale/pause`, 'POST', { bearer: admin })).status, 200);
    const first = await plainJoin(f);
    assert.equal(first.status, 303, first.text);
    assert.equal(first.headers.get('location'), '/api/v1/rooms/sale/plain');
    assert.match(first.headers.get('set-cookie'), /; Path=\/api\/v1\/rooms\/sale; .*HttpOnly; SameSite=Lax/);
    assert.ok(first.cookie);
    // Joined again with the cookie: the same entry, no new cookie.
    const again = await plainJoin(f, { ...html, cookie: first.cookie });
    assert.equal(again.status, 303);
    assert.equal(again.cookie, undefined);
    // Without a ticket the waiting page sends the visitor to the form.
    const bare = await get(`${f.url}/api/v1/rooms/sale/plain`, html);
    assert.equal(bare.status, 303);
    assert.equal(bare.headers.get('location'), '/r/sale/plain');

    const waiting = await get(`${f.url}/api/v1/rooms/sale/plain`, { ...html, cookie: first.cookie });
    assert.equal(waiting.status, 200, waiting.text);
    assert.match(waiting.text, /<meta http-equiv="refresh" content="\d+">/);
    assert.match(waiting.text, /<dd id="ahead">0<\/dd>/);
    assert.match(waiting.text, /paused/);
    // Paused, nobody knows when the queue moves again: no wait is shown, nor made up.
    assert.doesNotMatch(waiting.text, /Your wait|about \d+ min/);
    // The same ticket as the JavaScript page's: its status poll reads the cookie.
    const st = await call(`${f.url}/api/v1/rooms/sale/status`, 'GET', { cookie: first.cookie });
    assert.equal(st.json.lane, 'plain');
    assert.equal(st.json.state, 'paused');
    assert.equal(st.json.eta_seconds, null);
    assert.equal(st.json.place, 0);

    // Five a minute from one network; the sixth is refused, as a page and as a problem.
    for (let i = 0; i < 4; i++) assert.equal((await plainJoin(f)).status, 303);
    const capped = await plainJoin(f);
    assert.equal(capped.status, 429);
    assert.ok(Number(capped.headers.get('retry-after')) > 0);
    assert.match(capped.headers.get('content-type'), /^text\/html/);
    assert.match(capped.text, /Many visitors joined without JavaScript from your network; try again in \d+ s\./);
    const problem = await plainJoin(f, {});
    assert.equal(problem.status, 429);
    assert.equal(JSON.parse(problem.text).error, 'too_many_requests');

    // Forty visitors with JavaScript; then admission runs with both lanes waiting.
    const { solveSync } = await import('../../web/js/pow.js');
    for (let i = 0; i < 40; i++) {
      const challenge = await f.request('POST', '/api/v1/rooms/sale/challenge');
      assert.equal((await f.join('sale', solveSync(challenge.json.challenge))).status, 201);
    }
    assert.equal((await call(`${f.url}/api/v1/admin/rooms/sale/resume`, 'POST', { bearer: admin })).status, 200);
    let lanes;
    await until('thirty admitted', async () => {
      lanes = (await f.request('GET', '/api/v1/rooms/sale')).json.lanes;
      const [general, plain] = lanes;
      // While both wait, the lane without proof of work takes its fifth, not more.
      if (plain.waiting > 0) {
        assert.ok(plain.served <= Math.ceil((general.served + plain.served) * 0.2) + 1, JSON.stringify(lanes));
      }
      return general.served + plain.served >= 30;
    });
    assert.equal(lanes[1].served, 5, JSON.stringify(lanes));

    // Admitted: no more refreshing, a link through to the target with the pass.
    const turn = await get(`${f.url}/api/v1/rooms/sale/plain`, { ...html, cookie: first.cookie });
    assert.match(turn.text, /It is your turn/);
    assert.doesNotMatch(turn.text, /http-equiv="refresh"/);
    assert.match(turn.text, /href="\/api\/v1\/rooms\/sale\/plain\/pass"/);
    const through = await get(`${f.url}/api/v1/rooms/sale/plain/pass`, { cookie: first.cookie });
    assert.equal(through.status, 303);
    const location = through.headers.get('location');
    assert.match(location, /^\/checkout\?foyer_pass=[\w-]+\.[\w-]+\.[\w-]+$/);
    // The same pass as the status poll gives.
    const after = await call(`${f.url}/api/v1/rooms/sale/status`, 'GET', { cookie: first.cookie });
    assert.equal(after.json.state, 'admitted');
    assert.equal(location, `/checkout?foyer_pass=${after.json.pass}`);
    // Without a ticket, no pass: back to the queue.
    assert.equal((await get(`${f.url}/api/v1/rooms/sale/plain/pass`)).headers.get('location'), '/api/v1/rooms/sale/plain');
  } finally {
    await f.cleanup();
  }
});
