// The Go connector (connectors/go/foyerpass): the shared vectors, then a net/http shop in
// front of a real `foyer serve`. Built with Debian's Go, the standard library alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import {
  assertVectors, runJson, siteToken, startDriver, startFoyer, vectors, vectorsPath, walkFromQueue,
} from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-go-'));
const bin = path.join(dir, 'connectorcheck');
let foyer;
let shop;

before(async () => {
  // Offline: the connector has no dependency to fetch.
  execFileSync('go', ['build', '-o', bin, '.'], {
    cwd: path.join(repo, 'tests/connectors/go'),
    env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: process.env.GOCACHE ?? path.join(tmpdir(), 'foyer-go-cache') },
    stdio: 'pipe',
  });
  foyer = await startFoyer();
  shop = await startDriver(bin, ['serve', vectors.issuer, vectors.room, `${foyer.url}/.well-known/jwks.json`, `${foyer.url}/r/${vectors.room}`]);
});

after(async () => {
  await shop?.stop();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('the Go connector agrees with the shared vectors', () => {
  assertVectors(runJson(bin, ['vectors', vectorsPath]));
});

test('a visitor goes from the queue to a protected net/http page, and the pass is reported done', async () => {
  const pass = await walkFromQueue(foyer, shop.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
    assert.equal((await res.json()).visitor, visitor);
  });
  const { jti } = JSON.parse(Buffer.from(pass.split('.')[1], 'base64url'));
  execFileSync(bin, ['done', foyer.url, vectors.room, siteToken, jti]);
  const twice = await fetch(`${foyer.url}/api/v1/rooms/${vectors.room}/passes/done`, {
    method: 'POST', headers: { authorization: `Bearer ${siteToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ passes: [jti] }),
  });
  assert.equal((await twice.json()).done, 0, 'Foyer had it done already');
});
