// The PHP connector's PSR-15 middleware (connectors/php/FoyerPassMiddleware.php) in a PSR-15
// stack (Debian's nyholm/psr7) under PHP's built-in server, in front of a real `foyer serve`.
// The page that requires foyer-pass.php, the vectors and the contract are in
// tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';
import { startDriver, startFoyer, vectors, walkFromQueue } from './harness.js';

const here = path.join(repo, 'tests/connectors/php');
const dir = mkdtempSync(path.join(tmpdir(), 'foyer-php-'));
let foyer;

before(async () => { foyer = await startFoyer(); });

after(async () => {
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('a visitor goes from the queue to a PSR-15 stack, with the key cache in a file the operator names', async () => {
  const port = await freePort();
  const cache = path.join(dir, 'jwks.json');
  const shop = await startDriver('php', ['-S', `127.0.0.1:${port}`, path.join(here, 'shop-psr15.php')], {
    pattern: /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/,
    env: {
      FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: `${foyer.url}/.well-known/jwks.json`,
      FOYER_LOGIN_URL: `${foyer.url}/r/${vectors.room}`, FOYER_JWKS_CACHE: cache,
    },
  });
  try {
    await walkFromQueue(foyer, shop.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
      assert.equal((await res.json()).visitor, visitor);
    });
    // The cache is a file of this user's that nobody else may write.
    const st = statSync(cache);
    assert.equal(st.uid, process.getuid());
    assert.equal(st.mode & 0o022, 0);
  } finally {
    await shop.stop();
  }
});
