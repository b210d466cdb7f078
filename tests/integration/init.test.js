// `foyer init` through to a visitor in the shop: the files it writes start the real server,
// the nginx file runs in a real nginx, and the guard command it prints lets an admitted
// visitor into the guarded path and no one else; the tokens and the issuer work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { initSale } from '../lib/first-hour.js';
import { call, runFoyer as run, until } from '../lib/foyer.js';
import { solveSync } from '../../web/js/pow.js';

// The status of a GET to `url` sent from the local address `from`.
function statusFrom(from, url) {
  return new Promise((resolve, reject) => {
    http.get(url, { localAddress: from }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
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
  const sale = await initSale();
  const { dir, init, configPath, queueUrl, shopUrl, shopPort, token } = sale;
  try {
    assert.equal(init.code, 0, init.stderr);
    assert.equal(statSync(configPath).mode & 0o777, 0o600);
    assert.match(init.stdout, /Next:\n1\. Start the waiting room:\n +foyer serve --config /);
    const toml = readFileSync(configPath, 'utf8');
    const [admin, site] = [token('admin_token'), token('site_token')];
    assert.notEqual(admin, site);
    assert.notEqual(token('account_hint_secret'), admin);

    // Never over what is there.
    const again = await run(['init', '--dir', dir, '--room', 'b', '--name', 'B', '--shop-url', shopUrl,
      '--foyer-url', queueUrl, '--rate', '1']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /foyer\.toml exists: nothing was written/);
    assert.equal(readFileSync(configPath, 'utf8'), toml);

    await sale.serve();
    const discovery = await until('nginx', () => call(`${queueUrl}/.well-known/foyer.json`).catch(() => null));
    const { ledger, ...passes } = discovery.json;
    assert.deepEqual(passes, { issuer: queueUrl, jwks_uri: `${queueUrl}/.well-known/jwks.json`, rooms: ['spring-sale'] });
    assert.equal(ledger.uri, `${queueUrl}/api/v1/ledger`);
    assert.equal((await call(ledger.uri)).json.vkey, ledger.vkey);
    assert.equal((await call(`${queueUrl}/api/v1/admin/rooms`, 'GET', { bearer: admin })).status, 200);
    assert.equal((await call(`${queueUrl}/api/v1/admin/rooms`, 'GET')).status, 401);
    // /metrics through nginx: to this machine's 127.0.0.1 only. A client from 127.0.0.2 stands
    // in for any other address: nginx refuses it before Foyer hears of it.
    assert.equal((await call(`${queueUrl}/metrics`, 'GET')).status, 200);
    assert.equal(await statusFrom('127.0.0.2', `${queueUrl}/metrics`), 403);
    // Nor by another spelling: nginx's rule meets every path that decodes to /metrics...
    for (const spelling of ['/metrics/', '//metrics//', '/metrics//', '/%6Detrics', '/metricsX']) {
      assert.equal(await statusFrom('127.0.0.2', `${queueUrl}${spelling}`), 403, spelling);
    }
    // ...and Foyer answers /metrics only as written so: the rule sees every spelling it serves.
    assert.equal((await call(`${queueUrl}/metrics/`, 'GET')).status, 404);
    assert.equal((await call(`${queueUrl}//api/v1/admin/rooms`, 'GET', { bearer: admin })).status, 404);
    assert.equal(await statusFrom('127.0.0.2', `${queueUrl}/healthz`), 200);
    assert.match(readFileSync(path.join(dir, 'foyer-nginx.conf'), 'utf8'), /# \/metrics is served to this machine only/);

    // Without a pass the shop's sale sends the visitor to the waiting room.
    const turnedAway = await call(shopUrl, 'GET');
    assert.equal(turnedAway.status, 302);
    // With the page asked for, to come back to once admitted.
    assert.equal(turnedAway.headers.get('location'), `${queueUrl}/r/spring-sale?next=%2Fsale%2F`);
    assert.equal((await call(`http://127.0.0.2:${shopPort}/`, 'GET')).json.from, 'upstream');

    const challenge = await call(`${queueUrl}/api/v1/rooms/spring-sale/challenge`, 'POST');
    const joined = await call(`${queueUrl}/api/v1/rooms/spring-sale/join`, 'POST', { body: solveSync(challenge.json.challenge) });
    assert.equal(joined.status, 201, joined.text);
    // Links come from public_url, which init wrote: nginx's Host $host drops the port, they keep it.
    const link = await call(`${queueUrl}/api/v1/rooms/spring-sale/resume-link`, 'POST', { bearer: joined.json.ticket });
    assert.equal(link.json.url, `${queueUrl}${link.json.path}`);
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
    await sale.cleanup();
  }
});
