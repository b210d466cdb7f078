// Connector test harness: the shared vectors (tests/data/connector-vectors.json, from
// make-vectors.js) and the checks every connector's test makes with them, the visitor's walk
// from the queue to a protected page through a connector in front of a real `foyer serve`,
// and the runtimes' drivers.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync, sign } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { Foyer, repo, runFoyer, spawnOwned } from '../lib/foyer.js';
import { Guard, admit, freePort } from '../nginx/harness.js';

export const vectorsPath = path.join(repo, 'tests/data/connector-vectors.json');
export const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8'));

// `results` is what a connector's vector driver prints:
//   { passes: { name: { ok, error, sub } }, destinations: { target: location },
//     refusals: { name: location } } (each refusal's location for its target and error)
export function assertVectors(results) {
  for (const p of vectors.passes) {
    const got = results.passes[p.name];
    assert.ok(got, `no verdict for ${p.name}`);
    assert.deepEqual({ ok: got.ok, error: got.error ?? null }, { ok: p.ok, error: p.error }, p.name);
    if (p.ok) assert.equal(got.sub, p.sub, `${p.name}: sub`);
  }
  for (const d of vectors.destinations) assert.equal(results.destinations[d.target], d.location, d.target);
  for (const r of vectors.refusals) assert.equal(results.refusals[r.name], r.location, r.name);
}

// A real `foyer serve` with the vectors' issuer and room, whose site token allows passes/done.
export const siteToken = 'connector-site-token-0123456789';
export async function startFoyer() {
  return new Foyer({
    server: { issuer: vectors.issuer, site_token: siteToken },
    rooms: [{ id: vectors.room, name: 'Sale', rate_per_minute: 600000, pass_ttl_seconds: 600, target_url: '/shop/' }],
  }).start();
}

// A JWKS of a key the attacker holds, and a pass it signed.
export function plantedKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'planted', alg: 'ES256', use: 'sig' };
  const now = Math.floor(Date.now() / 1000);
  const input = [{ alg: 'ES256', kid: 'planted', typ: 'JWT' },
    { iss: vectors.issuer, aud: vectors.room, sub: 'mallory', jti: 'planted-1', iat: now, exp: now + 600 }]
    .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.');
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return { jwks: JSON.stringify({ keys: [jwk] }), token: `${input}.${signature}` };
}

// Foyer rotates its key mid-test: a new key (`alg`, or Ed25519) signs the passes from the
// restart on. Resolves to { before, after }, admissions signed by the old and the new key.
export async function rotateKey(foyer, alg) {
  const before = await admit(foyer, vectors.room);
  const r = await runFoyer(['keygen', ...(alg ? ['--alg', alg] : []), '--data-dir', foyer.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  await foyer.stop();
  await foyer.start();
  const after = await admit(foyer, vectors.room);
  assert.notEqual(passKid(after.pass), passKid(before.pass));
  return { before, after };
}

export const passKid = (pass) => JSON.parse(Buffer.from(pass.split('.')[0], 'base64url')).kid;

// The visitor's walk through a protected site at `siteUrl` (its /shop/ protected): turned
// away to the waiting room, admitted, back with the pass in the URL, the pass moved into a
// cookie, then the page. `page` checks the protected page's answer. Returns the pass.
export async function walkFromQueue(foyer, siteUrl, loginUrl, page) {
  const get = (url, headers = {}) => fetch(url, { headers, redirect: 'manual' });
  const away = await get(`${siteUrl}/shop/item?id=7`);
  assert.equal(away.status, 302);
  assert.equal(away.headers.get('location'), `${loginUrl}?next=${encodeURIComponent('/shop/item?id=7')}`);

  const { pass, visitor } = await admit(foyer, vectors.room);
  const back = await get(`${siteUrl}/shop/?foyer_pass=${pass}&next=${encodeURIComponent('/shop/item?id=7')}`);
  assert.equal(back.status, 302, await back.text());
  assert.equal(back.headers.get('location'), '/shop/item?id=7');
  const cookie = back.headers.get('set-cookie');
  assert.match(cookie, new RegExp(`^foyer_pass=${pass.replace(/[.]/g, '\\.')}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax`));

  const inside = await get(`${siteUrl}/shop/item?id=7`, { cookie: `foyer_pass=${pass}` });
  assert.equal(inside.status, 200, await inside.clone().text());
  await page(inside, visitor);

  const bearer = await get(`${siteUrl}/shop/`, { authorization: `Bearer ${pass}` });
  assert.equal(bearer.status, 200);

  // A `next` naming another host is dropped: the same URL without the pass instead.
  const hostile = await get(`${siteUrl}/shop/?foyer_pass=${pass}&next=%2F%2Fevil.test%2F`);
  assert.equal(hostile.headers.get('location'), '/shop/?next=%2F%2Fevil.test%2F');

  // One character in the signature's middle changed: its last characters carry bits a
  // decoder drops, so changing those may leave the very same signature.
  const at = pass.length - 20;
  const forgedPass = pass.slice(0, at) + (pass[at] === 'A' ? 'B' : 'A') + pass.slice(at + 1);
  const forged = await get(`${siteUrl}/shop/`, { cookie: `foyer_pass=${forgedPass}` });
  assert.equal(forged.status, 302);
  assert.equal(forged.headers.get('location'), `${loginUrl}?foyer_refused=bad_signature&next=%2Fshop%2F`);
  return pass;
}

// Runs a connector's driver: resolves to { url, output(), stop() } once it prints `pattern`
// (`url`: its first group, the URL it serves), or at once when `pattern` is null.
export async function startDriver(command, args, { pattern = /listening on (http:\/\/127\.0\.0\.1:\d+)/, env, cwd } = {}) {
  const proc = spawnOwned(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, cwd });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${output}`)), 30000);
    const onData = (chunk) => {
      output += chunk;
      const m = pattern?.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${command} exited (${code}):\n${output}`)); });
    if (pattern === null) {
      clearTimeout(timer);
      resolve(null);
    }
  });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  return {
    url,
    pid: proc.pid,
    output: () => output,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        process.kill(-proc.pid, 'SIGTERM');
        await exited;
      }
    },
  };
}

// Runs a command to its end and parses what it prints as JSON (a vector driver's answer).
export function runJson(command, args, options = {}) {
  return JSON.parse(execFileSync(command, args, { encoding: 'utf8', maxBuffer: 16 << 20, ...options }));
}

// For a proxy that asks `foyer guard`, whose clock is the wall clock: each refusal that does
// not depend on the time or on an older key set, and each good pass (expired by now), sent as
// the cookie to `vectorsUrl` (a page behind a guard with the vectors' `rotated` keys), must
// come back as the guard's redirect with its code; each destination, with `pass` (a live
// one) in the URL, as recorded. A pass of `tooLargeForServer` (nginx, whose headers hold at
// most 8 KiB) may be refused by the server itself, with 400, before the guard sees it.
export async function assertVectorsThroughProxy(siteUrl, vectorsUrl, loginUrl, pass, { tooLargeForServer = false } = {}) {
  const checked = vectors.passes.filter((p) => !p.ok && !['expired', 'not_yet_valid'].includes(p.error) &&
    (p.keys === 'rotated' || (p.keys === 'jwks' && p.error !== 'unknown_kid')));
  assert.ok(checked.length >= 12);
  // The good passes of the vectors have expired since they were made.
  const now = Math.floor(Date.now() / 1000);
  const expired = vectors.passes.filter((p) => p.ok && ['jwks', 'rotated'].includes(p.keys) && p.exp + vectors.leeway_seconds <= now);
  assert.ok(expired.length >= 4, 'vectors made under a minute ago: their good passes have not expired yet');
  const next = encodeURIComponent(new URL(vectorsUrl).pathname);
  for (const p of [...checked, ...expired.map((e) => ({ ...e, error: 'expired' }))]) {
    const res = await fetch(vectorsUrl, { headers: { cookie: `foyer_pass=${p.token}` }, redirect: 'manual' });
    if (tooLargeForServer && p.error === 'too_large' && res.status === 400) continue;
    assert.equal(res.headers.get('location'), `${loginUrl}?foyer_refused=${p.error}&next=${next}`, p.name);
  }
  // The waiting room names the page asked for, under the protected /shop/, without a pass.
  for (const r of vectors.refusals.filter((x) => x.target.startsWith('/shop/') && x.error === null)) {
    const res = await fetch(siteUrl + r.target, { redirect: 'manual' });
    assert.equal(res.status, 302, r.name);
    assert.equal(res.headers.get('location'), loginUrl + r.location.slice(vectors.login_url.length), r.name);
  }
  // Those under the protected /shop/ (the others are the guard's own, checked by make-vectors.js).
  for (const d of vectors.destinations.filter((x) => x.target.startsWith('/shop/'))) {
    const res = await fetch(siteUrl + d.target.replace('PASS', pass), { redirect: 'manual' });
    assert.equal(res.status, 302, d.target);
    assert.equal(res.headers.get('location'), d.location, d.target);
  }
}

// `foyer guard` with the vectors' `rotated` keys, for assertVectorsThroughProxy.
export async function startVectorGuard(dir, loginUrl) {
  const file = path.join(dir, 'vector-keys.json');
  writeFileSync(file, JSON.stringify(vectors.keys.rotated));
  return new Guard(['--jwks', file, '--room', vectors.room, '--issuer', vectors.issuer, '--login-url', loginUrl,
    '--leeway', String(vectors.leeway_seconds)]).start();
}

export const workerdBin = path.join(repo, 'tests/node_modules/.bin/workerd');

// A workerd config: the Worker on 127.0.0.1:port with these text bindings, fetching out to
// loopback (workerd's default network allows only public addresses).
function workerdConfig(dir, port, bindings) {
  for (const [from, name] of [['connectors/worker/foyer-pass-worker.js', 'foyer-pass-worker.js'],
    ['tests/connectors/worker/check-worker.js', 'check-worker.js']]) copyFileSync(path.join(repo, from), path.join(dir, name));
  const file = path.join(dir, 'config.capnp');
  writeFileSync(file, `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .shop),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const shop :Workerd.Worker = (
  modules = [
    (name = "check-worker.js", esModule = embed "check-worker.js"),
    (name = "foyer-pass-worker.js", esModule = embed "foyer-pass-worker.js"),
  ],
  compatibilityDate = "2024-09-23",
  bindings = [${Object.entries(bindings).map(([k, v]) => `(name = "${k}", text = ${JSON.stringify(v)})`).join(', ')}],
  globalOutbound = "internet",
);
`);
  return file;
}

// Starts workerd and waits until it answers.
export async function startWorkerd(dir, bindings) {
  const port = await freePort();
  const config = workerdConfig(dir, port, bindings);
  const proc = await startDriver(workerdBin, ['serve', config, '--verbose'], { pattern: null });
  const url = `http://127.0.0.1:${port}`;
  await answering(url, proc);
  return { ...proc, url };
}

// Waits until `url` answers (a redirect too).
async function answering(url, proc) {
  for (let i = 0; ; i++) {
    try {
      await fetch(`${url}/`, { redirect: 'manual' });
      return;
    } catch (e) {
      if (i === 200) throw new Error(`${url} did not answer: ${e.message}\n${proc.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const running = [];
// Stops every HAProxy startHaproxy started.
export async function stopAll() {
  for (const proc of running.splice(0)) await proc.stop();
}

// foyer-keys.sh writes the keys of `jwksUrl` into dir/name, then HAProxy runs the shipped
// connectors/haproxy/haproxy.cfg with /shop/ protected: { url, keys, pid }. With
// `masterWorker`, HAProxy runs as systemd runs it (-W), and SIGUSR2 to `pid` reloads it.
export async function startHaproxy(dir, name, jwksUrl, guardPort, upstreamPort, { masterWorker = false } = {}) {
  const here = path.join(repo, 'connectors/haproxy');
  const keys = path.join(dir, name);
  mkdirSync(keys);
  execFileSync('sh', [path.join(here, 'foyer-keys.sh'), jwksUrl, keys], { stdio: 'pipe' });
  const port = await freePort();
  const env = {
    FOYER_LISTEN: `127.0.0.1:${port}`, FOYER_PROTECT: '/shop/', FOYER_KEYS: keys, FOYER_ISSUER: vectors.issuer,
    FOYER_ROOM: vectors.room, FOYER_GUARD: `127.0.0.1:${guardPort}`, SHOP_UPSTREAM: `127.0.0.1:${upstreamPort}`,
  };
  const proc = await startDriver('haproxy', [...(masterWorker ? ['-W'] : []), '-db', '-f', path.join(here, 'haproxy.cfg')],
    { pattern: null, env });
  running.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await answering(url, proc);
  return { url, keys, pid: proc.pid };
}
