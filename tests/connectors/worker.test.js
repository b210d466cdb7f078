// The edge Worker (connectors/worker/foyer-pass-worker.js) in the real workerd runtime (from
// npm, tests/package.json): the shared vectors computed with workerd's WebCrypto, then a
// visitor through the Worker to an origin, with a real `foyer serve` as the waiting room.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startUpstream } from '../nginx/harness.js';
import { assertVectors, siteToken, startFoyer, startWorkerd, vectors, walkFromQueue } from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-workerd-'));
let foyer;
let origin;
let worker;

before(async () => {
  foyer = await startFoyer();
  origin = await startUpstream();
  worker = await startWorkerd(dir, {
    FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: `${foyer.url}/.well-known/jwks.json`,
    FOYER_LOGIN_URL: `${foyer.url}/r/${vectors.room}`, ORIGIN: `http://127.0.0.1:${origin.port}`,
    FOYER_URL: foyer.url, FOYER_SITE_TOKEN: siteToken,
  });
});

after(async () => {
  await worker?.stop();
  await origin?.close();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('the Worker agrees with the shared vectors, in workerd', async () => {
  const res = await fetch(`${worker.url}/__vectors`, { method: 'POST', body: JSON.stringify(vectors) });
  assert.equal(res.status, 200, worker.output());
  assertVectors(await res.json());
});

test('a visitor goes from the queue through the Worker to the origin, and the pass is reported done', async () => {
  const pass = await walkFromQueue(foyer, worker.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
    const seen = await res.json();
    assert.equal(seen.visitor, visitor);
    assert.equal(seen.path, '/shop/item?id=7');
  });
  const { jti } = JSON.parse(Buffer.from(pass.split('.')[1], 'base64url'));
  const report = (jtis) => fetch(`${worker.url}/__done`, { method: 'POST', body: JSON.stringify(jtis) });
  const first = await report([jti]);
  assert.equal(first.status, 200, worker.output());
  assert.deepEqual(Object.keys(await first.json()).sort(), ['active', 'done']);
  assert.equal((await (await report([jti])).json()).done, 0, 'Foyer had it done already');
  // More than Foyer takes in one report never leaves the Worker.
  assert.equal((await report(Array.from({ length: 10001 }, (_, i) => `${i}`))).status, 500);
});
