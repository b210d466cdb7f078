// `foyer serve` with no config file is the demo, and walks the whole path on this machine:
// join (with the real proof of work), admission, a hold on the demo shop, the confirm with
// the site token printed at start, and the console with the admin token printed at start.
// Fresh tokens each start; none of it with a config file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, call, foyerBin, spawnOwned, until } from '../lib/foyer.js';
import { solveSync } from '../../web/js/pow.js';

// Starts the embedded demo; resolves to its URL and the tokens it printed.
async function startDemo(dataDir) {
  const proc = spawnOwned(foyerBin, ['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (c) => { output += c; });
  proc.stderr.on('data', (c) => { output += c; });
  const printed = await until('the demo guide', () =>
    /Console: +(http:\/\/127\.0\.0\.1:\d+)\/admin#token=([0-9a-f]+)\n/.exec(output) &&
    /\n  export ADMIN=([0-9a-f]+) SITE=([0-9a-f]+)\n/.exec(output) &&
    {
      url: /Console: +(http:\/\/127\.0\.0\.1:\d+)/.exec(output)[1],
      admin: /admin#token=([0-9a-f]+)/.exec(output)[1],
      site: / SITE=([0-9a-f]+)/.exec(output)[1],
    }, 15000);
  return { proc, output: () => output, ...printed };
}

test('the demo with no config file: join, admit, hold, confirm and the console, with the tokens it printed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-demo-'));
  let demo;
  try {
    demo = await startDemo(path.join(dir, 'data'));
    const { url } = demo;
    assert.match(demo.output(), new RegExp(`Waiting room: +${url}/r/demo`));

    const challenge = await call(`${url}/api/v1/rooms/demo/challenge`, 'POST');
    assert.equal(challenge.status, 200, challenge.text);
    const joined = await call(`${url}/api/v1/rooms/demo/join`, 'POST', { body: solveSync(challenge.json.challenge) });
    assert.equal(joined.status, 201, joined.text);
    const admitted = await until('admission', async () => {
      const st = (await call(`${url}/api/v1/rooms/demo/status`, 'GET', { bearer: joined.json.ticket })).json;
      return st.state === 'admitted' && st.pass ? st : null;
    });
    assert.equal(admitted.target_url, '/welcome');

    const hold = await call(`${url}/api/v1/rooms/demo/holds`, 'POST', { bearer: admitted.pass, key: 'h1', body: { seats: 2 } });
    assert.equal(hold.status, 201, hold.text);
    const holdPath = `/api/v1/rooms/demo/holds/${hold.json.hold_id}/confirm`;
    // The welcome page's curl line, with the token printed at start.
    const confirmed = await call(`${url}${holdPath}`, 'POST', { bearer: demo.site, key: `pay-${hold.json.hold_id}` });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.json.state, 'confirmed');

    const rooms = await call(`${url}/api/v1/admin/rooms`, 'GET', { bearer: demo.admin });
    assert.equal(rooms.status, 200, rooms.text);
    assert.equal(rooms.json.rooms[0].id, 'demo');
    assert.equal((await call(`${url}/api/v1/admin/rooms`, 'GET', { bearer: demo.site })).status, 401);
    assert.equal((await fetch(`${url}/admin`)).status, 200);

    // Another start, other tokens: the old ones open nothing.
    const first = demo;
    first.proc.kill('SIGTERM');
    await new Promise((resolve) => first.proc.on('exit', resolve));
    demo = await startDemo(path.join(dir, 'data'));
    assert.notEqual(demo.admin, first.admin);
    assert.notEqual(demo.site, first.site);
    assert.equal((await call(`${demo.url}/api/v1/admin/rooms`, 'GET', { bearer: demo.admin })).status, 200);
    assert.equal((await call(`${demo.url}/api/v1/admin/rooms`, 'GET', { bearer: first.admin })).status, 401);
  } finally {
    demo?.proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a config file none of the demo is on: no tokens printed, no console, no site calls', async () => {
  const f = new Foyer({ rooms: [{ id: 'demo', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 5 } }] });
  try {
    await f.start();
    assert.doesNotMatch(f.output, /token/i);
    const admin = await f.request('GET', '/api/v1/admin/rooms', { headers: { authorization: 'Bearer anything-at-all-0123' } });
    assert.equal(admin.status, 404, admin.text);
    assert.equal(admin.json.error, 'admin_disabled');
    const confirm = await f.request('POST', `/api/v1/rooms/demo/holds/${'0'.repeat(32)}/confirm`,
      { headers: { authorization: 'Bearer anything-at-all-0123', 'idempotency-key': 'k' } });
    assert.equal(confirm.status, 404, confirm.text);
    assert.equal(confirm.json.error, 'site_calls_off');
  } finally {
    await f.cleanup();
  }
});
