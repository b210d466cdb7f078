// Mints the invite-token test vectors with jose, as a shop's site would sign them, and writes
// tests/data/invite-token-vectors.json for tests/unit/core/lanes/invite_token_test.cpp.
// Then run tests/lanes/make_token_vectors.py, which adds tokens signed by hand with Python's
// cryptography. Keys are fresh on each run, so commit the file the two scripts wrote.
//
//   node tests/lanes/make-token-vectors.mjs && python3 tests/lanes/make_token_vectors.py

import { createHmac, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CompactSign, SignJWT, exportJWK, generateKeyPair } from 'jose';

const out = fileURLToPath(new URL('../data/invite-token-vectors.json', import.meta.url));
const room = 'spring-sale';
const nowS = Date.UTC(2026, 11, 1) / 1000; // the tests' clock
const farExp = Date.UTC(2100, 0, 1) / 1000; // valid tokens outlive any clock the tests use
const b64url = (data) => Buffer.from(data).toString('base64url');
const encoder = new TextEncoder();

async function keyPair(alg, kid) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicKey, jwk };
}

const ed = await keyPair('EdDSA', 'ed-1');
const ec = await keyPair('ES256', 'ec-1');
const rsa = await keyPair('RS256', 'rsa-1');
const strangerEd = await keyPair('EdDSA', 'ed-1'); // same kid, not the site's key

const claims = (extra = {}) => ({ sub: 'acct-42', room, jti: `jti-${Math.random().toString(36).slice(2)}`, exp: farExp, ...extra });
const without = (name) => { const c = claims(); delete c[name]; return c; };

async function jwt(key, payload, header = {}) {
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}
// Signs exact payload bytes, for claims JSON that SignJWT would not write.
async function raw(key, payloadText, header = {}) {
  return new CompactSign(encoder.encode(payloadText)).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}
// A token whose header names what the attacker likes, signed with HMAC-SHA256 under `secret`.
function hs256(header, payload, secret) {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const segments = (token) => token.split('.');

const cases = [];
const add = (name, token, expect, expected_claims) => cases.push({ name, by: 'jose', token, expect, ...(expected_claims ? { claims: expected_claims } : {}) });

// Accepted, one per algorithm, with the optional claims.
{
  const c = claims({ lane: 'members', agent: false, iat: nowS - 60, nbf: nowS - 60 });
  add('EdDSA accepted', await jwt(ed, c), 'ok', { account: c.sub, room, lane: 'members', exp_ms: farExp * 1000, jti: c.jti, agent: false });
  const e = claims({ agent: true });
  add('ES256 accepted', await jwt(ec, e), 'ok', { account: e.sub, room, exp_ms: farExp * 1000, jti: e.jti, agent: true });
  const r = claims();
  add('RS256 accepted', await jwt(rsa, r), 'ok', { account: r.sub, room, exp_ms: farExp * 1000, jti: r.jti, agent: false });
  const l = claims({ exp: nowS - 10 });
  add('expired within the leeway', await jwt(ed, l), 'ok', { account: l.sub, room, exp_ms: (nowS - 10) * 1000, jti: l.jti, agent: false });
}

// Keys and signatures.
add('signed by another key with the same kid', await jwt(strangerEd, claims()), 'bad_signature');
add('kid names no key', await jwt(ed, claims(), { kid: 'ed-9' }), 'unknown_key');
add('no kid with several keys', await new SignJWT(claims()).setProtectedHeader({ alg: 'EdDSA' }).sign(ed.privateKey), 'unknown_key');
{
  const [h, , s] = segments(await jwt(ed, claims()));
  add('payload swapped', `${h}.${b64url(JSON.stringify(claims({ sub: 'acct-1' })))}.${s}`, 'bad_signature');
  const [, p2, s2] = segments(await jwt(ed, claims()));
  add('header changed', `${b64url(JSON.stringify({ alg: 'EdDSA', kid: 'ed-1', typ: 'JWT' }))}.${p2}.${s2}`, 'bad_signature');
  const [h3, p3, s3] = segments(await jwt(ed, claims()));
  const flipped = Buffer.from(s3, 'base64url');
  flipped[0] ^= 1;
  add('signature bit flipped', `${h3}.${p3}.${b64url(flipped)}`, 'bad_signature');
  add('signature cut short', `${h3}.${p3}.${s3.slice(0, 40)}`, 'malformed');
}

// The classic JWT attacks: the token must not choose how it is checked.
{
  const p = b64url(JSON.stringify(claims()));
  add('alg none', `${b64url(JSON.stringify({ alg: 'none', kid: 'ed-1' }))}.${p}.`, 'unsupported_alg');
  add('alg none without kid', `${b64url(JSON.stringify({ alg: 'none' }))}.${p}.`, 'unsupported_alg');
  const rsaPem = rsa.publicKey.export({ type: 'spki', format: 'pem' });
  add('HS256 with the RSA public key as secret', hs256({ alg: 'HS256', kid: 'rsa-1' }, claims(), rsaPem), 'unsupported_alg');
  add('HS256 with the Ed25519 key as secret', hs256({ alg: 'HS256', kid: 'ed-1' }, claims(), Buffer.from(ed.jwk.x, 'base64url')), 'unsupported_alg');
  add('ES256 token naming the Ed25519 key', await jwt(ec, claims(), { kid: 'ed-1' }), 'unsupported_alg');
  add('EdDSA token naming the P-256 key', await jwt(ed, claims(), { kid: 'ec-1' }), 'unsupported_alg');
  add('RS256 token naming the P-256 key', await jwt(rsa, claims(), { kid: 'ec-1' }), 'unsupported_alg');
  add('PS256 with the RSA key', await jwt({ ...rsa, alg: 'PS256' }, claims()), 'unsupported_alg');
  add('key embedded in the header', await jwt(strangerEd, claims(), { jwk: strangerEd.jwk }), 'forbidden_header');
  add('key URL in the header', await jwt(ed, claims(), { jku: 'https://attacker.example/jwks.json' }), 'forbidden_header');
}

// Dates.
add('expired beyond the leeway', await jwt(ed, claims({ exp: nowS - 60 })), 'expired');
add('not yet valid', await jwt(ed, claims({ nbf: nowS + 3600 })), 'not_yet_valid');
add('issued in the future', await jwt(ed, claims({ iat: nowS + 3600 })), 'not_yet_valid');
add('exp with a fraction', await jwt(ed, claims({ exp: farExp + 0.5 })), 'invalid_claims');
add('exp as a string', await jwt(ed, claims({ exp: String(farExp) })), 'invalid_claims');
add('exp past year 9999', await jwt(ed, claims({ exp: 253402300800 })), 'invalid_claims');

// Claims.
add('another room', await jwt(ed, claims({ room: 'autumn-sale' })), 'wrong_room');
add('room missing', await jwt(ed, without('room')), 'invalid_claims');
add('jti missing', await jwt(ed, without('jti')), 'invalid_claims');
add('sub missing', await jwt(ed, without('sub')), 'invalid_claims');
add('exp missing', await jwt(ed, without('exp')), 'invalid_claims');
add('sub over 256 bytes', await jwt(ed, claims({ sub: 'a'.repeat(257) })), 'invalid_claims');
add('jti over 128 bytes', await jwt(ed, claims({ jti: 'j'.repeat(129) })), 'invalid_claims');
add('empty jti', await jwt(ed, claims({ jti: '' })), 'invalid_claims');
add('lane not a string', await jwt(ed, claims({ lane: 7 })), 'invalid_claims');
add('agent not a boolean', await jwt(ed, claims({ agent: 'yes' })), 'invalid_claims');
add('room named twice', await raw(ed, `{"sub":"acct-42","room":"autumn-sale","room":"${room}","jti":"dup-1","exp":${farExp}}`), 'malformed');
add('claims not an object', await raw(ed, '["acct-42"]'), 'malformed');

// Form.
add('over 4 KiB', await jwt(ed, claims({ note: 'x'.repeat(3200) })), 'too_long');
{
  const token = await jwt(ed, claims());
  const [h, p, s] = segments(token);
  add('bad base64url in the payload', `${h}.${p.slice(0, 10)}*${p.slice(11)}.${s}`, 'malformed');
  add('padded base64', `${h}.${p}${'='.repeat((4 - (p.length % 4)) % 4 || 4)}.${s}`, 'malformed');
  add('two segments', `${h}.${p}`, 'malformed');
  add('four segments', `${token}.${s}`, 'malformed');
  add('header not JSON', `${b64url('{"alg":"EdDSA",')}.${p}.${s}`, 'malformed');
  add('empty token', '', 'malformed');
}

// Key sets the operator's configuration must refuse, with a word of the error each must name.
const { publicKey: weakRsa } = generateKeyPairSync('rsa', { modulusLength: 1024 });
const edPrivate = { ...(await exportJWK(ed.privateKey)), kid: 'ed-1' };
const offCurve = { ...ec.jwk, y: ec.jwk.x };
const x25519 = (await generateKeyPair('ECDH-ES', { crv: 'X25519', extractable: true })).publicKey;
const x25519Jwk = { ...(await exportJWK(x25519)), kid: 'x-1' };
const refused = [
  { name: 'RSA modulus of 1024 bits', jwks: { keys: [{ ...(await exportJWK(weakRsa)), kid: 'weak' }] }, error: '1024 bits' },
  { name: 'a private key', jwks: { keys: [edPrivate] }, error: 'private part' },
  { name: 'two keys, one without kid', jwks: { keys: [ed.jwk, { ...ec.jwk, kid: undefined }] }, error: 'no kid' },
  { name: 'a kid twice', jwks: { keys: [ed.jwk, { ...ec.jwk, kid: 'ed-1' }] }, error: 'two keys have the kid' },
  { name: 'alg that is not its kty', jwks: { keys: [{ ...ed.jwk, alg: 'ES256' }] }, error: 'does not fit' },
  { name: 'a point off the curve', jwks: { keys: [offCurve] }, error: 'not a valid ES256' },
  { name: 'only key types it does not load', jwks: { keys: [x25519Jwk, { kty: 'oct', k: 'c2VjcmV0', kid: 'h' }] }, error: 'no key of a supported type' },
  { name: 'more than 32 keys', jwks: { keys: Array.from({ length: 33 }, (_, i) => ({ ...ed.jwk, kid: `k${i}` })) }, error: 'at most 32' },
  { name: 'keys not an array', jwks: { keys: ed.jwk }, error: 'not an array' },
];
// Sets that load, with how many keys they keep (keys of other types or uses are skipped).
const accepted = [
  { name: 'one key without kid', jwks: { keys: [{ ...ed.jwk, kid: undefined }] }, size: 1 },
  { name: 'X25519 and an encryption key skipped', jwks: { keys: [x25519Jwk, { ...ec.jwk, kid: 'enc', use: 'enc' }, ed.jwk] }, size: 1 },
];

const vectors = {
  comment: 'Generated by tests/lanes/make-token-vectors.mjs then tests/lanes/make_token_vectors.py; do not edit by hand.',
  room,
  now_ms: nowS * 1000,
  leeway_ms: 30000,
  jwks: { keys: [ed.jwk, ec.jwk, rsa.jwk] },
  cases,
  jwks_refused: refused,
  jwks_accepted: accepted,
};
writeFileSync(out, `${JSON.stringify(vectors, null, 2)}\n`);
console.log(`wrote ${cases.length} tokens to ${out}`);
