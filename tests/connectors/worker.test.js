// The edge Worker (connectors/worker/foyer-pass-worker.js) in the real workerd runtime (from
// npm, tests/package.json): the shared vectors computed with workerd's WebCrypto, then a
// visitor through the Worker to an origin, with a real `foyer serve` as the waiting room.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startUpstream } from '../nginx/harness.js';
import { assertVectors, startFoyer, startWorkerd, vectors, walkFromQueue } from './harness.js';

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

test('a visitor goes from the queue through the Worker to the origin', async () => {
  await walkFromQueue(foyer, worker.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
    const seen = await res.json();
    assert.equal(seen.visitor, visitor);
    assert.equal(seen.path, '/shop/item?id=7');
  });
});
