// The guard's enter step behind a real nginx that protects `location /`: whatever request
// target a visitor sends with a valid pass, nginx forwards it unnormalised as X-Original-URI
// ($request_uri), and the redirect must stay on the site.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Guard, Nginx, signJws, startUpstream } from './harness.js';

const issuer = 'https://queue.test';
const loginUrl = 'http://queue.test/r/sale';

let dir;
let guardArgs;
let pass;
let guard;
let upstream;
let nginx;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'foyer-enter-'));
  const key = generateKeyPairSync('ed25519');
  const jwks = path.join(dir, 'jwks.json');
  const jwk = { ...key.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  writeFileSync(jwks, JSON.stringify({ keys: [jwk] }));
  const t = Math.floor(Date.now() / 1000);
  pass = signJws(key.privateKey, { alg: 'EdDSA', typ: 'JWT', kid: 'k1' },
    { iss: issuer, aud: 'sale', sub: 'visitor-1', jti: 'pass-1', iat: t, nbf: t, exp: t + 120 });
  guardArgs = ['--jwks', jwks, '--room', 'sale', '--issuer', issuer];
  guard = await new Guard([...guardArgs, '--login-url', loginUrl]).start();
  upstream = await startUpstream();
  nginx = await new Nginx({ guardPort: guard.port, upstreamPort: upstream.port, protectAll: true }).start();
});

after(async () => {
  await nginx?.stop();
  await guard?.stop();
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const withPass = (target) => `${target}${target.includes('?') ? '&' : '?'}foyer_pass=${pass}`;

test('request targets naming another host enter to the front page, with the pass cookie', async () => {
  const targets = [
    '//evil.example/x',
    '/\\evil.example/x',
    '/%2F%2Fevil.example/x',
    '/%5Cevil.example/x',
    '/%2f%5cevil.example/x',
    '/%252F%252Fevil.example/x',
    '/%09/evil.example/x',
    '/.//evil.example/x',
    '/shop/a\\b',
    '/caf\u00c3\u00a9',  // raw UTF-8 bytes, sent as latin1
    `/${'a'.repeat(3000)}`,
    // The absolute form: nginx's $request_uri is its path, here "//evil.example/x".
    'http://evil.example//evil.example/x',
    // A next of another host is no way out either.
    '//evil.example/?next=%2F%2Fevil.example',
  ];
  const cookie = new RegExp(`^foyer_pass=${pass}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax$`);
  for (const target of targets) {
    const res = await nginx.rawGet(withPass(target));
    assert.equal(res.status, 302, target);
    assert.equal(res.headers.location, '/', target);
    assert.match(res.headers['set-cookie'], cookie, target);
  }
  // A same-site next wins over the site URL.
  const next = await nginx.rawGet(withPass('//evil.example/?next=%2Fshop%2Fcheckout'));
  assert.equal(next.headers.location, '/shop/checkout');

  // Where the visitor lands, the cookie lets them in.
  const home = await nginx.get('/', { cookie: `foyer_pass=${pass}` });
  assert.equal(home.status, 200);
  assert.equal((await home.json()).visitor, 'visitor-1');
});

test('same-site targets enter to themselves, without the pass', async () => {
  for (const target of ['/shop/item?color=red', '/', '/shop/%2F%2Fx', '/a/%5C']) {
    const res = await nginx.rawGet(withPass(target));
    assert.equal(res.status, 302, target);
    assert.equal(res.headers.location, target);
  }
});

test('targets nginx refuses itself never reach the guard', async () => {
  for (const target of ['http:evil.example/x', '/\t/evil.example/x', '/\u0001/evil.example', '/\u007f/evil.example']) {
    const res = await nginx.rawGet(withPass(target));
    assert.equal(res.status, 400, JSON.stringify(target));
    assert.equal(res.headers.location, undefined);
  }
});

test('without a valid pass every target goes to the waiting room, no cookie set', async () => {
  for (const target of ['//evil.example/x', '/\\evil.example/x', '/%2F%2Fevil.example/x']) {
    const res = await nginx.rawGet(`${target}?foyer_pass=garbage`);
    assert.equal(res.status, 302, target);
    assert.equal(res.headers.location, `${loginUrl}?foyer_refused=malformed`, target);
    assert.equal(res.headers['set-cookie'], undefined, target);
  }
});

test('a login URL that would split the Location header stops the guard at start', async () => {
  const bad = new Guard([...guardArgs, '--login-url', `${loginUrl}\r\nSet-Cookie: x=1`]);
  try {
    await assert.rejects(bad.start(), /--login-url: control characters/);
  } finally {
    await bad.stop();
  }
});
