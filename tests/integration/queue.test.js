// The foundation end to end: the real binary on loopback with a temp data dir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import net from 'node:net';
import { Foyer, rawRequest, withFoyer } from '../lib/foyer.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Verifies a compact JWS with Node's own crypto and the JWKS alone: no code of ours.
function verifyWithJwks(token, jwks) {
  const [h, p, s] = token.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url'));
  assert.equal(header.alg, 'EdDSA');
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  assert.ok(jwk, 'the pass names a published key');
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  assert.ok(verify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url')), 'signature verifies');
  return JSON.parse(Buffer.from(p, 'base64url'));
}

test('join, poll, get admitted with a pass that a stock JWT check accepts', async () => {
  await withFoyer({ rooms: [{ id: 'shop', name: 'Shop', rate_per_minute: 600, target_url: 'https://shop.example/enter' }] }, async (f) => {
    const joins = [];
    for (let i = 0; i < 5; i++) joins.push(await f.join('shop'));
    joins.forEach((j, i) => {
      assert.equal(j.status, 201);
      assert.equal(j.json.place, i);
      assert.match(j.headers.get('set-cookie'), /^foyer_ticket=[^;]+; Path=\/api\/v1\/rooms\/shop;.*HttpOnly/);
    });
    const last = joins[4].json;
    const first = await f.status(last.ticket, 'shop');
    assert.equal(first.status, 200);
    assert.equal(first.json.state, 'waiting');
    // 600/min: one every 100 ms; watch the position fall to admission.
    let st = first.json;
    const positions = [st.position];
    for (let i = 0; i < 60 && st.state !== 'admitted'; i++) {
      await sleep(100);
      st = (await f.status(last.ticket, 'shop')).json;
      positions.push(st.position);
    }
    assert.equal(st.state, 'admitted');
    assert.ok(positions.some((p, i) => i > 0 && p < positions[i - 1]), `position fell: ${positions}`);
    assert.equal(st.target_url, 'https://shop.example/enter');
    // Polling again gets the same pass: one signature per admitted visitor.
    assert.equal((await f.status(last.ticket, 'shop')).json.pass, st.pass);
    const jwks = (await f.request('GET', '/.well-known/jwks.json')).json;
    const claims = verifyWithJwks(st.pass, jwks);
    assert.equal(claims.aud, 'shop');
    assert.equal(claims.iss, 'foyer');
    assert.equal(claims.sub, last.visitor_id);
    assert.ok(claims.exp > claims.iat && claims.nbf <= claims.iat + 1 && claims.jti);
    // The same visitor joining again gets the same ticket back, not a new place.
    const again = await f.request('POST', '/api/v1/rooms/shop/join', { ticket: last.ticket });
    assert.equal(again.status, 200);
    assert.equal(again.json.place, 4);
    // The frontier is tiny and cacheable.
    const fr = await f.request('GET', '/api/v1/rooms/shop/frontier');
    assert.equal(fr.headers.get('cache-control'), 'public, max-age=1');
    assert.deepEqual(Object.keys(fr.json).sort(), ['at', 'rate_per_minute', 'served', 'state']);
  });
});

test('kill -9 mid-stream loses no acknowledged join; served never goes back', async () => {
  const foyer = new Foyer({ rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 6000, target_url: '/welcome' }] });
  try {
    await foyer.start();
    const acknowledged = [];
    let servedSeen = 0;
    for (let round = 0; round < 3; round++) {
      // 16 concurrent joiners until the kill lands.
      let stop = false;
      const workers = Array.from({ length: 16 }, async () => {
        while (!stop) {
          try {
            const r = await foyer.join();
            if (r.status === 201) acknowledged.push(r.json);
          } catch { return; }
        }
      });
      await sleep(500 + round * 200);
      const before = (await foyer.request('GET', '/api/v1/rooms/demo')).json.served;
      assert.ok(before >= servedSeen);
      servedSeen = before;
      await foyer.kill9();
      stop = true;
      await Promise.all(workers);
      await foyer.start();
      const after = (await foyer.request('GET', '/api/v1/rooms/demo')).json;
      assert.ok(after.served >= servedSeen, `served went back: ${after.served} < ${servedSeen}`);
      assert.ok(after.joined >= acknowledged.length);
      servedSeen = after.served;
    }
    assert.ok(acknowledged.length > 20, `only ${acknowledged.length} joins`);
    const places = new Set(acknowledged.map((j) => j.place));
    assert.equal(places.size, acknowledged.length, 'no place was issued twice');
    for (const j of acknowledged) {
      const st = await foyer.status(j.ticket);
      assert.equal(st.status, 200);
      assert.equal(st.json.place, j.place);
    }
  } finally {
    await foyer.cleanup();
  }
});

test('bad input gets a clear JSON error, never a crash', async () => {
  await withFoyer({
    proof_of_work: { base_bits: 8 },
    server: { header_timeout_ms: 500, max_body_bytes: 2048 },
    rooms: [
      { id: 'a', name: 'A', rate_per_minute: 60, target_url: '/welcome' },
      { id: 'b', name: 'B', rate_per_minute: 60, target_url: '/welcome' },
    ],
  }, async (f) => {
    const expectError = (r, status, code) => {
      assert.equal(r.status, status, r.text);
      assert.equal(r.json.error, code);
      assert.equal(typeof r.json.message, 'string');
    };
    expectError(await f.request('POST', '/api/v1/rooms/a/join', { body: '{"challenge": ' }), 400, 'bad_join_body');
    expectError(await f.request('POST', '/api/v1/rooms/a/join', { body: '[1,2,3]' }), 400, 'bad_join_body');
    expectError(await f.request('POST', '/api/v1/rooms/a/join', { body: 'x'.repeat(4096) }), 413, 'body_too_large');
    expectError(await f.request('POST', '/api/v1/rooms/a/join', { body: { challenge: 'AAAA', nonce: '00' } }), 403, 'proof_rejected');
    expectError(await f.request('POST', '/api/v1/rooms/nope/join'), 404, 'unknown_room');
    expectError(await f.request('GET', '/api/v1/rooms/a/join'), 405, 'method_not_allowed');
    expectError(await f.request('DELETE', '/api/v1/rooms/a'), 405, 'method_not_allowed');
    expectError(await f.request('GET', '/api/v1/rooms/a/nothing'), 404, 'not_found');
    expectError(await f.status(undefined, 'a'), 401, 'missing_ticket');

    // A real ticket for room a, then forged, truncated and other-room uses of it.
    const ch = (await f.request('POST', '/api/v1/rooms/a/challenge')).json;
    const { solveSync } = await import('../../web/js/pow.js');
    const joined = await f.request('POST', '/api/v1/rooms/a/join', { body: solveSync(ch.challenge) });
    assert.equal(joined.status, 201, joined.text);
    const ticket = joined.json.ticket;
    const flipped = ticket.slice(0, 20) + (ticket[20] === 'A' ? 'B' : 'A') + ticket.slice(21);
    expectError(await f.status(flipped, 'a'), 401, 'invalid_ticket');
    expectError(await f.status(ticket.slice(0, -3), 'a'), 401, 'invalid_ticket');
    expectError(await f.status(ticket, 'b'), 403, 'ticket_for_other_room');
    assert.equal((await f.status(ticket, 'a')).status, 200);
    // The cookie works as well as the header.
    const viaCookie = await f.request('GET', '/api/v1/rooms/a/status', { headers: { cookie: `x=1; foyer_ticket=${ticket}` } });
    assert.equal(viaCookie.status, 200);
    // The same solved challenge cannot be spent twice.
    const replay = await f.request('POST', '/api/v1/rooms/a/join', { body: solveSync(ch.challenge) });
    expectError(replay, 403, 'proof_rejected');

    // Huge headers: 431.
    const huge = await rawRequest(f.port, `GET /api/v1/rooms/a HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20000)}\r\n\r\n`);
    assert.match(huge, /^HTTP\/1\.1 431/);
    assert.match(huge, /"error":"headers_too_large"/);
    // Not HTTP at all: 400.
    assert.match(await rawRequest(f.port, 'HELLO\r\n\r\n'), /^HTTP\/1\.1 400/);
    // A client that sends its headers slowly is cut off after the header timeout.
    const slow = await slowClient(f.port, 2000);
    assert.ok(slow.closedAfterMs < 1900, `slow client held the connection ${slow.closedAfterMs} ms`);
    // And the server still serves.
    assert.equal((await f.request('GET', '/api/v1/rooms/a')).status, 200);
  });
});

test('pipelined requests are answered in order; HTTP/1.0 is answered in kind and closed', async () => {
  await withFoyer({}, async (f) => {
    // Three requests in one write, split mid-header from a fourth that closes.
    const first = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/rooms/nope HTTP/1.1\r\nHost: x\r\n\r\n' +
      'POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n' +
      '[1]GET /healthz HT';
    const answers = await new Promise((resolve, reject) => {
      const s = net.connect(f.port, '127.0.0.1', () => {
        s.write(first);
        setTimeout(() => s.write('TP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 50);
      });
      let data = '';
      s.on('data', (c) => { data += c; });
      s.on('end', () => resolve(data));
      s.on('error', reject);
    });
    const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    assert.deepEqual(statuses, [200, 404, 400, 200], answers);
    assert.match(answers, /"error":"unknown_room"/);
    assert.match(answers, /"error":"bad_join_body"/);
    // Every JSON answer says not to sniff it.
    assert.equal(answers.match(/^X-Content-Type-Options: nosniff\r$/gm).length, 4, answers);

    const old = await rawRequest(f.port, 'GET /healthz HTTP/1.0\r\n\r\n');
    assert.match(old, /^HTTP\/1\.0 200 OK\r\n/);
    assert.match(old, /\r\n\r\n\{"status":"ok"\}$/);
  });
});

test('a bad config or a corrupt data dir stops the start with a clear message', async () => {
  const bad = new Foyer({ rooms: [{ id: 'a', name: 'A', rate_per_minute: 0, target_url: '/x' }] });
  try {
    const r = await bad.runOnce();
    assert.equal(r.code, 1);
    assert.match(r.output, /rooms\[0\]\.rate_per_minute: must be a whole number from 1/);
  } finally {
    await bad.cleanup();
  }
  const typo = new Foyer({ server: { listne: 'x' } });
  try {
    const r = await typo.runOnce();
    assert.equal(r.code, 1);
    assert.match(r.output, /server\.listne: unknown setting/);
  } finally {
    await typo.cleanup();
  }
  const proxies = new Foyer({ server: { trusted_proxies: ['10.0.0.0/8', '10.0.0.1/33'] } });
  try {
    const r = await proxies.runOnce();
    assert.equal(r.code, 1);
    assert.match(r.output, /server\.trusted_proxies\[1\]: .*10\.0\.0\.1\/33/);
  } finally {
    await proxies.cleanup();
  }
  const f = new Foyer();
  try {
    await f.start();
    await f.join();
    await f.stop();
    const { readdirSync, writeFileSync } = await import('node:fs');
    const logDir = `${f.dataDir}/log`;
    for (const name of readdirSync(logDir)) {
      if (name.startsWith('MANIFEST') || name === 'CURRENT') writeFileSync(`${logDir}/${name}`, 'garbage garbage garbage');
    }
    const r = await f.runOnce();
    assert.equal(r.code, 1);
    assert.match(r.output, /log/);
    assert.doesNotMatch(r.output, /serving/);
  } finally {
    await f.cleanup();
  }
});

test('SIGTERM answers requests in flight, then exits cleanly', async () => {
  const f = new Foyer();
  try {
    await f.start();
    const inFlight = Array.from({ length: 20 }, () => f.join());
    await sleep(5);
    f.proc.kill('SIGTERM');
    const results = await Promise.allSettled(inFlight);
    const { code } = await f.exited;
    assert.equal(code, 0);
    assert.match(f.output, /stopped/);
    const ok = results.filter((r) => r.status === 'fulfilled' && r.value.status === 201).map((r) => r.value.json);
    await f.start();
    for (const j of ok) assert.equal((await f.status(j.ticket)).json.place, j.place);
  } finally {
    await f.cleanup();
  }
});

function slowClient(port, maxMs) {
  return new Promise((resolve) => {
    const start = Date.now();
    const s = net.connect(port, '127.0.0.1');
    let i = 0;
    const timer = setInterval(() => {
      if (Date.now() - start > maxMs) { clearInterval(timer); s.destroy(); resolve({ closedAfterMs: Infinity }); return; }
      s.write(`X-Slow-${i++}: y\r\n`.slice(0, 3));
    }, 100);
    s.write('GET / HTTP/1.1\r\n');
    s.on('close', () => { clearInterval(timer); resolve({ closedAfterMs: Date.now() - start }); });
    s.on('error', () => {});
  });
}
