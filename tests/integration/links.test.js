// Links come from one public address ([server] public_url), never from a request's Host; a
// place held in a browser is never replaced by another site's form or by a link opened by
// itself. On the real binary: a hostile `Host: evil.example` on every request that makes a
// link (the resume link and its QR code, the mailed link through a real SMTP relay on
// loopback, the pushed notice through a push service on loopback, the discovery document),
// and cross-site form posts and resume links against a browser that holds a ticket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, until } from '../lib/foyer.js';
import { Guard } from '../nginx/harness.js';
import { startNoticeRoom } from '../support/notice_room.js';

const TOKEN = 'links-test-admin-token-012345';
const PUBLIC = 'https://queue.example.com:8443';
const EVIL = 'evil.example';

function scratch(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-links-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A request with the headers as given, Host among them (fetch would not send that Host).
function raw(f, method, target, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: f.port, method, path: target, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const asEvil = (f, method, target, headers = {}, body) =>
  raw(f, method, target, { host: EVIL, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body ? JSON.stringify(body) : undefined);

test('every link starts with public_url, its port kept, whatever Host the request names', async (t) => {
  const dir = scratch(t);
  const { f, service, smtp } = await startNoticeRoom(t, dir, { server: { admin_token: TOKEN, public_url: PUBLIC } });
  assert.match(f.output, new RegExp(`links start with ${PUBLIC}`));

  const discovery = (await asEvil(f, 'GET', '/.well-known/foyer.json')).json;
  assert.equal(discovery.jwks_uri, `${PUBLIC}/.well-known/jwks.json`);
  assert.equal(discovery.ledger.uri, `${PUBLIC}/api/v1/ledger`);

  const pause = await raw(f, 'POST', '/api/v1/admin/rooms/hall/pause', { authorization: `Bearer ${TOKEN}` });
  assert.equal(pause.status, 200);
  const joined = (await asEvil(f, 'POST', '/api/v1/rooms/hall/join')).json;
  const bearer = { authorization: `Bearer ${joined.ticket}` };
  const link = await asEvil(f, 'POST', '/api/v1/rooms/hall/resume-link', bearer);
  assert.equal(link.status, 200, link.text);
  assert.equal(link.json.url, `${PUBLIC}${link.json.path}`);
  // The QR code is of that URL: the same drawing whatever Host asked for it.
  const plain = await raw(f, 'POST', '/api/v1/rooms/hall/resume-link', bearer);
  assert.equal(plain.json.url, link.json.url);
  assert.equal(plain.json.qr_svg, link.json.qr_svg);

  const s = service.subscribe();
  const push = await asEvil(f, 'POST', '/api/v1/rooms/hall/notifications', bearer,
    { push: { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } } });
  assert.equal(push.status, 201, push.text);
  const mail = await asEvil(f, 'POST', '/api/v1/rooms/hall/notifications', bearer, { email: 'visitor.one@example.org' });
  assert.equal(mail.status, 201, mail.text);
  assert.equal((await raw(f, 'POST', '/api/v1/admin/rooms/hall/resume', { authorization: `Bearer ${TOKEN}` })).status, 200);

  const pushed = await until('the turn pushed', () => service.received
    .map((m) => (m.payload ? JSON.parse(m.payload) : null)).find((p) => p?.kind === 'turn'), 20000);
  assert.equal(pushed.url, `${PUBLIC}/r/hall`);
  const turn = await until('the turn mailed', () => smtp.messages().find((m) => /your turn/i.test(m.message.subject)
    && !/in about/.test(m.message.subject)), 20000);
  const body = turn.message.body.replace(/=\r?\n/g, '');
  assert.ok(body.includes(link.json.url), body);
  for (const said of [JSON.stringify(discovery), link.text, body, JSON.stringify(pushed)]) {
    assert.ok(!said.includes(EVIL), said);
  }
});

test('without public_url the links start with the address the server listens on, and the start says so', async (t) => {
  const f = new Foyer({ server: { issuer: 'foyer' } });
  t.after(() => f.cleanup());
  await f.start();
  await until('the warning', () => f.output.includes(`[server] public_url is not set (nor an issuer that is an http(s) origin): mailed and pushed links, resume links and their QR codes start with http://127.0.0.1:${f.port}, the listen address; behind a proxy set [server] public_url`));
  const { ticket } = (await f.join()).json;
  const link = await raw(f, 'POST', '/api/v1/rooms/demo/resume-link', { host: EVIL, authorization: `Bearer ${ticket}` });
  assert.equal(link.json.url, `http://127.0.0.1:${f.port}${link.json.path}`);
  // The discovery document names paths: a client resolves them against the URL it asked,
  // which a proxy in front may make another than the listen address.
  const discovery = (await raw(f, 'GET', '/.well-known/foyer.json', { host: EVIL })).json;
  assert.equal(discovery.jwks_uri, '/.well-known/jwks.json');
  assert.equal(discovery.ledger.uri, '/api/v1/ledger');

  // A guard pointed at Foyer through a proxy (another address) fetches the keys there.
  const asked = [];
  const proxy = http.createServer((req, res) => {
    asked.push(req.url);
    const forward = http.request({ host: '127.0.0.1', port: f.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => { res.writeHead(answer.statusCode, answer.headers); answer.pipe(res); });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.2', resolve));
  t.after(() => new Promise((resolve) => { proxy.closeAllConnections(); proxy.close(resolve); }));
  const proxyUrl = `http://127.0.0.2:${proxy.address().port}`;
  const guard = await new Guard(['--foyer', proxyUrl, '--room', 'demo', '--login-url', `${proxyUrl}/r/demo`]).start();
  t.after(() => guard.stop());
  assert.match(guard.output(), new RegExp(`of issuer 'foyer', keys \\S+ from ${proxyUrl}/\\.well-known/jwks\\.json`));
  assert.deepEqual(asked.slice(0, 2), ['/.well-known/foyer.json', '/.well-known/jwks.json']);
});

test('a bad public_url stops the start, naming the setting', async (t) => {
  const f = new Foyer({ server: { public_url: 'https://queue.example.com/waiting' } });
  t.after(() => f.cleanup());
  const { code, output } = await f.runOnce();
  assert.equal(code, 1);
  assert.match(output, /config: server\.public_url: must be the http:\/\/ or https:\/\/ origin visitors reach, without a path/);
});

const setCookie = (res) => /foyer_ticket=([^;]+)/.exec(res.headers['set-cookie']?.join(';') ?? '')?.[1];

test('another site can neither post the no-JS form nor open a resume link over the place a browser holds', async (t) => {
  const f = new Foyer({
    server: { public_url: PUBLIC },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 1, target_url: '/welcome',
      lanes: { plain: { name: 'Plain', share: 0.2, entry: 'no_script' } } }],
  });
  t.after(() => f.cleanup());
  await f.start();
  const mine = (await f.join('hall')).json;
  const cookie = { cookie: `foyer_ticket=${mine.ticket}`, accept: 'text/html' };

  // The form posted from another site, or a sibling host of the same site (user content on
  // another subdomain): refused, nothing set, the place still held.
  for (const from of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site', origin: PUBLIC },
    { 'sec-fetch-site': 'same-site', origin: 'https://files.example' }, { origin: 'null' }]) {
    const res = await raw(f, 'POST', '/api/v1/rooms/hall/plain', { ...cookie, ...from });
    assert.equal(res.status, 403, JSON.stringify(from));
    assert.match(res.text, /sent from another page than the queue(?:'|&#39;)s own: nothing was changed/);
    assert.equal(setCookie(res), undefined);
    const api = await raw(f, 'POST', '/api/v1/rooms/hall/plain', from);
    assert.equal(api.json.error, 'cross_site');
  }
  assert.equal((await f.status(mine.ticket, 'hall')).json.place, mine.place);
  // From the queue's own page: joined, or the place it holds.
  for (const from of [{ origin: PUBLIC }, { 'sec-fetch-site': 'same-origin' }, {}]) {
    const res = await raw(f, 'POST', '/api/v1/rooms/hall/plain', { ...cookie, ...from });
    assert.equal(res.status, 303, JSON.stringify(from));
  }

  // Someone else's resume link, opened in this browser.
  const theirs = (await f.join('hall')).json;
  const link = (await f.request('POST', '/api/v1/rooms/hall/resume-link', { ticket: theirs.ticket })).json;
  const opened = await raw(f, 'GET', link.path, cookie);
  assert.equal(opened.status, 303);
  const apiPath = opened.headers.location;
  assert.match(apiPath, /^\/api\/v1\/rooms\/hall\/resume\/[A-Za-z0-9_-]+$/);
  assert.equal(setCookie(opened), undefined);
  // The browser sends its cookie there: it is asked, and its place is kept.
  const asked = await raw(f, 'GET', apiPath, cookie);
  assert.equal(asked.status, 200);
  assert.match(asked.headers['content-type'], /^text\/html/);
  assert.match(asked.text, /This browser already holds a place in this queue/);
  assert.ok(asked.text.includes(`<form method="post" action="${apiPath}">`), asked.text);
  assert.equal(setCookie(asked), undefined);
  // The answer from another site, or from a sibling host of the same site, is refused.
  for (const from of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site' }]) {
    const forged = await raw(f, 'POST', apiPath, { ...cookie, ...from });
    assert.equal(forged.status, 403, JSON.stringify(from));
    assert.equal(forged.json.error, 'cross_site');
    assert.equal(setCookie(forged), undefined);
  }
  // The visitor's own answer takes the link's place.
  const taken = await raw(f, 'POST', apiPath, { ...cookie, origin: PUBLIC });
  assert.equal(taken.status, 303);
  assert.equal(taken.headers.location, '/r/hall?resumed=1');
  assert.equal(decodeURIComponent(setCookie(taken)), theirs.ticket);

  // A browser holding no place, or this very place, takes the link at once.
  for (const held of [{}, { cookie: `foyer_ticket=${theirs.ticket}` }]) {
    const res = await raw(f, 'GET', apiPath, held);
    assert.equal(res.status, 303);
    assert.equal(decodeURIComponent(setCookie(res)), theirs.ticket);
  }
});
