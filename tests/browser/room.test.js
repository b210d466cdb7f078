// The waiting room in a real browser: proof of work, a falling position, a reload that
// keeps the place, admission, and the pass arriving at the site as a cookie.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { eventually, joinByApi, launchBrowser, screenshot, startTarget, watchedPage } from './helpers.js';

test('a visitor works, waits, watches the queue move and lands on the site with the pass', async (t) => {
  const target = await startTarget();
  t.after(() => target.close());
  const foyer = new Foyer({
    // A minute's rate lets at most a few seconds' credit out at once, so the position visibly falls.
    rooms: [{
      id: 'spring', name: 'Spring sale', rate_per_minute: 60, target_url: `${target.url}/shop`,
      stock: 1200, accent_colour: '#0b6e4f',
    }],
    proof_of_work: { base_bits: 4 },
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 10; i++) await joinByApi(foyer, 'spring');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 640 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  const joins = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/api/v1/rooms/spring/join')) joins.push(req.postDataJSON());
  });

  await page.goto(`${foyer.url}/r/spring`);
  await page.locator('#figures').waitFor({ state: 'visible' });
  // The join carried a solved challenge: 8 puzzles, a 16-digit nonce each.
  assert.equal(joins.length, 1);
  assert.match(joins[0].nonce, /^[0-9a-f]{128}$/);
  const place = await page.locator('#place').textContent();
  assert.equal(place, '11');
  assert.match(await page.locator('#odds').textContent(), /^About 1,200 items left for \d+ people ahead of you: you are likely to get one\.$/);
  assert.equal(await page.locator('#brand-name').textContent(), 'Spring sale');
  // Screen readers hear the new state with the position in one polite announcement.
  assert.match(await page.locator('#announce[aria-live="polite"]').textContent(),
    /^You are in the queue\. Keep this page open.* \d+ people ahead of you\. Expected wait .+\.$/);

  // A reload keeps the ticket: same place, no new join.
  await page.reload();
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#place').textContent(), place);
  assert.equal(joins.length, 1);

  const seen = [];
  await eventually(async () => {
    if (page.url().startsWith(target.url)) return true;
    const ahead = await page.locator('#ahead').textContent({ timeout: 200 }).catch(() => null);
    if (ahead && ahead !== seen.at(-1)) {
      seen.push(ahead);
      // Once the queue has moved, the progress bar has something to show.
      if (seen.length === 2) await screenshot(page, 'room', { commit: true }).catch(() => null);
    }
    return false;
  }, { timeoutMs: 30000, what: 'admission' });
  const numbers = seen.map(Number);
  assert.ok(numbers.length >= 2, `positions seen: ${seen}`);
  assert.deepEqual(numbers, [...numbers].sort((a, b) => b - a), `positions seen: ${seen}`);

  await page.waitForURL(`${target.url}/shop`);
  assert.equal(await page.locator('#pass').textContent(), 'pass cookie present');
  const cookie = (await context.cookies(target.url)).find((c) => c.name === 'foyer_pass');
  assert.ok(cookie, 'the site set the pass cookie');
  const claims = JSON.parse(Buffer.from(cookie.value.split('.')[1], 'base64url'));
  assert.equal(claims.aud, 'spring');

  // The demo target page explains the pass and checks its signature against the JWKS.
  await page.goto(`${foyer.url}/welcome?foyer_pass=${cookie.value}`);
  await eventually(async () => /^valid, by key/.test(await page.locator('#pass-signature').textContent()),
    { what: 'the pass signature check' });
  assert.equal(new URL(page.url()).search, '', 'the pass is taken out of the address bar');
  assert.equal(await page.locator('#pass-room').textContent(), 'spring');
  await screenshot(page, 'welcome');
  assert.deepEqual(problems, []);
});

test('an expired ticket says so and joins again at the back', async (t) => {
  const foyer = new Foyer({ rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  await joinByApi(foyer, 'demo');
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 640 }, reducedMotion: 'reduce' });
  const problems = [];
  const page = await watchedPage(context, problems);
  // The front page of a one-room server is its waiting room.
  await page.goto(`${foyer.url}/`);
  await page.locator('#figures').waitFor({ state: 'visible' });
  await page.evaluate(() => localStorage.setItem('foyer:room:demo', JSON.stringify({ ticket: 'AAAA' })));
  await context.clearCookies();
  await page.reload();
  await page.locator('#title', { hasText: 'Your place has expired' }).waitFor();
  await screenshot(page, 'expired');
  await page.keyboard.press('Enter');
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#place').textContent(), '3');
  assert.deepEqual(problems, []);
});

test('the page rides out a network drop and a server restart, keeping its place', async (t) => {
  // Six a minute with a few ahead: the page polls every few seconds.
  const foyer = new Foyer({ rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'demo');
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 640 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.goto(`${foyer.url}/r/demo`);
  await page.locator('#figures').waitFor({ state: 'visible' });
  const place = await page.locator('#place').textContent();
  const notice = page.locator('#notice');

  await context.setOffline(true);
  await notice.filter({ hasText: 'You are offline. You keep your place' }).waitFor();
  await context.setOffline(false);
  await eventually(async () => (await notice.textContent()) === '', { what: 'the notice to clear once online' });

  await foyer.kill9();
  await notice.filter({ hasText: /^Connection lost\. Trying again in \d+ seconds?; you keep your place\.$/ })
    .waitFor({ timeout: 15000 });
  await screenshot(page, 'offline');
  await foyer.start();
  await eventually(async () => (await notice.textContent()) === '', { what: 'the page to reconnect', timeoutMs: 40000 });
  assert.equal(await page.locator('#place').textContent(), place);
  assert.equal(await page.locator('#title').textContent(), 'You are in the queue');
  // Failed fetches while the server was down are expected console noise.
  assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED/.test(p)), []);
});

test('when the site reports the last item sold, the waiting page says sold out and offers the other queues', async (t) => {
  const SITE = 'room-page-site-token-0123456';
  const foyer = new Foyer({
    server: { site_token: SITE },
    rooms: [
      // Slow enough that nobody ahead is admitted while the page watches; its polls come every 10–15 s.
      { id: 'train', name: 'Morning train', rate_per_minute: 3, target_url: '/welcome', stock: 3, alternatives: ['bus', 'ferry'] },
      { id: 'bus', name: 'Morning bus', rate_per_minute: 60, target_url: '/welcome' },
      { id: 'ferry', name: 'Morning ferry', rate_per_minute: 60, target_url: '/welcome' },
    ],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 5; i++) await joinByApi(foyer, 'train');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext(), problems);
  await page.goto(`${foyer.url}/r/train`);
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.match(await page.locator('#odds').textContent(), /^About 3 items left for 5 people ahead of you/);

  const sold = await foyer.request('POST', '/api/v1/rooms/train/stock', {
    body: { remaining: 0 }, headers: { authorization: `Bearer ${SITE}`, 'idempotency-key': 'closing' },
  });
  assert.deepEqual(sold.json, { remaining: 0, state: 'sold_out' });
  await page.locator('#title', { hasText: 'Sold out' }).waitFor({ timeout: 30_000 });
  const links = page.locator('#alternatives-list a');
  assert.deepEqual(await links.allTextContents(), ['Morning bus', 'Morning ferry']);
  assert.equal(await links.first().getAttribute('href'), '/r/bus');
  assert.deepEqual(problems, []);
  await screenshot(page, 'sold-out-alternatives');
});

test('a mistyped room address shows the page saying there is no such waiting room', async (t) => {
  const foyer = new Foyer();
  t.after(() => foyer.cleanup());
  await foyer.start();
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await (await browser.newContext()).newPage();
  const res = await page.goto(`${foyer.url}/r/dmeo`);
  assert.equal(res.status(), 404);
  await page.locator('#title', { hasText: 'No such waiting room' }).waitFor();
});
