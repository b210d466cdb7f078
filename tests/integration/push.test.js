// Web Push (RFC 8030, 8291, 8292): `foyer notify test-push` sends a notice as the server
// would, to a push service on loopback (tests/support/push_service.js). The service decrypts
// it with http_ece and checks its VAPID token with jose, independently of Foyer; the sender's
// SSRF rules (https only, public addresses only unless the operator allows a host, no
// redirect followed) and its reading of the service's answer are tried here too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runFoyer } from '../lib/foyer.js';
import { startPushService } from '../support/push_service.js';

const SUBJECT = 'mailto:ops@example.com';

// A config and data dir for `foyer notify test-push`, with [notifications] from `settings`.
function deployment(settings) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-push-'));
  const config = path.join(dir, 'foyer.toml');
  const lines = Object.entries(settings).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  writeFileSync(config, `[notifications]\n${lines.join('\n')}\n`);
  return { dir, config, dataDir: path.join(dir, 'data') };
}

// Runs test-push for `subscription`, trusting only the push service's certificate (OpenSSL
// reads SSL_CERT_FILE), unless `ca` is null.
async function testPush(d, subscription, { ca, extra = [] } = {}) {
  if (ca) process.env.SSL_CERT_FILE = ca;
  try {
    return await runFoyer(['notify', 'test-push', '--config', d.config, '--data-dir', d.dataDir,
      '--endpoint', subscription.endpoint, '--p256dh', subscription.p256dh, '--auth', subscription.auth, ...extra]);
  } finally {
    delete process.env.SSL_CERT_FILE;
  }
}

async function withService(options, fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-push-service-'));
  const service = await startPushService(dir, options);
  try {
    await fn(service);
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a notice reaches the push service encrypted for the subscription, signed by the key ring\'s VAPID key', async () => {
  await withService({}, async (service) => {
    const d = deployment({ vapid_subject: SUBJECT, allow_private_push_hosts: ['127.0.0.1'] });
    const subscription = service.subscribe();
    const run = await testPush(d, subscription, { ca: service.cert, extra: ['--message', 'Your turn: café ☕', '--ttl', '300'] });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^delivered/);
    assert.equal(service.received.length, 1);
    const [message] = service.received;
    assert.equal(message.error, undefined);
    assert.equal(message.method, 'POST');
    assert.deepEqual(JSON.parse(message.payload), { title: 'Foyer', body: 'Your turn: café ☕' });
    assert.equal(message.headers.ttl, '300');
    assert.equal(message.headers.urgency, 'high');
    assert.equal(message.headers['content-type'], 'application/octet-stream');
    assert.equal(message.vapid.claims.sub, SUBJECT);
    assert.equal(message.vapid.claims.aud, service.origin);

    // The VAPID key is the key ring's, the one the page hands the browser as applicationServerKey.
    const ring = JSON.parse(readFileSync(path.join(d.dataDir, 'pass-keys.json'), 'utf8'));
    assert.equal(ring.vapid.alg, 'ES256');
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(ring.vapid.seed, 'base64url'));
    assert.equal(message.vapid.key, ecdh.getPublicKey().toString('base64url'));
    assert.ok(!ring.keys.some((k) => k.kid === ring.vapid.kid), 'the VAPID key signs no passes');

    // A second notice: the same key, a fresh encryption.
    const again = await testPush(d, subscription, { ca: service.cert });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(service.received[1].vapid.key, message.vapid.key);
    assert.notDeepEqual(service.received[1].body.subarray(0, 16), message.body.subarray(0, 16));
    assert.equal(JSON.parse(service.received[1].payload).title, 'Foyer');
    rmSync(d.dir, { recursive: true, force: true });
  });
});

test('a subscription the push service has dropped (410, 404) is gone; 5xx and 429 are tried again later', async () => {
  const statuses = [410, 404, 503, 429];
  await withService({ answer: () => statuses[0] }, async (service) => {
    const d = deployment({ vapid_subject: SUBJECT, allow_private_push_hosts: ['127.0.0.1'] });
    for (const expected of [/gone.*answered 410/, /gone.*answered 404/, /failed.*answered 503/, /failed.*answered 429/]) {
      const run = await testPush(d, service.subscribe(), { ca: service.cert });
      assert.equal(run.code, 1);
      assert.match(run.stderr, expected);
      statuses.shift();
    }
    assert.equal(service.received.length, 4);
    assert.ok(service.received.every((m) => m.error === undefined));
    rmSync(d.dir, { recursive: true, force: true });
  });
});

test('SSRF rules: https only, no private address unless the host is allowed, no redirect followed', async () => {
  await withService({ answer: () => 307 }, async (service) => {
    const allowed = deployment({ vapid_subject: SUBJECT, allow_private_push_hosts: ['127.0.0.1'] });
    const strict = deployment({ vapid_subject: SUBJECT });
    const s = service.subscribe();

    const plain = await testPush(allowed, { ...s, endpoint: s.endpoint.replace('https:', 'http:') }, { ca: service.cert });
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /refused: the endpoint is not an https:\/\/ URL/);

    const loopback = await testPush(strict, s, { ca: service.cert });
    assert.equal(loopback.code, 1);
    assert.match(loopback.stderr, /refused: https:\/\/127\.0\.0\.1:\d+: resolves to no public address/);
    // Allowed by the host as written: a name that resolves to the same address is not.
    const named = await testPush(allowed, { ...s, endpoint: s.endpoint.replace('127.0.0.1', 'localhost') }, { ca: service.cert });
    assert.equal(named.code, 1);
    assert.match(named.stderr, /refused: https:\/\/localhost:\d+: resolves to no public address/);
    assert.equal(service.received.length, 0, 'nothing was sent');

    // A redirect (to anywhere, a private address included) is not followed.
    const redirected = await testPush(allowed, s, { ca: service.cert });
    assert.equal(redirected.code, 1);
    assert.match(redirected.stderr, /refused: .*answered 307/);
    assert.equal(service.received.length, 1);

    // The push service's certificate is checked.
    const untrusted = await testPush(allowed, s, { ca: null });
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /failed: .*TLS handshake failed: .*certificate verify failed/);
    for (const d of [allowed, strict]) rmSync(d.dir, { recursive: true, force: true });
  });
});

test('bad subscriptions and settings are refused with a reason', async () => {
  await withService({}, async (service) => {
    const d = deployment({ vapid_subject: SUBJECT, allow_private_push_hosts: ['127.0.0.1'] });
    const s = service.subscribe();
    const badKey = await testPush(d, { ...s, p256dh: s.p256dh.slice(0, 40) }, { ca: service.cert });
    assert.match(badKey.stderr, /refused: .*p256dh must be an uncompressed P-256 public key/);
    const badAuth = await testPush(d, { ...s, auth: 'AAAA' }, { ca: service.cert });
    assert.match(badAuth.stderr, /refused: .*auth must be 16 bytes/);
    const long = await testPush(d, { ...s, endpoint: `${s.endpoint}?${'x'.repeat(1024)}` }, { ca: service.cert });
    assert.match(long.stderr, /refused: the endpoint is longer than 1024 bytes/);
    const big = await testPush(d, s, { ca: service.cert, extra: ['--message', 'x'.repeat(4000)] });
    assert.match(big.stderr, /refused: .*at most 3993 bytes/);
    assert.equal(service.received.length, 0);

    const noSubject = deployment({ allow_private_push_hosts: ['127.0.0.1'] });
    const unset = await testPush(noSubject, s, { ca: service.cert });
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /set \[notifications\] vapid_subject/);
    const wrong = deployment({ vapid_subject: 'ops@example.com' });
    const refused = await testPush(wrong, s, { ca: service.cert });
    assert.match(refused.stderr, /notifications\.vapid_subject: must be a mailto: or https:\/\/ URI/);
    for (const x of [d, noSubject, wrong]) rmSync(x.dir, { recursive: true, force: true });
  });
});
