// The waiting page where things go wrong around it: a site that sends every pass back,
// an admission held with no wait to promise, and a phone's narrow screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';

import { Foyer } from '../lib/foyer.js';
import { joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';

/** A shop whose guard refuses every pass: each visit goes straight back to `shop.roomUrl`. */
async function startBouncingShop() {
  const shop = { visits: 0, roomUrl: null };
  const server = createServer((req, res) => {
    shop.visits++;
    res.writeHead(302, { location: shop.roomUrl });
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  shop.url = `http://127.0.0.1:${server.address().port}`;
  shop.close = () => new Promise((r) => { server.close(r); server.closeAllConnections(); });
  return shop;
}

test('a site that sends the same pass straight back stops the loop, and the page says why', async (t) => {
  const shop = await startBouncingShop();
  t.after(() => shop.close());
  const foyer = new Foyer({ rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 600, target_url: `${shop.url}/shop` }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  // The guard's redirect to the waiting room, with the reason it refused the pass.
  shop.roomUrl = `${foyer.url}/r/sale?foyer_refused=wrong_issuer`;

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  await page.goto(`${foyer.url}/r/sale`);
  await page.locator('#title', { hasText: 'The site did not accept your pass' }).waitFor({ timeout: 20_000 });
  assert.match(await page.locator('#lead').textContent(), /\(reason: wrong_issuer\)/);
  assert.equal(shop.visits, 2, 'sent on twice, then stopped');
  // It stays stopped: no more visits to the shop.
  await page.waitForTimeout(3000);
  assert.equal(shop.visits, 2);
  assert.equal(await page.locator('#continue').isVisible(), true);
  assert.match(await page.locator('#continue').getAttribute('href'), new RegExp(`^${shop.url}/shop\\?foyer_pass=`));
  await screenshot(page, 'pass-refused');

  // A reload is the visitor trying again, not the site sending them back: the page sends
  // them on afresh, and stops the loop again.
  await page.reload();
  await page.locator('#title', { hasText: 'The site did not accept your pass' }).waitFor({ timeout: 20_000 });
  assert.equal(shop.visits, 4);
  assert.deepEqual(problems, []);
});

test('while admission is held the page promises no time; on a phone the figures leave no hole', async (t) => {
  const foyer = new Foyer({ rooms: [{ id: 'seats', name: 'Seats', rate_per_minute: 1, target_url: '/welcome' }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'seats');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 375, height: 740 } }), problems);
  // The status as the server gives it while every seat is held: no expected wait.
  await page.route(/\/api\/v1\/rooms\/seats\/status$/, async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    // Far back (above frontier_above), polling again soon.
    await route.fulfill({ response, json: { ...body, eta_seconds: null, reason: 'held_by_seats', frontier_above: 0, poll_after_ms: 500 } });
  });
  await page.goto(`${foyer.url}/r/seats`);
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#eta').textContent(), 'waiting for places to free up');
  assert.equal(await page.locator('#eta-time').textContent(), '');
  assert.match(await page.locator('#announce').textContent(), /Admission is held: waiting for places to free up\.$/);
  // Far back, the page follows the frontier, which says nothing of holds: while it does
  // not move, admission is still held.
  await page.waitForResponse(/\/api\/v1\/rooms\/seats\/frontier$/);
  await page.waitForTimeout(300);
  assert.equal(await page.locator('#eta').textContent(), 'waiting for places to free up');

  // Each row of figures spans the whole width: a figure alone on its row fills it.
  const rows = await page.evaluate(() => {
    const box = document.getElementById('figures').getBoundingClientRect();
    const byTop = new Map();
    for (const figure of document.querySelectorAll('#figures > div:not([hidden])')) {
      const r = figure.getBoundingClientRect();
      const row = byTop.get(Math.round(r.top)) ?? { left: Infinity, right: -Infinity };
      byTop.set(Math.round(r.top), { left: Math.min(row.left, r.left), right: Math.max(row.right, r.right) });
    }
    return { left: box.left, right: box.right, rows: [...byTop.values()] };
  });
  assert.ok(rows.rows.length >= 2, `the figures wrap at 375 px: ${JSON.stringify(rows)}`);
  for (const row of rows.rows) {
    assert.ok(Math.abs(row.left - rows.left) < 1 && Math.abs(row.right - rows.right) < 1, JSON.stringify(rows));
  }
  await screenshot(page, 'room-phone-held');
  assert.deepEqual(problems, []);
});

test('while admission is paused the page gives no expected wait and no clock time', async (t) => {
  const token = 'visitor-page-admin-token-0123';
  const foyer = new Foyer({ server: { admin_token: token },
    rooms: [{ id: 'calm', name: 'Calm', rate_per_minute: 1, target_url: '/welcome' }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'calm');
  const paused = await foyer.request('POST', '/api/v1/admin/rooms/calm/pause', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(paused.status, 200);

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  // Far back, so that the page follows the frontier too, which carries the room's rate.
  await page.route(/\/api\/v1\/rooms\/calm\/status$/, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), frontier_above: 0, poll_after_ms: 500 } });
  });
  await page.goto(`${foyer.url}/r/calm`);
  await page.locator('#title', { hasText: 'The queue is paused' }).waitFor({ timeout: 20_000 });
  const noWait = async () => {
    assert.equal(await page.locator('#eta').textContent(), 'not known while admission is paused');
    assert.equal(await page.locator('#eta-time').textContent(), '');
    assert.match(await page.locator('#announce').textContent(), /Admission is paused: no wait can be given until it resumes\.$/);
  };
  await noWait();
  await page.waitForResponse(/\/api\/v1\/rooms\/calm\/frontier$/);
  await page.waitForTimeout(300);
  await noWait();
  assert.deepEqual(problems, []);
});
