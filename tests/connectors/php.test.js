// The PHP connector (connectors/php/foyer-pass.php and its PSR-15 middleware): the shared
// vectors, then a page that requires it and a PSR-15 stack (Debian's nyholm/psr7), each
// served by PHP's built-in server in front of a real `foyer serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';
import {
  assertVectors, runJson, siteToken, startDriver, startFoyer, vectors, vectorsPath, walkFromQueue,
} from './harness.js';

const here = path.join(repo, 'tests/connectors/php');
const dir = mkdtempSync(path.join(tmpdir(), 'foyer-php-'));
let foyer;

before(async () => { foyer = await startFoyer(); });

after(async () => {
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('the PHP connector agrees with the shared vectors', () => {
  assertVectors(runJson('php', [path.join(here, 'vectors.php'), vectorsPath]));
});

for (const [script, what] of [['shop.php', 'a PHP page that requires the connector'], ['shop-psr15.php', 'a PSR-15 stack']]) {
  test(`a visitor goes from the queue to ${what}, and the pass is reported done`, async () => {
    const port = await freePort();
    const shop = await startDriver('php', ['-S', `127.0.0.1:${port}`, path.join(here, script)], {
      pattern: /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/,
      env: {
        FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: `${foyer.url}/.well-known/jwks.json`,
        FOYER_LOGIN_URL: `${foyer.url}/r/${vectors.room}`, FOYER_JWKS_CACHE: path.join(dir, `${script}.jwks.json`),
      },
    });
    try {
      const pass = await walkFromQueue(foyer, shop.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
        assert.equal((await res.json()).visitor, visitor);
      });
      const { jti } = JSON.parse(Buffer.from(pass.split('.')[1], 'base64url'));
      assert.equal(runJson('php', [path.join(here, 'done.php'), foyer.url, vectors.room, siteToken, jti]).done, 1);
    } finally {
      await shop.stop();
    }
  });
}
