// The queue without JavaScript in Chromium with JavaScript off: from the waiting room's
// <noscript> pointer to the form, a join, a page that reloads itself, and the link that
// takes the pass through to the site.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { joinByApi, launchBrowser, screenshot, startTarget, watchedPage } from './helpers.js';

test('with JavaScript disabled a visitor joins, waits on a refreshing page and lands on the site with the pass', async (t) => {
  const target = await startTarget();
  t.after(() => target.close());
  const foyer = new Foyer({
    rooms: [{ id: 'quiet', name: 'Quiet sale', rate_per_minute: 60, target_url: `${target.url}/shop`,
              lanes: { plain: { name: 'Without JavaScript', share: 0.2, entry: 'no_script' } } }],
    proof_of_work: { base_bits: 4 },
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  // Visitors with JavaScript ahead: the lane still moves on its share.
  for (let i = 0; i < 5; i++) await joinByApi(foyer, 'quiet');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 720, height: 640 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.goto(`${foyer.url}/r/quiet`);
  await page.getByRole('link', { name: 'Wait in the queue without JavaScript' }).click();
  await page.waitForURL(`${foyer.url}/r/quiet/plain`);
  assert.match(await page.locator('main').textContent(), /Without JavaScript/);
  await screenshot(page, 'plain-form');
  await page.getByRole('button', { name: 'Join the queue' }).click();
  await page.waitForURL(`${foyer.url}/api/v1/rooms/quiet/plain`);
  // Waiting, the page asks to be reloaded; at the visitor's turn it no longer does.
  const heading = await page.locator('h1').textContent();
  assert.equal(await page.locator('meta[http-equiv="refresh"]').count(), heading === 'It is your turn' ? 0 : 1, heading);
  // The page reloads itself until the visitor's turn: nothing here runs a script.
  await page.getByRole('link', { name: /^Continue to Quiet sale/ }).waitFor({ timeout: 30_000 });
  await screenshot(page, 'plain-turn');
  await page.getByRole('link', { name: /^Continue to Quiet sale/ }).click();
  await page.waitForURL(`${target.url}/shop`);
  assert.equal(await page.locator('#pass').textContent(), 'pass cookie present');
  assert.deepEqual(problems, []);
});
