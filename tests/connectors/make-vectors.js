// Writes tests/data/connector-vectors.json: the shared vectors every connector (connectors/)
// is tested with. Everything comes from the real binary: the passes from `foyer serve`
// through key rotations (`foyer keygen`), the expected verdicts from `foyer guard` /auth,
// and the expected redirects from the guard's enter step, into the site and to the waiting room.
//
//   FOYER_BIN=$PWD/build/foyer node tests/connectors/make-vectors.js
//
// Passes live 60 s, so that a minute after this ran every good one is also an expired pass
// for the tests that check through a guard on the wall clock (tests/connectors/harness.js).
// Verdicts that depend on the clock (expired, skew, not yet valid) carry their own `now`;
// the guard checks against the wall clock, so those follow from the pass's claims and the
// verifier's contract (include/foyer/pass_verifier.hpp) instead.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Foyer, repo, runFoyer } from '../lib/foyer.js';
import { Guard, admit, b64url, claimsOf } from '../nginx/harness.js';

const issuer = 'https://queue.test';
const room = 'sale';
const leeway = 5;
const loginUrl = `${issuer}/r/${room}`;
const rooms = [
  { id: room, name: 'Sale', rate_per_minute: 600000, pass_ttl_seconds: 60, target_url: 'http://shop.test/shop/' },
  { id: 'other', name: 'Other', rate_per_minute: 600000, pass_ttl_seconds: 60, target_url: '/welcome' },
];

const jwksOf = async (foyer) => (await fetch(`${foyer.url}/.well-known/jwks.json`)).json();
const headerOf = (token) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
const part = (value) => b64url(JSON.stringify(value));

async function restart(foyer, config) {
  await foyer.stop();
  if (config) writeFileSync(foyer.configPath, config);
  await foyer.start();
}

async function keygen(foyer, args) {
  const r = await runFoyer(['keygen', '--data-dir', foyer.dataDir, ...args]);
  assert.equal(r.code, 0, r.stderr);
}

const foyer = new Foyer({ server: { issuer }, rooms });
const guards = [];
const dir = mkdtempSync(path.join(tmpdir(), 'foyer-vectors-'));
try {
  await foyer.start();
  // Key A (Ed25519), the server's first.
  const jwks = await jwksOf(foyer);
  const passA = (await admit(foyer, room)).pass;
  const otherRoom = (await admit(foyer, 'other')).pass;
  // Rotation: key B (Ed25519), then key C (ES256, the profile for HAProxy's jwt_verify).
  await keygen(foyer, []);
  await restart(foyer);
  const passB = (await admit(foyer, room)).pass;
  await keygen(foyer, ['--alg', 'ES256']);
  await restart(foyer);
  const passC = (await admit(foyer, room)).pass;
  const rotated = await jwksOf(foyer);
  // The same keys behind another issuer.
  const config = readFileSync(foyer.configPath, 'utf8');
  await restart(foyer, config.replace(`issuer = "${issuer}"`, 'issuer = "https://elsewhere.test"'));
  const foreignIssuer = (await admit(foyer, room)).pass;
  // Key A retired: its passes stop verifying.
  const kidA = headerOf(passA).kid;
  await keygen(foyer, ['--retire', kidA]);
  await restart(foyer, config);
  const retired = await jwksOf(foyer);
  assert.equal(headerOf(passC).alg, 'ES256');
  assert.equal(rotated.keys.length, 3);

  const claimsA = claimsOf(passA);
  const [hA, pA, sA] = passA.split('.');
  const kidC = headerOf(passC).kid;
  const [, pC, sC] = passC.split('.');
  const now = claimsA.iat + 60;
  const publicX = Buffer.from(jwks.keys[0].x, 'base64url');
  const hs256 = (header) => {
    const input = `${part(header)}.${pA}`;
    return `${input}.${b64url(createHmac('sha256', publicX).update(input).digest())}`;
  };
  const flipped = Buffer.from(sA, 'base64url');
  flipped[0] ^= 1;

  // name, token, key set, now (default: `now`), expected verdict.
  const cases = [
    ['good_eddsa', passA, 'jwks'],
    ['good_es256', passC, 'rotated'],
    ['old_key_after_rotation', passA, 'rotated'],
    ['unknown_kid_before_rotation', passB, 'jwks', 'unknown_kid'],
    ['new_key_after_rotation', passB, 'rotated'],
    ['retired_key', passA, 'retired', 'unknown_kid'],
    ['expired', passA, 'jwks', 'expired', claimsA.exp + leeway],
    ['expiry_within_skew', passA, 'jwks', null, claimsA.exp + leeway - 1],
    ['not_yet_valid', passA, 'jwks', 'not_yet_valid', claimsA.nbf - leeway - 1],
    ['nbf_within_skew', passA, 'jwks', null, claimsA.nbf - leeway],
    ['wrong_audience', otherRoom, 'jwks', 'wrong_audience'],
    ['wrong_issuer', foreignIssuer, 'rotated', 'wrong_issuer'],
    ['tampered_claims', `${hA}.${part({ ...claimsA, sub: 'someone-else' })}.${sA}`, 'jwks', 'bad_signature'],
    ['tampered_signature', `${hA}.${pA}.${b64url(flipped)}`, 'jwks', 'bad_signature'],
    ['alg_none', `${part({ alg: 'none', typ: 'JWT', kid: kidA })}.${pA}.`, 'jwks', 'unsupported_alg'],
    ['alg_none_no_kid', `${part({ alg: 'none', typ: 'JWT' })}.${pA}.`, 'jwks', 'unsupported_alg'],
    ['alg_hs256_public_key_as_secret', hs256({ alg: 'HS256', typ: 'JWT', kid: kidA }), 'jwks', 'unsupported_alg'],
    ['alg_es256_on_eddsa_key', `${part({ alg: 'ES256', typ: 'JWT', kid: kidA })}.${pA}.${sC}`, 'rotated', 'unsupported_alg'],
    ['alg_eddsa_on_es256_key', `${part({ alg: 'EdDSA', typ: 'JWT', kid: kidC })}.${pC}.${sA}`, 'rotated', 'unsupported_alg'],
    ['embedded_jwk', `${part({ ...headerOf(passA), jwk: jwks.keys[0] })}.${pA}.${sA}`, 'jwks', 'forbidden_header'],
    ['two_segments', `${hA}.${pA}`, 'jwks', 'malformed'],
    ['not_base64url', `${hA}.${pA}.${sA.slice(0, -2)}*!`, 'jwks', 'malformed'],
    ['too_large', `${hA}.${'A'.repeat(8192)}.${sA}`, 'jwks', 'too_large'],
  ];
  const keySets = { jwks, rotated, retired };

  // Each verdict that does not depend on the clock, as the real guard gives it.
  const guardOf = {};
  for (const [name, set] of Object.entries(keySets)) {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(set));
    guardOf[name] = await new Guard(['--jwks', file, '--room', room, '--issuer', issuer, '--login-url', loginUrl,
      '--leeway', String(leeway)]).start();
    guards.push(guardOf[name]);
  }
  const passes = [];
  for (const [name, token, keys, error = null, at] of cases) {
    if (at === undefined) {
      const verdict = await guardOf[keys].auth(token);
      assert.equal(verdict.error, error, `${name}: the guard says ${verdict.error}`);
    }
    const ok = error === null;
    const claims = ok ? claimsOf(token) : null;
    passes.push({ name, token, keys, now: at ?? now, ok, error, ...(ok ? { sub: claims.sub, jti: claims.jti, exp: claims.exp } : {}) });
  }

  // Where the guard's enter step sends a visitor arriving with a good pass and this target.
  const live = (await admit(foyer, room)).pass;
  const targets = [
    '/shop/?foyer_pass=PASS',
    '/shop/?a=1&foyer_pass=PASS&b=2',
    '/shop/?foyer_pass=PASS&next=%2Fcart%3Fitem%3D7',
    '/shop/?foyer_pass=PASS&next=/checkout/',
    '/shop/?foyer_pass=PASS&next=%2F%2Fevil.test%2F',
    '/shop/?foyer_pass=PASS&next=//evil.test/',
    '/shop/?foyer_pass=PASS&next=https://evil.test/',
    '/shop/?foyer_pass=PASS&next=https%3A%2F%2Fevil.test%2F',
    '/shop/?foyer_pass=PASS&next=%2F%5Cevil.test',
    '/shop/?foyer_pass=PASS&next=/%252F%252Fevil.test',
    '/shop/?foyer_pass=PASS&next=/%25252F%25252F%25252Fevil.test',
    '/shop/?foyer_pass=PASS&next=/.%2F%2Fevil.test',
    '/shop/?foyer_pass=PASS&next=/%2e%2e/%2F%2Fevil.test',
    '/shop/?foyer_pass=PASS&next=%2F%09%2Fevil.test',
    '/shop/?foyer_pass=PASS&next=/%E2%80%A8x',
    '/shop/?foyer_pass=PASS&next=javascript:alert(1)',
    '/shop/?foyer_pass=PASS&next=%ZZ',
    '/shop/?foyer_pass=PASS&next=',
    '//evil.test/?foyer_pass=PASS',
    '/%2F%2Fevil.test/?foyer_pass=PASS',
  ];
  const destinations = [];
  for (const target of targets) {
    const res = await fetch(`${guardOf.rotated.url}/enter`, {
      headers: { 'x-original-uri': target.replace('PASS', live) }, redirect: 'manual',
    });
    assert.equal(res.status, 302, target);
    destinations.push({ target, location: res.headers.get('location') });
  }
  // Where a visitor without a valid pass goes: the waiting room, told why and, in `next`,
  // the page asked for when it is a same-site path.
  const refusals = [];
  const foreign = passes.find((p) => p.name === 'wrong_audience').token;
  for (const [name, target, token] of [
    ['none', '/shop/'],
    ['wrong_audience', '/shop/', foreign],
    ['deep_page', '/shop/item?color=red&size=9'],
    ['deep_page_refused', '/shop/item?color=red&size=9', foreign],
    ['own_next', '/shop/?next=%2Fcart%3Fitem%3D7'],
    ['hostile_own_next', '/shop/?next=//evil.test/'],
    ['host_in_path', '//evil.test/'],
    ['escaped_host_in_path', '/%2F%2Fevil.test/'],
    ['backslash_in_path', '/\\evil.test/'],
    ['dot_segment_host', '/.//evil.test/'],
    ['too_long', `/shop/${'a'.repeat(2048)}`],
    ['bad_pass_in_url', '/shop/?a=1&foyer_pass=garbage&b=2'],
  ]) {
    const headers = { 'x-original-uri': target };
    if (token) headers.cookie = `foyer_pass=${token}`;
    const res = await fetch(`${guardOf.jwks.url}/enter`, { headers, redirect: 'manual' });
    assert.equal(res.status, 302, name);
    const error = token ? 'wrong_audience' : target.includes('foyer_pass=') ? 'malformed' : null;
    refusals.push({ name, target, error, location: res.headers.get('location') });
  }

  const out = {
    comment: 'Shared vectors for the connectors (connectors/), from the real binary. Regenerate: FOYER_BIN=$PWD/build/foyer node tests/connectors/make-vectors.js',
    issuer, room, leeway_seconds: leeway, login_url: loginUrl,
    keys: keySets,
    passes,
    destinations,
    refusals,
  };
  writeFileSync(path.join(repo, 'tests/data/connector-vectors.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(`${passes.length} passes, ${destinations.length} destinations`);
} finally {
  for (const g of guards) await g.stop();
  await foyer.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
