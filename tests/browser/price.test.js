// The waiting page when the price of joining rose while it solved: the join is refused
// with a challenge at the price now, and the page solves that one and gets in by itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { joinByApi, launchBrowser, watchedPage } from './helpers.js';

test('a visitor refused because the price rose solves the new challenge and joins without a click', async (t) => {
  const foyer = new Foyer({
    proof_of_work: { base_bits: 2, pressure_threshold: 2, max_pressure_bits: 6, puzzles: 1 },
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  // Fetched while the network is calm, handed to the page once the network is busy.
  const calm = (await foyer.request('POST', '/api/v1/rooms/demo/challenge')).json;
  for (let i = 0; i < 8; i++) await joinByApi(foyer, 'demo');
  const busy = (await foyer.request('POST', '/api/v1/rooms/demo/challenge')).json;
  assert.ok(busy.difficulty_bits > calm.difficulty_bits, `${busy.difficulty_bits} > ${calm.difficulty_bits}`);

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 640 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.route('**/api/v1/rooms/demo/challenge', (route) => route.fulfill({ json: calm }));
  const answers = [];
  page.on('response', (res) => {
    if (res.url().endsWith('/api/v1/rooms/demo/join')) answers.push(res.json().then((body) => [res.status(), body.error]));
  });

  await page.goto(`${foyer.url}/r/demo`);
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.deepEqual(await Promise.all(answers), [[409, 'price_rose'], [201, undefined]]);
  assert.equal(await page.locator('#place').textContent(), '9');
  assert.equal(await page.locator('#action').isVisible(), false, 'the visitor was not asked anything');
  assert.deepEqual(problems, []);
});
