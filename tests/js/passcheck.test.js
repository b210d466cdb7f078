import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { checkPassSignature, readPass } from '../../web/js/passcheck.js';

// A pass signed by the C++ code, with its JWKS (see tests/js/pass.test.js).
const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = JSON.parse(readFileSync(path.resolve(here, '../data/pass-fixture.json'), 'utf8'));

test('reads the claims of a pass', () => {
  const { header, claims } = readPass(fixture.token);
  assert.equal(header.alg, 'EdDSA');
  assert.deepEqual(claims, fixture.claims);
  assert.throws(() => readPass('a.b'), /malformed/);
  assert.throws(() => readPass('a.b!.c'), /malformed/);
});

test('the signature of a C++-signed pass checks against the JWKS', async () => {
  assert.equal(await checkPassSignature(fixture.token, fixture.jwks), 'valid');
});

test('altered passes, unknown keys and other algorithms are invalid', async () => {
  const [head, body, signature] = fixture.token.split('.');
  const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
  assert.equal(await checkPassSignature(`${head}.${body}.${flipped}`, fixture.jwks), 'invalid');
  const otherClaims = Buffer.from(JSON.stringify({ ...fixture.claims, aud: 'other' })).toString('base64url');
  assert.equal(await checkPassSignature(`${head}.${otherClaims}.${signature}`, fixture.jwks), 'invalid');
  assert.equal(await checkPassSignature(fixture.token, { keys: [] }), 'invalid');
  const hs256 = Buffer.from(JSON.stringify({ alg: 'HS256', kid: fixture.jwks.keys[0].kid })).toString('base64url');
  assert.equal(await checkPassSignature(`${hs256}.${body}.${signature}`, fixture.jwks), 'invalid');
  assert.equal(await checkPassSignature('garbage', fixture.jwks), 'invalid');
});

test('without WebCrypto the signature is reported unchecked, not valid', async () => {
  assert.equal(await checkPassSignature(fixture.token, fixture.jwks, null), 'not checked');
});
