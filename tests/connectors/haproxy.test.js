// HAProxy 2.6 (Debian's haproxy) with connectors/haproxy/haproxy.cfg: passes of the ES256
// profile checked natively by jwt_verify, keys written by foyer-keys.sh, the entry and the
// refusals through a real `foyer guard`, with a real `foyer serve` as the waiting room.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runFoyer } from '../lib/foyer.js';
import { Guard, admit, startUpstream } from '../nginx/harness.js';
import {
  assertVectorsThroughProxy, startFoyer, startHaproxy, startVectorGuard, stopAll, vectors, walkFromQueue,
} from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-haproxy-'));
let foyer;
let upstream;
let loginUrl;

let site;
let guard;

before(async () => {
  foyer = await startFoyer();
  // The ES256 profile: a P-256 key, which signs the passes from the next start on.
  const r = await runFoyer(['keygen', '--alg', 'ES256', '--data-dir', foyer.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  await foyer.stop();
  await foyer.start();
  loginUrl = `${foyer.url}/r/${vectors.room}`;
  upstream = await startUpstream();
  guard = await new Guard(['--jwks', `${foyer.url}/.well-known/jwks.json`, '--room', vectors.room,
    '--issuer', vectors.issuer, '--login-url', loginUrl]).start();
  site = await startHaproxy(dir, 'live', `${foyer.url}/.well-known/jwks.json`, guard.port, upstream.port);
});

after(async () => {
  await stopAll();
  await guard?.stop();
  await upstream?.close();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('a visitor goes from the queue to a page behind HAProxy, checked by jwt_verify', async () => {
  const checksBefore = (await guard.health()).checks;
  await walkFromQueue(foyer, site.url, loginUrl, async (res, visitor) => {
    const seen = await res.json();
    assert.equal(seen.visitor, visitor);
    assert.equal(seen.path, '/shop/item?id=7');
  });
  // The admitted requests (cookie, then Bearer) never reached the guard: HAProxy checked them.
  // The guard checked the two passes in URLs and the forged cookie only.
  assert.equal((await guard.health()).checks - checksBefore, 3);
  const { pass } = await admit(foyer, vectors.room);
  const res = await fetch(`${site.url}/shop/`, { headers: { cookie: `foyer_pass=${pass}`, 'x-foyer-visitor': 'forged' } });
  assert.notEqual((await res.json()).visitor, 'forged');
});

test('HAProxy refuses every bad vector natively and sends it to the guard for its code', async () => {
  const file = path.join(dir, 'rotated.json');
  writeFileSync(file, JSON.stringify(vectors.keys.rotated));
  const vectorGuard = await startVectorGuard(dir, loginUrl);
  try {
    const withVectorKeys = await startHaproxy(dir, 'vectors', `file://${file}`, vectorGuard.port, upstream.port);
    const { pass } = await admit(foyer, vectors.room);
    // The destinations are the live site's (a live pass); the refusals, the vectors' keys.
    await assertVectorsThroughProxy(site.url, `${withVectorKeys.url}/shop/`, loginUrl, pass);
  } finally {
    await vectorGuard.stop();
  }
});

test('after a rotation, foyer-keys.sh gives HAProxy both keys, and passes of each pass natively', async () => {
  const before = await admit(foyer, vectors.room);
  const r = await runFoyer(['keygen', '--alg', 'ES256', '--data-dir', foyer.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  await foyer.stop();
  await foyer.start();
  const after = await admit(foyer, vectors.room);
  const kid = (pass) => JSON.parse(Buffer.from(pass.split('.')[0], 'base64url')).kid;
  assert.notEqual(kid(after.pass), kid(before.pass));
  // As the timer would: the keys written again, and HAProxy started on them.
  await stopAll();
  site = await startHaproxy(dir, 'rotated', `${foyer.url}/.well-known/jwks.json`, guard.port, upstream.port);
  const slots = readFileSync(path.join(site.keys, 'kids.map'), 'utf8');
  assert.equal(slots, `${kid(before.pass)} 1\n${kid(after.pass)} 2\n`);
  const checks = (await guard.health()).checks;
  for (const { pass, visitor } of [before, after]) {
    const res = await fetch(`${site.url}/shop/`, { headers: { cookie: `foyer_pass=${pass}` }, redirect: 'manual' });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).visitor, visitor);
  }
  assert.equal((await guard.health()).checks, checks);
});
