// The edge Worker (connectors/worker/foyer-pass-worker.js) in the real workerd runtime (from
// npm, tests/package.json), in front of an origin that answers what it saw, with a real
// `foyer serve` as the waiting room: what the origin gets, and done()'s bound. The vectors,
// the visitor's walk, done() and the contract are in tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { admit, startUpstream } from '../nginx/harness.js';
import { siteToken, startFoyer, startWorkerd, vectors } from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-workerd-'));
let foyer;
let origin;
let worker;

before(async () => {
  foyer = await startFoyer();
  origin = await startUpstream();
  worker = await startWorkerd(dir, {
    FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: `${foyer.url}/.well-known/jwks.json`,
    FOYER_LOGIN_URL: `${foyer.url}/r/${vectors.room}`, ORIGIN: `http://127.0.0.1:${origin.port}/ignored/path`,
    FOYER_URL: foyer.url, FOYER_SITE_TOKEN: siteToken,
  });
});

after(async () => {
  await worker?.stop();
  await origin?.close();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('the origin gets the path and query asked for, network-path spellings included, with the visitor id from the pass', async () => {
  const { pass, visitor } = await admit(foyer, vectors.room);
  for (const target of ['/shop/item?id=7', '//evil.example/x?y=1', '/@evil.example/x']) {
    const res = await fetch(`${worker.url}${target}`, { headers: { cookie: `foyer_pass=${pass}`, 'x-foyer-visitor': 'forged' } });
    assert.equal(res.status, 200, target);
    assert.deepEqual(await res.json(), { from: 'upstream', path: target, visitor }, target);
  }
});

test('without ORIGIN no request goes on, not to the host its Host header names either: 500', async () => {
  const { pass } = await admit(foyer, vectors.room);
  let reached = 0;
  const other = createServer((req, res) => { reached++; res.end(); });
  await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
  const bare = await startWorkerd(mkdtempSync(path.join(dir, 'bare-')), {
    FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: `${foyer.url}/.well-known/jwks.json`,
    FOYER_LOGIN_URL: `${foyer.url}/r/${vectors.room}`,
  });
  try {
    const answer = await new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(bare.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => { text += chunk; });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET /shop/ HTTP/1.1\r\nHost: 127.0.0.1:${other.address().port}\r\nCookie: foyer_pass=${pass}\r\nConnection: close\r\n\r\n`);
    });
    assert.equal(reached, 0);
    assert.match(answer, /^HTTP\/1\.1 500 /);
    assert.match(bare.output(), /ORIGIN is not set/);
  } finally {
    await bare.stop();
    other.close();
  }
});

test('done() reports no more passes at a time than Foyer takes', async () => {
  const res = await fetch(`${worker.url}/__done`, { method: 'POST', body: JSON.stringify(Array.from({ length: 10001 }, (_, i) => `${i}`)) });
  assert.equal(res.status, 500);
  assert.match(worker.output(), /at most 10000 jti strings/);
});
