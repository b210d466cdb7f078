// nginx + foyer guard + a tiny upstream + the real foyer server, all on loopback: the shop
// behind Foyer as a self-hoster runs it, with the snippets from packaging/nginx/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import path from 'node:path';
import { Foyer } from '../lib/foyer.js';
import {
  Guard, Nginx, admit, b64url, claimsOf, foyerOnce, serverKey, signJws, sleep, startUpstream,
} from './harness.js';

const issuer = 'https://queue.test';
const rooms = [
  { id: 'sale', name: 'Sale', rate_per_minute: 600000, pass_ttl_seconds: 120, target_url: 'http://shop.test/shop/' },
  { id: 'other', name: 'Other', rate_per_minute: 600000, pass_ttl_seconds: 120, target_url: '/welcome' },
];
const now = () => Math.floor(Date.now() / 1000);
const bearer = (token) => ({ authorization: `Bearer ${token}` });

let foyer;
let guard;
let upstream;
let nginx;
let visitors;  // passes of the room 'sale', each used by one test only
let otherRoom;
let loginUrl;

function guardFor(url, { refresh = 1, extra = [] } = {}) {
  return new Guard(['--jwks', `${url}/.well-known/jwks.json`, '--room', 'sale', '--issuer', issuer,
    '--login-url', `${url}/r/sale`, '--refresh', String(refresh), ...extra]);
}

// Polls until f() is true (or fails with `what`).
async function eventually(f, what, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

let startedAt;

// The server's discovery document as `foyer serve` publishes it at /.well-known/foyer.json,
// from a stand-in that also passes the real server's JWKS on (the server in this tree does
// not publish the document yet). `document(url)` gives the body, `url` being the stand-in's.
// With `tls` ({ key, cert }), over https.
async function discoveryServer(document, tls) {
  const handler = async (req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(await (await fetch(`${foyer.url}/.well-known/jwks.json`)).text());
    } else if (req.url === '/.well-known/foyer.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(document(url));
    } else {
      res.writeHead(404).end();
    }
  };
  const server = tls ? createHttpsServer(tls, handler) : createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}`;
  return { url, close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }) };
}

before(async () => {
  foyer = await new Foyer({ server: { issuer }, rooms }).start();
  visitors = {};
  for (const name of ['main', 'stale', 'cached', 'enter', 'unseen', 'once', 'once2']) visitors[name] = await admit(foyer, 'sale');
  otherRoom = await admit(foyer, 'other');
  loginUrl = `${foyer.url}/r/sale`;
  guard = await guardFor(foyer.url).start();
  upstream = await startUpstream();
  nginx = await new Nginx({ guardPort: guard.port, upstreamPort: upstream.port }).start();
  startedAt = Date.now();
});

after(async () => {
  await nginx?.stop();
  await guard?.stop();
  await upstream?.close();
  await foyer?.cleanup();
});

test('without a pass the visitor is sent to the waiting room; open paths need none', async () => {
  // The waiting room learns the page asked for, to send the visitor back to it.
  // The page's own same-site `next` wins, as on the way back with a pass.
  for (const [urlPath, next] of [['/shop/', '/shop/'], ['/shop/item?x=1', '/shop/item?x=1'],
    ['/shop/item?x=1&next=/cart', '/cart'], ['/shop/item?next=//evil.example/', '/shop/item?next=//evil.example/']]) {
    const res = await nginx.get(urlPath);
    assert.equal(res.status, 302, urlPath);
    assert.equal(res.headers.get('location'), `${loginUrl}?next=${encodeURIComponent(next)}`, urlPath);
  }
  // A path a browser would read as another host, or too long, is left out.
  for (const urlPath of ['//shop/', '//shop/%2F%2Fevil.example', `/shop/${'a'.repeat(2048)}`]) {
    const res = await nginx.rawGet(urlPath);
    assert.equal(res.status, 302, urlPath);
    assert.equal(res.headers.location, loginUrl, urlPath);
  }
  const open = await nginx.get('/');
  assert.equal(open.status, 200);
  assert.equal((await open.json()).from, 'upstream');
  assert.deepEqual(await guard.auth(undefined), { status: 401, error: 'no_pass', visitor: null });
});

test('a pass from the real server opens the protected paths, and the upstream learns the visitor', async () => {
  const { pass, visitor } = visitors.main;
  assert.equal(claimsOf(pass).sub, visitor);
  for (const headers of [bearer(pass), { cookie: `a=1; foyer_pass=${pass}; b=2` }, { ...bearer(pass), 'x-foyer-visitor': 'intruder' }]) {
    const res = await nginx.get('/shop/item?x=1', headers);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { from: 'upstream', path: '/shop/item?x=1', visitor });
  }
  assert.deepEqual(await guard.auth(pass), { status: 204, error: null, visitor });
});

test("a visitor's many requests cost one signature check", async () => {
  const { pass } = visitors.cached;
  const before = await guard.health();
  for (let i = 0; i < 5; i++) assert.equal((await nginx.get('/shop/', bearer(pass))).status, 200);
  const after = await guard.health();
  assert.equal(after.checks - before.checks, 5);
  assert.equal(after.signature_checks - before.signature_checks, 1);
});

test("the waiting room's redirect: the pass moves from the URL into a cookie of the site", async () => {
  const { pass, visitor } = visitors.enter;
  const res = await nginx.get(`/shop/item?color=red&foyer_pass=${pass}&size=9`);
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), '/shop/item?color=red&size=9');
  const cookie = res.headers.get('set-cookie');
  const m = /^foyer_pass=([^;]+); Path=\/; Max-Age=(\d+); HttpOnly; SameSite=Lax$/.exec(cookie);
  assert.ok(m, cookie);
  assert.equal(m[1], pass);
  const maxAge = Number(m[2]);
  assert.ok(maxAge > 100 && maxAge <= 120, `Max-Age ${maxAge} is the pass's remaining life`);

  const next = await nginx.get('/shop/item?color=red&size=9', { cookie: `foyer_pass=${m[1]}` });
  assert.equal(next.status, 200);
  assert.deepEqual(await next.json(), { from: 'upstream', path: '/shop/item?color=red&size=9', visitor });

  // Even with a valid cookie, a pass in the URL goes through the guard and leaves the URL.
  const again = await nginx.get(`/shop/?foyer_pass=${pass}`, { cookie: `foyer_pass=${pass}` });
  assert.equal(again.status, 302);
  assert.equal(again.headers.get('location'), '/shop/');

  // `next`: a same-site path only.
  const to = async (next) => (await nginx.get(`/shop/?foyer_pass=${pass}&next=${next}`)).headers.get('location');
  assert.equal(await to(encodeURIComponent('/shop/checkout?step=2')), '/shop/checkout?step=2');
  for (const evil of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', '%2F%2Fevil.example', 'javascript:alert(1)', '/a\r\nSet-Cookie: x=1', '/caf\u00e9']) {
    const location = await to(encodeURIComponent(evil));
    assert.equal(location, `/shop/?next=${encodeURIComponent(evil)}`, evil);
  }

  // A bad pass in the URL: back to the waiting room, saying why, no cookie.
  const bad = await nginx.get('/shop/?foyer_pass=garbage');
  assert.equal(bad.status, 302);
  assert.equal(bad.headers.get('location'), `${loginUrl}?foyer_refused=malformed&next=%2Fshop%2F`);
  assert.equal(bad.headers.get('set-cookie'), null);
});

test('forged, foreign, expired and malformed passes are refused', async () => {
  const good = visitors.main.pass;
  const claims = claimsOf(good);
  const key = serverKey(foyer.dataDir);
  const header = { alg: 'EdDSA', typ: 'JWT', kid: key.kid };
  const [h, p, s] = good.split('.');
  const t = now();
  const stranger = generateKeyPairSync('ed25519');
  const hsInput = `${b64url(JSON.stringify({ ...header, alg: 'HS256' }))}.${p}`;
  const jwksText = await (await fetch(`${foyer.url}/.well-known/jwks.json`)).text();

  const cases = [
    ['a flipped signature', `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`, 'bad_signature'],
    ['claims changed under the signature', `${h}.${b64url(JSON.stringify({ ...claims, sub: 'intruder' }))}.${s}`, 'bad_signature'],
    ["another key under the server's kid", signJws(stranger.privateKey, header, claims), 'bad_signature'],
    ['a pass of another room', otherRoom.pass, 'wrong_audience'],
    ['an expired pass', signJws(key.privateKey, header, { ...claims, iat: t - 300, nbf: t - 300, exp: t - 60 }), 'expired'],
    ['a pass not valid yet', signJws(key.privateKey, header, { ...claims, nbf: t + 600, exp: t + 900 }), 'not_yet_valid'],
    ['another issuer', signJws(key.privateKey, header, { ...claims, iss: 'https://evil.example' }), 'wrong_issuer'],
    ['alg none', `${b64url(JSON.stringify({ ...header, alg: 'none' }))}.${p}.`, 'unsupported_alg'],
    ['HS256 with the public key as secret', `${hsInput}.${b64url(createHmac('sha256', Buffer.from(key.publicJwk.x, 'base64url')).update(hsInput).digest())}`, 'unsupported_alg'],
    ['HS256 with the JWKS as secret', `${hsInput}.${b64url(createHmac('sha256', jwksText).update(hsInput).digest())}`, 'unsupported_alg'],
    ['a key in the header', signJws(stranger.privateKey, { ...header, jwk: stranger.publicKey.export({ format: 'jwk' }) }, claims), 'forbidden_header'],
    ['an unknown kid', signJws(key.privateKey, { ...header, kid: 'not-a-key' }, claims), 'unknown_kid'],
    ['a truncated signature', good.slice(0, -10), 'malformed'],
    ['a pass cut in half', good.slice(0, Math.floor(good.length / 2)), 'malformed'],
    ['garbage', 'garbage', 'malformed'],
    ['three empty segments', '..', 'malformed'],
  ];
  for (const [what, token, code] of cases) {
    assert.equal((await guard.auth(token)).error, code, what);
    assert.equal((await guard.auth(token, { cookie: true })).error, code, `${what} (cookie)`);
    const res = await nginx.get('/shop/', bearer(token));
    assert.equal(res.status, 302, what);
    assert.equal(res.headers.get('location'), `${loginUrl}?foyer_refused=${code}&next=%2Fshop%2F`, what);
    // Logged with the reason, once per reason every 10 s.
    assert.match(guard.output(), new RegExp(`foyer guard: refused a pass \\(${code}\\)`), what);
  }
  assert.match(guard.output(), /refused a pass \(wrong_issuer\): its iss is not 'https:\/\/queue\.test', the issuer this guard expects\n/);
  // 13 malformed passes so far, in this test and the one before: a line every 10 s at most.
  const malformedLines = guard.output().match(/refused a pass \(malformed\)/g).length;
  assert.ok(malformedLines <= 1 + Math.ceil((Date.now() - startedAt) / 10000), guard.output());
  // The good pass still passes: refusals changed nothing.
  assert.equal((await nginx.get('/shop/', bearer(good))).status, 200);
});

test('a stale foyer_pass cookie sent before the valid one does not lock the visitor out', async () => {
  const { pass, visitor } = visitors.stale;
  const ask = (cookie) => fetch(`${guard.url}/auth`, { headers: { 'x-original-uri': '/shop/', cookie } });
  for (const cookie of [`foyer_pass=stale; foyer_pass=${pass}`, `foyer_pass=stale`, `a=1; foyer_pass=${pass.slice(0, -4)}; foyer_pass=${pass}`]) {
    const res = await ask(cookie);
    if (cookie === 'foyer_pass=stale') {
      assert.equal(res.headers.get('x-foyer-error'), 'malformed');
      continue;
    }
    assert.equal(res.status, 204, cookie);
    assert.equal(res.headers.get('x-foyer-visitor'), visitor);
  }
  const site = await nginx.get('/shop/', { cookie: `foyer_pass=old; foyer_pass=${pass}` });
  assert.equal(site.status, 200);
  assert.equal((await site.json()).visitor, visitor);
  // The candidates are bounded: each may cost a signature check.
  const many = await ask(`${'foyer_pass=x; '.repeat(4)}foyer_pass=${pass}`);
  assert.equal(many.status, 401);
  assert.equal(many.headers.get('x-foyer-error'), 'malformed');
});

test('--foyer: the issuer and the keys come from the server\'s discovery document', async (t) => {
  const jwksPath = '/.well-known/jwks.json';
  for (const jwksUri of [(url) => `${url}${jwksPath}`, () => jwksPath]) {
    const doc = await discoveryServer((url) => JSON.stringify({ issuer, jwks_uri: jwksUri(url), rooms: ['sale', 'other'] }));
    t.after(() => doc.close());
    const discovered = await new Guard(['--foyer', `${doc.url}/`, '--room', 'sale', '--login-url', loginUrl]).start();
    t.after(() => discovered.stop());
    assert.match(discovered.output(), new RegExp(`for room 'sale' of issuer '${issuer}', keys \\S+ from ${doc.url}${jwksPath}`));
    const { pass, visitor } = visitors.main;
    assert.deepEqual(await discovered.auth(pass), { status: 204, error: null, visitor });
    assert.equal((await discovered.auth(otherRoom.pass)).error, 'wrong_audience');
  }

  const doc = await discoveryServer(() => JSON.stringify({ issuer, jwks_uri: jwksPath, rooms: ['sale'] }));
  t.after(() => doc.close());
  const start = (args) => foyerOnce(['guard', '--foyer', doc.url, '--login-url', loginUrl, '--listen', '127.0.0.1:0', ...args]);
  // The README's old trap: an issuer that is not the server's refuses every visitor.
  const wrong = await start(['--room', 'sale', '--issuer', 'https://queue.example.com']);
  assert.equal(wrong.code, 1, wrong.output);
  assert.match(wrong.output, new RegExp(`--issuer 'https://queue.example.com' disagrees with the server's issuer '${issuer}' \\(from ${doc.url}/.well-known/foyer.json\\)`));
  const same = await new Guard(['--foyer', doc.url, '--issuer', issuer, '--room', 'sale', '--login-url', loginUrl]).start();
  t.after(() => same.stop());
  const unknownRoom = await start(['--room', 'spring']);
  assert.equal(unknownRoom.code, 1, unknownRoom.output);
  assert.match(unknownRoom.output, /--room 'spring' is not a room of the server .*its rooms: sale\)/);
  const both = await start(['--room', 'sale', '--jwks', '/etc/foyer/jwks.json']);
  assert.notEqual(both.code, 0, both.output);
  assert.match(both.output, /--foyer excludes --jwks/);
  const neither = await foyerOnce(['guard', '--room', 'sale', '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
  assert.equal(neither.code, 1, neither.output);
  assert.match(neither.output, /--foyer URL or --jwks FILE\|URL: where the keys are/);
  const noIssuer = await foyerOnce(['guard', '--jwks', `${doc.url}${jwksPath}`, '--room', 'sale', '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
  assert.equal(noIssuer.code, 1, noIssuer.output);
  assert.match(noIssuer.output, /--issuer: Foyer's issuer is required with --jwks/);

  // The rules of a JWKS URL: plain http to loopback or private addresses only, 64 KiB at most.
  for (const host of ['203.0.113.7', 'queue.example.com']) {
    const remote = await foyerOnce(['guard', '--foyer', `http://${host}`, '--room', 'sale', '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
    assert.equal(remote.code, 1, remote.output);
    assert.match(remote.output, /--foyer: plain http:\/\/ only to a loopback or private address/);
  }
  const big = await discoveryServer(() => JSON.stringify({ issuer, jwks_uri: jwksPath, rooms: ['sale', 'x'.repeat(70 * 1024)] }));
  t.after(() => big.close());
  const tooBig = await foyerOnce(['guard', '--foyer', big.url, '--room', 'sale', '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
  assert.equal(tooBig.code, 1, tooBig.output);
  assert.match(tooBig.output, /foyer\.json: the answer is larger than 65536 bytes/);
  const notJson = await discoveryServer(() => 'not json');
  t.after(() => notJson.close());
  const unread = await foyerOnce(['guard', '--foyer', notJson.url, '--room', 'sale', '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
  assert.equal(unread.code, 1, unread.output);
  assert.match(unread.output, /foyer\.json: the discovery document is not a JSON object/);
  const offsite = await discoveryServer(() => JSON.stringify({ issuer, jwks_uri: 'http://203.0.113.7/jwks.json', rooms: ['sale'] }));
  t.after(() => offsite.close());
  const keysAway = await foyerOnce(['guard', '--foyer', offsite.url, '--room', 'sale', '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
  assert.equal(keysAway.code, 1, keysAway.output);
  assert.match(keysAway.output, /--foyer: plain http:\/\/ only to a loopback or private address \(got '203\.0\.113\.7'\)/);
});

test('--foyer over https: the certificate must check against the trusted roots', async (t) => {
  const dir = path.dirname(foyer.configPath);
  const [key, cert] = [path.join(dir, 'tls-key.pem'), path.join(dir, 'tls-cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=queue.test', '-addext', 'subjectAltName=IP:127.0.0.1'],
  { stdio: 'pipe' });
  const doc = await discoveryServer((url) => JSON.stringify({ issuer, jwks_uri: `${url}/.well-known/jwks.json`, rooms: ['sale'] }),
    { key: readFileSync(key), cert: readFileSync(cert) });
  t.after(() => doc.close());
  const args = ['--foyer', doc.url, '--room', 'sale', '--login-url', loginUrl];

  const untrusted = await foyerOnce(['guard', ...args, '--listen', '127.0.0.1:0']);
  assert.equal(untrusted.code, 1, untrusted.output);
  assert.match(untrusted.output, /foyer\.json: TLS handshake failed: certificate verify failed/);

  // Spawned guards inherit the environment: this one trusts the test's certificate.
  process.env.SSL_CERT_FILE = cert;
  t.after(() => { delete process.env.SSL_CERT_FILE; });
  const trusted = await new Guard(args).start();
  t.after(() => trusted.stop());
  assert.match(trusted.output(), new RegExp(`keys \\S+ from ${doc.url}/.well-known/jwks.json`));
  assert.equal((await trusted.auth(visitors.main.pass)).status, 204);
});

test('--jwks over plain http is refused at start unless the address is loopback or private', async () => {
  for (const host of ['203.0.113.7', 'keys.example.com', '[2001:db8::1]']) {
    const started = await foyerOnce(['guard', '--jwks', `http://${host}/.well-known/jwks.json`, '--room', 'sale',
      '--issuer', issuer, '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
    assert.equal(started.code, 1, started.output);
    assert.match(started.output, /--jwks: plain http:\/\/ only to a loopback or private address \(got '[^']+'\)/, host);
  }
});

test('a JWKS file grown past 64 KiB is refused unread at a refresh, and the last good keys stay', async (t) => {
  const jwksPath = path.join(path.dirname(foyer.configPath), 'capped-jwks.json');
  const jwksText = await (await fetch(`${foyer.url}/.well-known/jwks.json`)).text();
  writeFileSync(jwksPath, jwksText);
  const capped = await new Guard(['--jwks', jwksPath, '--room', 'sale', '--issuer', issuer, '--login-url', loginUrl, '--refresh', '1']).start();
  t.after(() => capped.stop());
  const keys = (await capped.health()).keys;
  assert.equal((await capped.auth(visitors.main.pass)).status, 204);

  // 256 MiB that take no disk (a sparse file), put in place at once as a copy job would.
  const big = `${jwksPath}.tmp`;
  writeFileSync(big, '');
  truncateSync(big, 256 * 1024 * 1024);
  renameSync(big, jwksPath);
  await eventually(() => capped.output().includes('cannot refresh the keys, keeping'), 'the refusal in the log');
  // The file was never read whole: the guard's peak memory stays far below its size.
  const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${capped.proc.pid}/status`, 'utf8'))[1]);
  assert.ok(peakKb < 64 * 1024, `peak resident memory ${peakKb} kB`);
  assert.match(capped.output(), /cannot refresh the keys, keeping [^:]+: .*capped-jwks\.json: larger than 64 KiB, refused unread/);
  assert.deepEqual((await capped.health()).keys, keys);
  assert.equal((await capped.auth(visitors.main.pass)).status, 204);

  // A start on such a file fails, naming it.
  const refused = await foyerOnce(['guard', '--jwks', jwksPath, '--room', 'sale', '--issuer', issuer, '--login-url', loginUrl, '--listen', '127.0.0.1:0']);
  assert.equal(refused.code, 1);
  assert.match(refused.output, /larger than 64 KiB, refused unread/);
});

test('single use: a pass opens the protected step once', async () => {
  const once = await guardFor(foyer.url, { extra: ['--single-use'] }).start();
  try {
    const { pass, visitor, ticket } = visitors.once;
    assert.deepEqual(await once.auth(pass), { status: 204, error: null, visitor });
    assert.equal((await once.auth(pass)).error, 'spent');
    // A pass the server re-issues to the same visitor carries the same jti.
    const reissued = (await foyer.status(ticket, 'sale')).json.pass;
    assert.equal(claimsOf(reissued).jti, claimsOf(pass).jti);
    assert.equal((await once.auth(reissued)).error, 'spent');
    // Coming back from the waiting room with a spent pass: a final answer, not a loop.
    const enter = await fetch(`${once.url}/enter`, { headers: { 'x-original-uri': `/checkout/?foyer_pass=${pass}` }, redirect: 'manual' });
    assert.equal(enter.status, 403);

    // Moving a pass into the cookie does not spend it; the first protected request does.
    const fresh = visitors.once2.pass;
    const moved = await fetch(`${once.url}/enter`, { headers: { 'x-original-uri': `/checkout/?foyer_pass=${fresh}` }, redirect: 'manual' });
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.get('location'), '/checkout/');
    assert.equal((await once.auth(fresh, { cookie: true })).status, 204);
    assert.equal((await once.auth(fresh, { cookie: true })).error, 'spent');
    assert.equal((await once.health()).spent, 2);
  } finally {
    await once.stop();
  }
});

test('ES256: P-256 keys and passes, each kid pinned to its algorithm', async (t) => {
  const dir = path.dirname(foyer.configPath);
  const jwksPath = path.join(dir, 'es256-jwks.json');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = (k, kid) => ({ ...k.publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' });
  writeFileSync(jwksPath, JSON.stringify({ keys: [jwk(ec, 'es-1')] }));
  const esGuard = await new Guard(['--jwks', jwksPath, '--room', 'sale', '--issuer', issuer, '--login-url', loginUrl, '--refresh', '1']).start();
  const esNginx = await new Nginx({ guardPort: esGuard.port, upstreamPort: upstream.port }).start();
  t.after(async () => { await esNginx.stop(); await esGuard.stop(); });

  const claims = { ...claimsOf(visitors.main.pass), sub: 'es-visitor' };
  const header = { alg: 'ES256', typ: 'JWT', kid: 'es-1' };
  const token = signJws(ec.privateKey, header, claims, 'ES256');
  const res = await esNginx.get('/shop/', bearer(token));
  assert.equal(res.status, 200);
  assert.equal((await res.json()).visitor, 'es-visitor');

  const ed = generateKeyPairSync('ed25519');
  const x = ec.publicKey.export({ format: 'jwk' }).x;
  const hsInput = `${b64url(JSON.stringify({ ...header, alg: 'HS256' }))}.${b64url(JSON.stringify(claims))}`;
  // The same signature in DER, as OpenSSL makes it: JWS wants r || s.
  const input = token.slice(0, token.lastIndexOf('.'));
  const der = `${input}.${b64url(sign('sha256', Buffer.from(input), ec.privateKey))}`;
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  for (const [what, bad, code] of [
    ['EdDSA under the P-256 kid', signJws(ed.privateKey, { ...header, alg: 'EdDSA' }, claims), 'unsupported_alg'],
    ['ES384 under the P-256 kid', signJws(ec.privateKey, { ...header, alg: 'ES384' }, claims, 'ES256'), 'unsupported_alg'],
    ['HS256 with x as secret', `${hsInput}.${b64url(createHmac('sha256', Buffer.from(x, 'base64url')).update(hsInput).digest())}`, 'unsupported_alg'],
    ['another P-256 key', signJws(other.privateKey, header, claims, 'ES256'), 'bad_signature'],
    ['a DER signature', der, 'malformed'],
    ['a jku header', signJws(other.privateKey, { ...header, jku: 'https://evil.example/jwks' }, claims, 'ES256'), 'forbidden_header'],
    ['an x5u header', signJws(other.privateKey, { ...header, x5u: 'https://evil.example/c.pem' }, claims, 'ES256'), 'forbidden_header'],
  ]) {
    assert.equal((await esGuard.auth(bad)).error, code, what);
    assert.equal((await esNginx.get('/shop/', bearer(bad))).status, 302, what);
  }

  // A file source is re-read: a second key published beside the first is picked up.
  const ec2 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(jwksPath, JSON.stringify({ keys: [jwk(ec, 'es-1'), jwk(ec2, 'es-2')] }));
  const second = signJws(ec2.privateKey, { ...header, kid: 'es-2' }, claims, 'ES256');
  await eventually(async () => (await esGuard.auth(second)).status === 204, 'the second key');
  assert.equal((await esNginx.get('/shop/', bearer(token))).status, 200);
  assert.equal((await esNginx.get('/shop/', bearer(second))).status, 200);
});

test('with the Foyer server killed, passes it issued keep working', async () => {
  await foyer.kill9();
  // Refreshes fail now (every second); the guard keeps its keys.
  await eventually(() => guard.output().includes('cannot refresh the keys, keeping'), 'a failed refresh');
  for (const { pass, visitor } of [visitors.main, visitors.unseen]) {
    const res = await nginx.get('/shop/', bearer(pass));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).visitor, visitor);
  }
  assert.equal((await nginx.get('/shop/')).status, 302);
});

test('rotation: passes of the old and the new key pass until the old key is retired', async (t) => {
  const server = await new Foyer({ server: { issuer }, rooms: [rooms[0]] }).start();
  const rotating = await guardFor(server.url).start();
  // Refreshes only when a pass names a kid it does not know.
  const lazy = await guardFor(server.url, { refresh: 3600 }).start();
  const site = await new Nginx({ guardPort: rotating.port, upstreamPort: upstream.port }).start();
  t.after(async () => { await site.stop(); await rotating.stop(); await lazy.stop(); await server.cleanup(); });

  const old = await admit(server, 'sale');
  const oldKid = JSON.parse(Buffer.from(old.pass.split('.')[0], 'base64url')).kid;
  await server.stop();
  const added = await foyerOnce(['keygen', '--data-dir', server.dataDir]);
  assert.equal(added.code, 0, added.output);
  await server.start();
  const fresh = await admit(server, 'sale');
  const freshKid = JSON.parse(Buffer.from(fresh.pass.split('.')[0], 'base64url')).kid;
  assert.notEqual(freshKid, oldKid);
  assert.deepEqual((await server.request('GET', '/.well-known/jwks.json')).json.keys.map((k) => k.kid), [oldKid, freshKid]);

  await eventually(async () => (await rotating.health()).keys.length === 2, 'the new key at the guard');
  for (const { pass, visitor } of [old, fresh]) {
    const res = await site.get('/shop/', bearer(pass));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).visitor, visitor);
  }
  await eventually(async () => (await lazy.auth(fresh.pass)).status === 204, 'an early refresh for the unknown kid');
  assert.equal((await lazy.auth(old.pass)).status, 204);

  await server.stop();
  const retired = await foyerOnce(['keygen', '--data-dir', server.dataDir, '--retire', oldKid]);
  assert.equal(retired.code, 0, retired.output);
  const listed = await foyerOnce(['keygen', '--data-dir', server.dataDir, '--list']);
  assert.match(listed.output, new RegExp(`${oldKid}\\s+EdDSA\\s+\\S+ \\S+\\s+retired`));
  await server.start();
  await eventually(async () => (await rotating.health()).keys.length === 1, 'the retirement at the guard');
  assert.equal((await rotating.auth(old.pass)).error, 'unknown_kid');
  assert.equal((await site.get('/shop/', bearer(old.pass))).status, 302);
  assert.equal((await site.get('/shop/', bearer(fresh.pass))).status, 200);
});

// The server signs passes with keyring::pass_signer(), the newest key of either type.
test('an ES256 deployment: keygen --alg ES256, and the guard and jose accept its passes', async (t) => {
  const server = new Foyer({ server: { issuer }, rooms: [rooms[0]] });
  t.after(() => server.cleanup());
  const created = await foyerOnce(['keygen', '--alg', 'ES256', '--data-dir', server.dataDir]);
  assert.equal(created.code, 0, created.output);
  await server.start();
  const keys = (await server.request('GET', '/.well-known/jwks.json')).json.keys;
  assert.deepEqual(keys.map((k) => [k.kty, k.crv, k.alg]), [['OKP', 'Ed25519', 'EdDSA'], ['EC', 'P-256', 'ES256']]);

  const { pass, visitor } = await admit(server, 'sale');
  const header = JSON.parse(Buffer.from(pass.split('.')[0], 'base64url'));
  assert.deepEqual(header, { alg: 'ES256', typ: 'JWT', kid: keys[1].kid });
  const { createRemoteJWKSet, jwtVerify } = await import('jose');
  const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(pass, jwks, { issuer, audience: 'sale', algorithms: ['ES256'] });
  assert.equal(payload.sub, visitor);

  const esGuard = await guardFor(server.url).start();
  const site = await new Nginx({ guardPort: esGuard.port, upstreamPort: upstream.port }).start();
  t.after(async () => { await site.stop(); await esGuard.stop(); });
  const res = await site.get('/shop/', bearer(pass));
  assert.equal(res.status, 200);
  assert.equal((await res.json()).visitor, visitor);
});
