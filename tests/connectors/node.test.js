// The Node connector (connectors/node/foyer-pass.js) in a node:http shop in front of a real
// `foyer serve`, through key rotation and passes/done. The Express adapter, the vectors and
// the contract are in tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import path from 'node:path';
import { repo, runFoyer } from '../lib/foyer.js';
import { admit } from '../nginx/harness.js';
import { siteToken, startFoyer, vectors, walkFromQueue } from './harness.js';

const { PassChecker, protect } = await import(path.join(repo, 'connectors/node/foyer-pass.js'));

let foyer;
let checker;
let shop;
let shopUrl;

before(async () => {
  foyer = await startFoyer();
  checker = await new PassChecker({
    issuer: vectors.issuer, room: vectors.room, loginUrl: `${foyer.url}/r/${vectors.room}`,
    jwksUrl: `${foyer.url}/.well-known/jwks.json`, foyerUrl: foyer.url, siteToken,
  }).ready();
  shop = createServer(protect(checker, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.foyerPass));
  }));
  await new Promise((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${shop.address().port}`;
});

after(async () => {
  checker?.close();
  shop?.closeAllConnections();
  await new Promise((resolve) => shop?.close(resolve) ?? resolve());
  await foyer?.cleanup();
});

test('a visitor goes from the queue to a protected node:http page', async () => {
  const pass = await walkFromQueue(foyer, shopUrl, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
    assert.equal((await res.json()).visitor, visitor);
  });
  const jti = JSON.parse(Buffer.from(pass.split('.')[1], 'base64url')).jti;
  assert.equal((await checker.done([jti])).done, 1);
});

test('a pass under a key published after the connector started is accepted after one refresh', async () => {
  const r = await runFoyer(['keygen', '--data-dir', foyer.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  await foyer.stop();
  await foyer.start();
  const { pass } = await admit(foyer, vectors.room);
  const kid = JSON.parse(Buffer.from(pass.split('.')[0], 'base64url')).kid;
  assert.ok(!checker.keys.has(kid));
  checker.lastFetch = 0;  // the start's fetch was under 10 s ago
  const res = await fetch(`${shopUrl}/shop/`, { headers: { cookie: `foyer_pass=${pass}` }, redirect: 'manual' });
  assert.equal(res.status, 200);
  // A second unknown kid within 10 s does not fetch again.
  const before = checker.lastFetch;
  const made = `${Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: 'made-up' })).toString('base64url')}.e30.AAAA`;
  const refused = await fetch(`${shopUrl}/shop/`, { headers: { cookie: `foyer_pass=${made}` }, redirect: 'manual' });
  assert.match(refused.headers.get('location'), /foyer_refused=unknown_kid&next=%2Fshop%2F$/);
  assert.equal(checker.lastFetch, before);
});

test('done() gives up on a Foyer that does not answer within 5 s', async () => {
  const silent = createServer(() => {});
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const reporter = new PassChecker({ ...checker.expect, loginUrl: checker.loginUrl, jwksUrl: checker.jwksUrl,
      foyerUrl: `http://127.0.0.1:${silent.address().port}`, siteToken });
    const started = Date.now();
    await assert.rejects(reporter.done(['0123']), /aborted|timeout/i);
    assert.ok(Date.now() - started < 8000);
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});
