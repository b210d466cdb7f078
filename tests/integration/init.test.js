// `foyer init` through to a visitor in the shop: the files it writes start the real server,
// the nginx file runs in a real nginx, and the guard command it prints lets an admitted
// visitor into the guarded path and no one else; the tokens and the issuer work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { call, foyerBin, runFoyer as run, spawnOwned, until } from '../lib/foyer.js';
import { freePort, launchNginx, nginxConfig, startUpstream } from '../nginx/harness.js';
import { solveSync } from '../../web/js/pow.js';

// Starts `args` and resolves once its output matches `ready`.
async function start(args, ready) {
  const proc = spawnOwned(foyerBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (c) => { output += c; });
  proc.stderr.on('data', (c) => { output += c; });
  proc.on('exit', (code) => { output += `\n(exited ${code})`; });
  await until(`${args[0]} to start`, () => ready.test(output) || /\(exited/.test(output), 15000);
  assert.match(output, ready);
  return proc;
}

test('without a terminal, init names every missing flag and writes nothing', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-init-'));
  try {
    const { code, stderr } = await run(['init', '--dir', dir, '--room', 'sale']);
    assert.equal(code, 1);
    assert.match(stderr, /missing --name, --shop-url, --foyer-url, --rate \(stdin is not a terminal/);
    assert.throws(() => statSync(path.join(dir, 'foyer.toml')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('init, then serve, nginx and the guard as it says: a visitor goes from the queue to the shop, seats confirmed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-init-'));
  const procs = [];
  const shop = await startUpstream();
  try {
    const [foyerPort, guardPort, queuePort, shopPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const queueUrl = `http://127.0.0.1:${queuePort}`;
    const shopUrl = `http://127.0.0.2:${shopPort}/sale/`;
    const init = await run(['init', '--dir', dir, '--room', 'spring-sale', '--name', 'Spring sale', '--shop-url', shopUrl,
      '--foyer-url', queueUrl, '--rate', '6000', '--seats', '10', '--listen', `127.0.0.1:${foyerPort}`,
      '--guard-listen', `127.0.0.1:${guardPort}`, '--shop-backend', `127.0.0.1:${shop.port}`]);
    assert.equal(init.code, 0, init.stderr);
    const configPath = path.join(dir, 'foyer.toml');
    assert.equal(statSync(configPath).mode & 0o777, 0o600);
    assert.match(init.stdout, /Next:\n1\. Start the waiting room:\n +foyer serve --config /);
    const toml = readFileSync(configPath, 'utf8');
    const token = (name) => new RegExp(`^${name} = "([0-9a-f]{48})"$`, 'm').exec(toml)[1];
    const [admin, site] = [token('admin_token'), token('site_token')];
    assert.notEqual(admin, site);
    assert.notEqual(token('account_hint_secret'), admin);

    // Never over what is there.
    const again = await run(['init', '--dir', dir, '--room', 'b', '--name', 'B', '--shop-url', shopUrl,
      '--foyer-url', queueUrl, '--rate', '1']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /foyer\.toml exists: nothing was written/);
    assert.equal(readFileSync(configPath, 'utf8'), toml);

    procs.push(await start(['serve', '--config', configPath], /serving 1 room\(s\) on http:\/\/127\.0\.0\.1:\d+/));
    const guardLine = /^ +(foyer guard .*)$/m.exec(init.stdout)[1];
    procs.push(await start(guardLine.split(' ').slice(1), /listening on http:\/\/127\.0\.0\.1:\d+/));
    const nginx = { dir, port: queuePort };
    launchNginx(nginx, nginxConfig(dir, `include ${path.join(dir, 'foyer-nginx.conf')};`, 64));
    procs.push(nginx.proc);

    const discovery = await until('nginx', () => call(`${queueUrl}/.well-known/foyer.json`).catch(() => null));
    assert.deepEqual(discovery.json, { issuer: queueUrl, jwks_uri: `${queueUrl}/.well-known/jwks.json`, rooms: ['spring-sale'] });
    assert.equal((await call(`${queueUrl}/api/v1/admin/rooms`, 'GET', { bearer: admin })).status, 200);

    // Without a pass the shop's sale sends the visitor to the waiting room.
    const turnedAway = await call(shopUrl, 'GET');
    assert.equal(turnedAway.status, 302);
    assert.equal(turnedAway.headers.get('location'), `${queueUrl}/r/spring-sale`);
    assert.equal((await call(`http://127.0.0.2:${shopPort}/`, 'GET')).json.from, 'upstream');

    const challenge = await call(`${queueUrl}/api/v1/rooms/spring-sale/challenge`, 'POST');
    const joined = await call(`${queueUrl}/api/v1/rooms/spring-sale/join`, 'POST', { body: solveSync(challenge.json.challenge) });
    assert.equal(joined.status, 201, joined.text);
    const admitted = await until('admission', async () => {
      const st = (await call(`${queueUrl}/api/v1/rooms/spring-sale/status`, 'GET', { bearer: joined.json.ticket })).json;
      return st.state === 'admitted' && st.pass ? st : null;
    });
    assert.equal(admitted.target_url, shopUrl);

    // Where the waiting page sends the admitted visitor: the guard makes the pass a cookie.
    const entered = await call(`${shopUrl}?foyer_pass=${admitted.pass}`, 'GET');
    assert.equal(entered.status, 302, entered.text);
    const cookie = entered.headers.get('set-cookie').split(';')[0];
    const inShop = await call(shopUrl, 'GET', { cookie });
    assert.equal(inShop.status, 200, inShop.text);
    assert.equal(inShop.json.path, '/sale/');
    assert.ok(inShop.json.visitor);

    // The shop holds seats with the pass and confirms them with the site token.
    const hold = await call(`${queueUrl}/api/v1/rooms/spring-sale/holds`, 'POST', { bearer: admitted.pass, key: 'h', body: { seats: 2 } });
    assert.equal(hold.status, 201, hold.text);
    const confirmed = await call(`${queueUrl}/api/v1/rooms/spring-sale/holds/${hold.json.hold_id}/confirm`, 'POST',
      { bearer: site, key: 'pay' });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.json.state, 'confirmed');
  } finally {
    for (const proc of procs.reverse()) proc.kill('SIGKILL');
    await shop.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
