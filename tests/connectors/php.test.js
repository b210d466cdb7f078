// The PHP connector's PSR-15 middleware (connectors/php/FoyerPassMiddleware.php) in a PSR-15
// stack (Debian's nyholm/psr7) under PHP's built-in server, in front of a real `foyer serve`.
// Then a cache directory the connector must not use. The page that requires foyer-pass.php,
// the vectors and the contract are in tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import { admit, freePort } from '../nginx/harness.js';
import { plantedKeys, startDriver, startFoyer, vectors, walkFromQueue } from './harness.js';

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

test('a cache directory someone else made, or others can write, is not used: the keys are fetched at each request', async () => {
  const tmp = path.join(dir, 'open-tmp');
  const jwksUrl = `${foyer.url}/.well-known/jwks.json`;
  const cacheDir = path.join(tmp, `foyer-pass-${process.getuid()}`);
  mkdirSync(cacheDir, { recursive: true });
  chmodSync(cacheDir, 0o777);
  // A file of this user's, dated now: it would be trusted in a directory of this user's alone.
  const { jwks, token } = plantedKeys();
  const planted = path.join(cacheDir, `jwks-${createHash('md5').update(jwksUrl).digest('hex')}.json`);
  writeFileSync(planted, jwks, { mode: 0o600 });
  const port = await freePort();
  const shop = await startDriver('php', ['-S', `127.0.0.1:${port}`, path.join(here, 'shop.php')], {
    pattern: /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/,
    env: { TMPDIR: tmp, FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: jwksUrl,
      FOYER_LOGIN_URL: `${foyer.url}/r/${vectors.room}`, FOYER_JWKS_CACHE: '' },
  });
  try {
    const get = (pass) => fetch(`${shop.url}/shop/`, { headers: { cookie: `foyer_pass=${pass}` }, redirect: 'manual' });
    assert.equal((await get(token)).status, 302);
    const { pass, visitor } = await admit(foyer, vectors.room);
    const res = await get(pass);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).visitor, visitor);
    assert.equal(readFileSync(planted, 'utf8'), jwks, 'nothing is cached there');
    assert.match(shop.output(), /is not this user's alone \(mode 0700\): the keys are not cached/);
  } finally {
    await shop.stop();
  }
});
