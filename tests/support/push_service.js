// A stand-in RFC 8030 push service for tests: an https server on 127.0.0.1 with a fresh
// self-signed certificate, holding browser-like subscriptions (a P-256 key pair and an auth
// secret each). Every message it receives is decrypted by an implementation independent of
// Foyer's (the http_ece package, RFC 8188/8291) and its VAPID token verified with jose
// (RFC 8292): the test sees what a browser would, or why it would not.
import { execFileSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import path from 'node:path';

import { importJWK, jwtVerify } from 'jose';

const ece = createRequire(import.meta.url)('http_ece');

// The VAPID token of an Authorization field, checked as RFC 8292 §2-3 asks of a push
// service: ES256 under the key `k`, for this origin, expiring within 24 hours, with a
// contact. Resolves to { key, claims }; rejects with the reason otherwise.
export async function verifyVapid(authorization, origin) {
  const m = /^vapid t=([A-Za-z0-9_.-]+), k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!m) throw new Error(`not a vapid Authorization: ${authorization}`);
  const point = Buffer.from(m[2], 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const jwk = { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') };
  const { payload, protectedHeader } = await jwtVerify(m[1], await importJWK(jwk, 'ES256'), { audience: origin, algorithms: ['ES256'] });
  if (protectedHeader.typ !== 'JWT') throw new Error(`typ is ${protectedHeader.typ}`);
  const now = Date.now() / 1000;
  if (!(payload.exp > now && payload.exp <= now + 24 * 3600)) throw new Error(`exp ${payload.exp} is not within 24 hours`);
  if (!/^(mailto:|https:\/\/)/.test(payload.sub ?? '')) throw new Error(`sub ${payload.sub} is no contact`);
  return { key: m[2], claims: payload };
}

// Starts the service. `answer(req)` gives the status for each message (default 201, as
// RFC 8030 §5 says). Each received message is kept in `received`: its headers, `at` (when
// it arrived whole, Date.now()) and, once checked, `payload` (the decrypted text) and
// `vapid`, or `error`.
export async function startPushService(dir, { answer = () => 201 } = {}) {
  const key = path.join(dir, 'push-key.pem');
  const cert = path.join(dir, 'push-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-days', '1', '-subj', '/CN=foyer-push-test', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert],
  { stdio: 'ignore' });
  const subscriptions = new Map();
  const received = [];
  let origin = '';
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const message = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(message);
      try {
        const s = subscriptions.get(req.url);
        if (!s) throw new Error(`no subscription at ${req.url}`);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`Content-Encoding ${req.headers['content-encoding']}`);
        message.vapid = await verifyVapid(req.headers.authorization, origin);
        message.payload = ece.decrypt(message.body, { version: 'aes128gcm', privateKey: s.ecdh, authSecret: s.auth }).toString();
      } catch (e) {
        message.error = e.message;
      }
      res.writeHead(message.error ? 400 : answer(req)).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  origin = `https://127.0.0.1:${port}`;
  let next = 0;
  return {
    port,
    origin,
    cert,
    received,
    // A new subscription, as PushSubscription.toJSON() gives it.
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const at = `/push/${++next}`;
      subscriptions.set(at, { ecdh, auth });
      return { endpoint: origin + at, p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') };
    },
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}
