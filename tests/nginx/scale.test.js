// Beyond one box, on loopback with a real nginx (packaging/nginx/foyer-front.conf): the
// frontier cached for a second in front of a crowd, two Foyer instances each owning its
// rooms with nginx routing by room, passes of both checked with a merged JWKS or a guard
// per instance, and one instance going down and coming back while the other is untouched.
// The short form of `bench/run.sh scale`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, repo, until } from '../lib/foyer.js';
import { Guard, freePort, launchNginx, nginxConfig } from './harness.js';

const VISITORS = Number(process.env.SCALE_VISITORS ?? 2000);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 20);
// A far-back visitor polls the frontier this often here (the page: a tenth of the wait, ≤ 30 s).
const POLL_MS = Number(process.env.SCALE_POLL_MS ?? 2000);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function frontConfig(dir, port, a, b) {
  return nginxConfig(dir, `
  proxy_cache_path ${dir}/cache keys_zone=foyer_frontier:10m max_size=64m inactive=10m;
  map $uri $foyer_room { ~^/(?:api/v1/rooms|r)/(?<name>[^/]+) $name; default ""; }
  map $foyer_room $foyer_instance { far foyer_a; shop foyer_a; train foyer_b; default foyer_a; }
  upstream foyer_a { server 127.0.0.1:${a}; keepalive 64; }
  upstream foyer_b { server 127.0.0.1:${b}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    include ${repo}/packaging/nginx/foyer-front.conf;
    location / { proxy_pass http://foyer_a; }
  }`, VISITORS + 4096);
}

// The origin's frontier answers so far, from its own /metrics.
async function frontierServed(foyer) {
  const text = await (await fetch(`${foyer.url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('foyer_http_requests_total{') && line.includes('route="/api/v1/rooms/{room}/frontier"')) {
      total += Number(line.split(' ').at(-1));
    }
  }
  return total;
}

async function passOf(front, room) {
  const ticket = (await (await fetch(`${front.url}/api/v1/rooms/${room}/join`, { method: 'POST' })).json()).ticket;
  return until(`a pass in ${room}`, async () => {
    const st = await (await fetch(`${front.url}/api/v1/rooms/${room}/status`, { headers: { authorization: `Bearer ${ticket}` } })).json();
    return st.pass;
  });
}

test('nginx caches the frontier for a crowd, routes each room to its instance, and one instance going down touches only its rooms', async (t) => {
  const rooms = (...specs) => ({
    rooms: specs.map(([id, rate]) => ({ id, name: id, rate_per_minute: rate, target_url: '/welcome' })),
  });
  // One visitor a minute in "far": everyone there stays far back while the crowd polls.
  const a = new Foyer(rooms(['far', 1], ['shop', 6000]));
  const b = new Foyer(rooms(['train', 6000]));
  t.after(() => a.cleanup());
  t.after(() => b.cleanup());
  await a.start();
  await b.start();
  const front = { dir: mkdtempSync(path.join(tmpdir(), 'foyer-front-')), port: await freePort() };
  launchNginx(front, frontConfig(front.dir, front.port, a.port, b.port));
  t.after(async () => {
    front.proc.kill('SIGQUIT');
    await front.exited;
  });
  await until('nginx', () => fetch(`${front.url}/healthz`).then((r) => r.ok, () => false));

  // Each room answers from its own instance; neither instance holds the other's rooms.
  assert.equal((await (await fetch(`${front.url}/api/v1/rooms/train`)).json()).id, 'train');
  assert.equal((await a.request('GET', '/api/v1/rooms/train')).status, 404);
  assert.equal((await b.request('GET', '/api/v1/rooms/far')).status, 404);

  // 1. The crowd far back polls the frontier through the cache.
  const before = await frontierServed(a);
  const started = Date.now();
  let polls = 0;
  let failures = 0;
  let staleMax = 0;
  const staleness = [];
  const cache = {};
  await Promise.all(Array.from({ length: VISITORS }, async (_, i) => {
    await sleep((i * POLL_MS) / VISITORS);
    while (Date.now() - started < SECONDS * 1000) {
      const res = await fetch(`${front.url}/api/v1/rooms/far/frontier`).catch(() => null);
      if (res?.ok) {
        const status = res.headers.get('x-cache-status');
        cache[status] = (cache[status] ?? 0) + 1;
        const { at } = await res.json();
        const stale = Date.now() - at;
        staleMax = Math.max(staleMax, stale);
        if (polls % 50 === 0) staleness.push(stale);
        polls++;
      } else {
        failures++;
      }
      await sleep(POLL_MS);
    }
  }));
  const elapsed = (Date.now() - started) / 1000;
  const originPerSecond = (await frontierServed(a) - before) / elapsed;
  staleness.sort((x, y) => x - y);
  const figures = {
    visitors: VISITORS, seconds: elapsed, polls, failures, polls_per_second: polls / elapsed,
    origin_per_second: originPerSecond, staleness_p50_ms: staleness[Math.floor(staleness.length / 2)],
    staleness_max_ms: staleMax, cache,
  };
  t.diagnostic(`SCALE ${JSON.stringify(figures)}`);
  assert.equal(failures, 0);
  assert.ok(polls >= VISITORS * (SECONDS * 1000 / POLL_MS) * 0.5, `${polls} polls`);
  // At most about one a second reaches the origin: nginx counts a second's validity in
  // whole seconds, so an entry lives one to two, and is refreshed in the background.
  assert.ok(originPerSecond <= 1.5, `the origin served ${originPerSecond.toFixed(2)} frontier answers a second`);
  // Those two seconds, plus a refresh in flight on a loaded machine.
  assert.ok(staleMax <= 4000, `the oldest frontier a visitor saw was ${staleMax} ms old`);

  // 3. Passes of both instances: one JWKS merging both instances' keys, or a guard per instance.
  const [shopPass, trainPass] = [await passOf(front, 'shop'), await passOf(front, 'train')];
  const keys = [...(await a.request('GET', '/.well-known/jwks.json')).json.keys,
    ...(await b.request('GET', '/.well-known/jwks.json')).json.keys];
  const merged = path.join(front.dir, 'jwks.json');
  writeFileSync(merged, JSON.stringify({ keys }));
  for (const [room, pass, other] of [['shop', shopPass, trainPass], ['train', trainPass, shopPass]]) {
    const guard = await new Guard(['--jwks', merged, '--room', room, '--issuer', 'foyer', '--login-url', `${front.url}/r/${room}`]).start();
    t.after(() => guard.stop());
    assert.equal((await guard.auth(pass)).status, 204, `${room}'s pass with the merged keys`);
    assert.equal((await guard.auth(other)).status, 401, `another room's pass at ${room}'s guard`);
  }
  const own = await new Guard(['--jwks', `${b.url}/.well-known/jwks.json`, '--room', 'train', '--issuer', 'foyer', '--login-url', `${front.url}/r/train`]).start();
  t.after(() => own.stop());
  assert.equal((await own.auth(trainPass)).status, 204, 'the train pass with its own instance\'s keys');

  // 4. One instance down: its rooms say so with Retry-After, the other's are untouched.
  const waiting = (await (await fetch(`${front.url}/api/v1/rooms/train/join`, { method: 'POST' })).json());
  await b.kill9();
  const down = await fetch(`${front.url}/api/v1/rooms/train/status`, { headers: { authorization: `Bearer ${waiting.ticket}` } });
  assert.equal(down.status, 503);
  assert.equal(down.headers.get('retry-after'), '5');
  assert.equal((await down.json()).error, 'instance_down');
  assert.equal((await fetch(`${front.url}/api/v1/rooms/shop`)).status, 200);
  assert.equal((await fetch(`${front.url}/api/v1/rooms/far/frontier`)).status, 200);
  await b.start();
  const back = await until('the train room back', async () => {
    const res = await fetch(`${front.url}/api/v1/rooms/train/status`, { headers: { authorization: `Bearer ${waiting.ticket}` } });
    return res.ok ? res.json() : null;
  });
  assert.equal(back.place, waiting.place, 'the visitor kept their place');
});
