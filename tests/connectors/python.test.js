// The Python connector (connectors/python/foyer_pass.py): the shared vectors, then WSGI
// (wsgiref) and ASGI (uvicorn) shops in front of a real `foyer serve`. Debian's Python, with
// python3-jwt and python3-cryptography.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import {
  assertVectors, runJson, siteToken, startDriver, startFoyer, vectors, vectorsPath, walkFromQueue,
} from './harness.js';

// Debian's interpreter, whatever python3 comes first on the PATH: its packages are the ones installed.
const python = '/usr/bin/python3';
const driver = path.join(repo, 'tests/connectors/python/check.py');
let foyer;

before(async () => { foyer = await startFoyer(); });
after(async () => { await foyer?.cleanup(); });

test('the Python connector agrees with the shared vectors', () => {
  assertVectors(runJson(python, [driver, 'vectors', vectorsPath]));
});

for (const kind of ['wsgi', 'asgi']) {
  test(`a visitor goes from the queue to a protected ${kind.toUpperCase()} page, and the pass is reported done`, async () => {
    const shop = await startDriver(python, [driver, kind, vectors.issuer, vectors.room,
      `${foyer.url}/.well-known/jwks.json`, `${foyer.url}/r/${vectors.room}`]);
    try {
      const pass = await walkFromQueue(foyer, shop.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
        assert.equal((await res.json()).visitor, visitor);
      });
      const { jti } = JSON.parse(Buffer.from(pass.split('.')[1], 'base64url'));
      assert.equal(runJson(python, [driver, 'done', foyer.url, vectors.room, siteToken, jti]).done, 1);
    } finally {
      await shop.stop();
    }
  });
}
