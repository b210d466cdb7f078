import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// A pass signed by the C++ code (src/core/pass.cpp; tests/unit/core/pass_test.cpp checks that
// it is exactly what sign_pass produces) with its JWKS.
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = JSON.parse(readFileSync(path.resolve(here, '../data/pass-fixture.json'), 'utf8'));

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');

// Strict: Buffer's decoder skips characters it does not know, so the text must re-encode
// to itself.
function fromB64url(text) {
  const bytes = Buffer.from(text, 'base64url');
  if (b64url(bytes) !== text) throw new Error('bad base64url');
  return bytes;
}

// The check a site makes with an off-the-shelf implementation: Node's crypto and the JWKS
// alone, nothing from Foyer. Returns { ok: true, header, claims } or { ok: false, error }.
function verifyPass(token, jwks, { issuer, audience, now, leeway = 0 }) {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, error: 'malformed' };
  let header;
  let claims;
  let signature;
  try {
    header = JSON.parse(fromB64url(parts[0]).toString('utf8'));
    claims = JSON.parse(fromB64url(parts[1]).toString('utf8'));
    signature = fromB64url(parts[2]);
  } catch {
    return { ok: false, error: 'malformed' };
  }
  if (['jwk', 'jku', 'x5u', 'x5c', 'crit'].some((name) => name in header)) return { ok: false, error: 'forbidden_header' };
  if (header.alg !== 'EdDSA') return { ok: false, error: 'unsupported_alg' };
  const jwk = jwks.keys.find((k) => k.kid === header.kid && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (!jwk) return { ok: false, error: 'unknown_kid' };
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  if (!verify(null, Buffer.from(`${parts[0]}.${parts[1]}`), key, signature)) return { ok: false, error: 'bad_signature' };
  if (claims.iss !== issuer) return { ok: false, error: 'wrong_issuer' };
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(audience)) return { ok: false, error: 'wrong_audience' };
  if (!Number.isInteger(claims.exp) || now >= claims.exp + leeway) return { ok: false, error: 'expired' };
  if (claims.nbf !== undefined && now < claims.nbf - leeway) return { ok: false, error: 'not_yet_valid' };
  return { ok: true, header, claims };
}

// Ed25519 keys from a fixed 32-byte seed (RFC 8032 private key), so every run signs alike.
function keyFromSeed(seed) {
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicJwk: createPublicKey(privateKey).export({ format: 'jwk' }) };
}

function signJws(privateKey, header, claims) {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(sign(null, Buffer.from(input), privateKey))}`;
}

const expect = { issuer: fixture.claims.iss, audience: fixture.claims.aud, now: fixture.claims.iat + 1 };

test('the JWKS publishes the fixture key as an OKP/Ed25519 JWK with the documented kid', () => {
  assert.equal(fixture.jwks.keys.length, 1);
  const jwk = fixture.jwks.keys[0];
  assert.deepEqual(Object.keys(jwk).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  assert.equal(jwk.kty, 'OKP');
  assert.equal(jwk.crv, 'Ed25519');
  assert.equal(jwk.alg, 'EdDSA');
  assert.equal(jwk.use, 'sig');
  // x is the RFC 8032 public key of the seed, derived here by OpenSSL through Node.
  assert.equal(jwk.x, keyFromSeed(Buffer.from(fixture.seed_hex, 'hex')).publicJwk.x);
  // kid = base64url(first 12 bytes of SHA-256(public key)).
  assert.equal(jwk.kid, b64url(createHash('sha256').update(fromB64url(jwk.x)).digest().subarray(0, 12)));
});

test('a pass signed in C++ verifies with node:crypto and the JWKS alone', () => {
  const result = verifyPass(fixture.token, fixture.jwks, expect);
  assert.equal(result.error, undefined);
  assert.ok(result.ok);
  assert.deepEqual(result.header, { alg: 'EdDSA', typ: 'JWT', kid: fixture.jwks.keys[0].kid });
  assert.deepEqual(result.claims, fixture.claims);
  assert.ok(verifyPass(fixture.token, fixture.jwks, { ...expect, now: fixture.claims.exp - 1 }).ok);
});

test('the C++ pass is refused when altered, expired, or for another room', () => {
  const [header, payload, signature] = fixture.token.split('.');
  const flipped = fromB64url(signature);
  flipped[0] ^= 1;
  assert.equal(verifyPass(`${header}.${payload}.${b64url(flipped)}`, fixture.jwks, expect).error, 'bad_signature');
  const otherRoom = b64url(JSON.stringify({ ...fixture.claims, aud: 'other-room' }));
  assert.equal(verifyPass(`${header}.${otherRoom}.${signature}`, fixture.jwks, expect).error, 'bad_signature');
  assert.equal(verifyPass(fixture.token, fixture.jwks, { ...expect, now: fixture.claims.exp }).error, 'expired');
  assert.equal(verifyPass(fixture.token, fixture.jwks, { ...expect, audience: 'other-room' }).error, 'wrong_audience');
  assert.equal(verifyPass(fixture.token, fixture.jwks, { ...expect, issuer: 'https://evil.example' }).error, 'wrong_issuer');
  assert.equal(verifyPass(fixture.token, { keys: [] }, expect).error, 'unknown_kid');
});

test('the helper accepts a pass signed by node:crypto and refuses the classic attacks', () => {
  const { privateKey, publicJwk } = keyFromSeed(Buffer.alloc(32, 7));
  const jwks = { keys: [{ ...publicJwk, kid: 'node-key', alg: 'EdDSA', use: 'sig' }] };
  const header = { alg: 'EdDSA', typ: 'JWT', kid: 'node-key' };
  const claims = { ...fixture.claims, sub: 'visitor-node' };

  const good = verifyPass(signJws(privateKey, header, claims), jwks, expect);
  assert.ok(good.ok);
  assert.equal(good.claims.sub, 'visitor-node');

  const none = `${b64url(JSON.stringify({ ...header, alg: 'none' }))}.${b64url(JSON.stringify(claims))}.`;
  assert.equal(verifyPass(none, jwks, expect).error, 'unsupported_alg');
  // HS256 MACed with the public key as the secret: an algorithm-confusion attempt.
  const hsInput = `${b64url(JSON.stringify({ ...header, alg: 'HS256' }))}.${b64url(JSON.stringify(claims))}`;
  const mac = createHmac('sha256', fromB64url(publicJwk.x)).update(hsInput).digest();
  assert.equal(verifyPass(`${hsInput}.${b64url(mac)}`, jwks, expect).error, 'unsupported_alg');
  const { privateKey: otherKey, publicJwk: otherJwk } = keyFromSeed(Buffer.alloc(32, 8));
  assert.equal(verifyPass(signJws(otherKey, { ...header, jwk: otherJwk }, claims), jwks, expect).error, 'forbidden_header');
  assert.equal(verifyPass(signJws(otherKey, header, claims), jwks, expect).error, 'bad_signature');
  assert.equal(verifyPass(signJws(privateKey, { ...header, kid: 'other' }, claims), jwks, expect).error, 'unknown_kid');
  assert.equal(verifyPass(`${fixture.token}x`, fixture.jwks, expect).error, 'malformed');
});

// The README's recipe for a Node site: jose, the JWKS, and the algorithm fixed by the site.
const es256Fixture = JSON.parse(readFileSync(path.resolve(here, '../data/pass-es256-fixture.json'), 'utf8'));

async function joseVerify(token, jwks, { issuer, audience, algorithms, now }) {
  const { createLocalJWKSet, jwtVerify } = await import('jose');
  return jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience, algorithms, currentDate: new Date(now * 1000) });
}

test('jose verifies the C++ passes of both profiles, each only under its own algorithm', async () => {
  const eddsa = await joseVerify(fixture.token, fixture.jwks, { ...expect, algorithms: ['EdDSA'] });
  assert.deepEqual(eddsa.payload, fixture.claims);
  const es = es256Fixture.claims;
  const esExpect = { issuer: es.iss, audience: es.aud, now: es.iat + 1 };
  const es256 = await joseVerify(es256Fixture.token, es256Fixture.jwks, { ...esExpect, algorithms: ['ES256'] });
  assert.deepEqual(es256.payload, es);
  assert.equal(es256.protectedHeader.kid, es256Fixture.jwks.keys[1].kid);
  // node:crypto alone: JWS ECDSA signatures are r || s (IEEE P1363), not DER.
  const [h, p, s] = es256Fixture.token.split('.');
  const key = createPublicKey({ key: es256Fixture.jwks.keys[1], format: 'jwk' });
  assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, fromB64url(s)));

  await assert.rejects(joseVerify(es256Fixture.token, es256Fixture.jwks, { ...esExpect, algorithms: ['EdDSA'] }),
    { code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
  await assert.rejects(joseVerify(fixture.token, fixture.jwks, { ...expect, audience: 'other-room', algorithms: ['EdDSA'] }),
    { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  await assert.rejects(joseVerify(fixture.token, fixture.jwks, { ...expect, now: fixture.claims.exp, algorithms: ['EdDSA'] }),
    { code: 'ERR_JWT_EXPIRED' });
  const none = `${b64url(JSON.stringify({ alg: 'none', kid: fixture.jwks.keys[0].kid }))}.${fixture.token.split('.')[1]}.`;
  await assert.rejects(joseVerify(none, fixture.jwks, { ...expect, algorithms: ['EdDSA'] }));
  const hsInput = `${b64url(JSON.stringify({ alg: 'HS256', kid: fixture.jwks.keys[0].kid }))}.${fixture.token.split('.')[1]}`;
  const mac = createHmac('sha256', fromB64url(fixture.jwks.keys[0].x)).update(hsInput).digest();
  await assert.rejects(joseVerify(`${hsInput}.${b64url(mac)}`, fixture.jwks, { ...expect, algorithms: ['EdDSA'] }),
    { code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
});

test('the Node recipe checks a pass of the real server with its published JWKS', async (t) => {
  const { Foyer } = await import('../lib/foyer.js');
  const server = await new Foyer({ server: { issuer: 'https://queue.example.com' } }).start();
  t.after(() => server.cleanup());
  const joined = await server.join();
  let status;
  do {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await server.status(joined.json.ticket);
  } while (status.json.state !== 'admitted');

  // The recipe, as the README gives it.
  const { createRemoteJWKSet, jwtVerify } = await import('jose');
  const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(status.json.pass, jwks, {
    issuer: 'https://queue.example.com',
    audience: 'demo',
    algorithms: ['EdDSA'],
    clockTolerance: 5,
  });
  assert.equal(payload.sub, joined.json.visitor_id);
  await assert.rejects(jwtVerify(status.json.pass, jwks, { issuer: 'https://queue.example.com', audience: 'other', algorithms: ['EdDSA'] }));
});
