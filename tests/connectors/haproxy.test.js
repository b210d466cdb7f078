// HAProxy 2.6 (Debian's haproxy) with connectors/haproxy/haproxy.cfg: passes of the ES256
// profile checked natively by jwt_verify, keys written by foyer-keys.sh, the entry and the
// refusals through a real `foyer guard`, with a real `foyer serve` as the waiting room; a
// live key rotation. The vectors and the contract are in tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { repo, runFoyer, until } from '../lib/foyer.js';
import { Guard, admit, startUpstream } from '../nginx/harness.js';
import { passKid, rotateKey, startFoyer, startHaproxy, stopAll, vectors, walkFromQueue } from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-haproxy-'));
let foyer;
let upstream;
let loginUrl;

let site;
let guard;

before(async () => {
  foyer = await startFoyer();
  // The ES256 profile: a P-256 key, which signs the passes from the next start on.
  const r = await runFoyer(['keygen', '--alg', 'ES256', '--data-dir', foyer.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  await foyer.stop();
  await foyer.start();
  loginUrl = `${foyer.url}/r/${vectors.room}`;
  upstream = await startUpstream();
  guard = await new Guard(['--jwks', `${foyer.url}/.well-known/jwks.json`, '--room', vectors.room,
    '--issuer', vectors.issuer, '--login-url', loginUrl]).start();
  site = await startHaproxy(dir, 'live', `${foyer.url}/.well-known/jwks.json`, guard.port, upstream.port);
});

after(async () => {
  await stopAll();
  await guard?.stop();
  await upstream?.close();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('a visitor goes from the queue to a page behind HAProxy, checked by jwt_verify', async () => {
  const checksBefore = (await guard.health()).checks;
  await walkFromQueue(foyer, site.url, loginUrl, async (res, visitor) => {
    const seen = await res.json();
    assert.equal(seen.visitor, visitor);
    assert.equal(seen.path, '/shop/item?id=7');
  });
  // The admitted requests (cookie, then Bearer) never reached the guard: HAProxy checked them.
  // The guard checked the two passes in URLs and the forged cookie only.
  assert.equal((await guard.health()).checks - checksBefore, 3);
  const { pass } = await admit(foyer, vectors.room);
  const res = await fetch(`${site.url}/shop/`, { headers: { cookie: `foyer_pass=${pass}`, 'x-foyer-visitor': 'forged' } });
  assert.notEqual((await res.json()).visitor, 'forged');
});

test('a live rotation: foyer-keys.sh from the timer reloads the running HAProxy, and passes of both keys pass natively', async () => {
  // HAProxy as systemd runs it, master and workers, on the keys of the moment.
  await stopAll();
  site = await startHaproxy(dir, 'rotating', `${foyer.url}/.well-known/jwks.json`, guard.port, upstream.port, { masterWorker: true });
  const { before, after } = await rotateKey(foyer, 'ES256');
  const get = (pass) => fetch(`${site.url}/shop/`, { headers: { cookie: `foyer_pass=${pass}` }, redirect: 'manual' });
  // The timer's run: the keys written again, and the running HAProxy reloaded.
  execFileSync('sh', [path.join(repo, 'connectors/haproxy/foyer-keys.sh'), `${foyer.url}/.well-known/jwks.json`, site.keys,
    `kill -USR2 ${site.pid}`], { stdio: 'pipe' });
  assert.equal(readFileSync(path.join(site.keys, 'kids.map'), 'utf8'), `${passKid(before.pass)} 1\n${passKid(after.pass)} 2\n`);
  await until('the reloaded HAProxy takes the new key', async () => (await get(after.pass)).status === 200);
  const checks = (await guard.health()).checks;
  for (const { pass, visitor } of [before, after]) {
    const res = await get(pass);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).visitor, visitor);
  }
  // Checked by HAProxy itself: the guard saw none of them.
  assert.equal((await guard.health()).checks, checks);
  process.kill(site.pid, 0);  // the same HAProxy, reloaded, never restarted
});

test('foyer-keys.sh writes no keys into a directory others can write, and stops reading a JWKS at 64 KiB', async () => {
  const script = path.join(repo, 'connectors/haproxy/foyer-keys.sh');
  const run = (url, keys) => spawnSync('sh', [script, url, keys], { encoding: 'utf8', timeout: 20000 });
  const open = path.join(dir, 'open-keys');
  mkdirSync(open);
  chmodSync(open, 0o777);
  const refused = run(`${foyer.url}/.well-known/jwks.json`, open);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /group and others cannot write/);
  assert.deepEqual(readdirSync(open), []);

  // 200 MiB, as fast as it is read: the script stops at 64 KiB + 1 and keeps the keys it had.
  const huge = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let sent = 0;
    const more = () => {
      while (sent < 200 && !res.destroyed) {
        sent++;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    res.write('{"keys":[');
    more();
  });
  await new Promise((resolve) => huge.listen(0, '127.0.0.1', resolve));
  try {
    const before = readFileSync(path.join(site.keys, 'kids.map'), 'utf8');
    const started = Date.now();
    const r = await new Promise((resolve) => {
      const proc = spawn('sh', [script, `http://127.0.0.1:${huge.address().port}/jwks.json`, site.keys], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      proc.stderr.on('data', (c) => { stderr += c; });
      proc.on('exit', (status) => resolve({ status, stderr }));
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /larger than 64 KiB/);
    assert.ok(Date.now() - started < 5000);
    assert.equal(readFileSync(path.join(site.keys, 'kids.map'), 'utf8'), before);
  } finally {
    huge.closeAllConnections();
    huge.close();
  }
});
