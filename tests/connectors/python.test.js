// The Python connector's ASGI adapter (connectors/python/foyer_pass.py) under uvicorn, in
// front of a real `foyer serve`. The WSGI adapter, the vectors and the contract are in
// tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import { startDriver, startFoyer, vectors, walkFromQueue } from './harness.js';

// Debian's interpreter, whatever python3 comes first on the PATH: its packages are the ones installed.
const python = '/usr/bin/python3';
const driver = path.join(repo, 'tests/connectors/python/check.py');
let foyer;

before(async () => { foyer = await startFoyer(); });
after(async () => { await foyer?.cleanup(); });

test('a visitor goes from the queue to a protected ASGI page', async () => {
  const shop = await startDriver(python, [driver, 'asgi', vectors.issuer, vectors.room,
    `${foyer.url}/.well-known/jwks.json`, `${foyer.url}/r/${vectors.room}`]);
  try {
    await walkFromQueue(foyer, shop.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
      assert.equal((await res.json()).visitor, visitor);
    });
  } finally {
    await shop.stop();
  }
});
