// The README's "Put it in front of your sale" with a real browser: `foyer init`, the real
// server, real nginx with the file init wrote and the guard command it printed. A visitor
// opens the waiting room, solves the proof of work, is admitted and lands in the shop
// through the guard; the shop holds seats with the visitor's pass and confirms them.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { initSale } from '../lib/first-hour.js';
import { call, until } from '../lib/foyer.js';
import { launchBrowser, watchedPage } from './helpers.js';

test('from foyer init to a visitor in the shop with seats confirmed, in the browser', async (t) => {
  const sale = await initSale();
  t.after(() => sale.cleanup());
  assert.equal(sale.init.code, 0, sale.init.stderr);
  await sale.serve();
  await until('nginx', () => call(`${sale.queueUrl}/.well-known/foyer.json`).catch(() => null));

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
  const page = await watchedPage(context, problems);
  await page.goto(`${sale.queueUrl}/r/spring-sale`);
  // The guard takes the pass from the address, sets it as the shop's cookie and sends the
  // visitor on to the sale without it.
  await page.waitForURL(sale.shopUrl, { timeout: 60_000 });
  const shop = JSON.parse(await page.locator('body').textContent());
  assert.equal(shop.from, 'upstream');
  assert.equal(shop.path, '/sale/');
  assert.ok(shop.visitor);

  const pass = (await context.cookies(sale.shopUrl)).find((c) => c.name === 'foyer_pass');
  assert.ok(pass, 'the shop holds the pass as its cookie');
  const hold = await call(`${sale.queueUrl}/api/v1/rooms/spring-sale/holds`, 'POST',
    { bearer: pass.value, key: 'cart-1', body: { seats: 2 } });
  assert.equal(hold.status, 201, hold.text);
  const confirmed = await call(`${sale.queueUrl}/api/v1/rooms/spring-sale/holds/${hold.json.hold_id}/confirm`, 'POST',
    { bearer: sale.token('site_token'), key: 'pay-1' });
  assert.equal(confirmed.status, 200, confirmed.text);
  assert.equal(confirmed.json.state, 'confirmed');
  const seats = await call(`${sale.queueUrl}/api/v1/rooms/spring-sale/inventory`);
  assert.equal(seats.json.confirmed, 2);
  // The waiting room's own pages ran without a script error or a CSP violation.
  assert.deepEqual(problems, []);
});
