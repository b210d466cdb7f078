// The operator console in a real browser: sign in, live room cards with charts from
// its own samples, closing a lobby early, and supplying a beacon.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { eventually, joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';

const ADMIN_TOKEN = 'console-test-token-0123456789';
// Long enough to watch the charts fill with a few samples (one every 3 s).
const WATCH_MS = 10_000;

test('the console shows the rooms, charts them, closes a lobby early and takes a beacon', async (t) => {
  const later = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000).toISOString().replace('.000Z', 'Z');
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    rooms: [
      { id: 'concert', name: 'Concert tickets', rate_per_minute: 120, target_url: '/welcome', stock: 500 },
      { id: 'launch', name: 'Launch day', rate_per_minute: 600, target_url: '/welcome', opens_at: later },
      {
        id: 'drop', name: 'Sneaker drop', rate_per_minute: 600, target_url: '/welcome', opens_at: later,
        beacon_rule: 'the first drand quicknet round at or after the close + 30 s',
      },
    ],
  });
  // A steady stream into the FIFO room while the console watches. Hooks run in the
  // order they were added: the stream stops before the server does.
  let streaming = false;
  let stream = Promise.resolve();
  t.after(async () => { streaming = false; await stream; });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 4; i++) await joinByApi(foyer, 'launch');
  await joinByApi(foyer, 'drop');
  streaming = true;
  stream = (async () => {
    while (streaming) {
      await joinByApi(foyer, 'concert');
      await new Promise((r) => setTimeout(r, 150));
    }
  })();

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.goto(`${foyer.url}/admin`);

  await page.getByLabel('Admin token').fill('wrong-token-wrong-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#login-error', { hasText: 'The server refused this token.' }).waitFor();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByLabel('Admin token').press('Enter');

  const card = (id) => page.locator(`article[data-room="${id}"]`);
  await card('concert').waitFor();
  assert.equal(await card('launch').locator('.badge').textContent(), 'lobby open');
  assert.equal(await card('launch').locator('[data-stat="lobby_size"]').textContent(), '4');
  assert.equal(await card('concert').locator('[data-stat="rate_per_minute"]').textContent(), '120');
  assert.equal(await card('drop').locator('form[data-control="beacon"]').isVisible(), false);

  await page.waitForTimeout(WATCH_MS / 2);
  // A reload keeps the token and the samples.
  const before = await page.evaluate(() => JSON.parse(sessionStorage.getItem('foyer:admin-samples')).length);
  await page.reload();
  await card('concert').waitFor();
  assert.ok(before >= 2, `samples before the reload: ${before}`);
  await eventually(async () => (await page.evaluate(() => JSON.parse(sessionStorage.getItem('foyer:admin-samples')).length)) > before,
    { what: 'samples kept across the reload' });
  await page.waitForTimeout(WATCH_MS / 2);
  const queue = await card('concert').locator('[data-chart="queue"] path.line').getAttribute('d');
  const admissions = await card('concert').locator('[data-chart="admissions"] path.line').getAttribute('d');
  assert.ok(queue.split('L').length >= 4, `queue chart ${queue}`);
  assert.ok(admissions.split('L').length >= 3, `admissions chart ${admissions}`);
  assert.match(await card('concert').locator('[data-chart="admissions"] svg').getAttribute('aria-label'),
    /^Admissions per minute, last hour: now \d+$/);
  await screenshot(page, 'admin', { commit: true });

  // Close the lobby early: confirm in the dialog, and the room opens with its draw.
  await card('launch').getByRole('button', { name: 'Close the lobby now' }).click();
  await page.locator('#confirm-text', { hasText: 'Close the lobby of Launch day now' }).waitFor();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('launch').locator('.control-result', { hasText: 'Done: the room is now open.' }).waitFor();
  await card('launch').locator('.badge', { hasText: 'open' }).waitFor();
  assert.equal(await card('launch').locator('form[data-control="close-lobby"]').isVisible(), false);
  const launch = await foyer.request('GET', '/api/v1/rooms/launch/lottery');
  assert.equal(launch.json.lobby_size, 4);
  assert.match(launch.json.seed, /^[0-9a-f]{64}$/);

  // A lobby with a beacon rule waits for the value after its close.
  await card('drop').getByRole('button', { name: 'Close the lobby now' }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await card('drop').locator('.badge').textContent(), 'lobby open');
  await card('drop').getByRole('button', { name: 'Close the lobby now' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('drop').locator('.needs-beacon').waitFor();
  const beacon = 'a3f1'.repeat(16);
  await card('drop').getByLabel('Beacon value (hex)').fill(beacon);
  await card('drop').getByRole('button', { name: 'Supply the beacon' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('drop').locator('.control-result', { hasText: 'Done: the room is now open.' }).waitFor();
  const drop = await foyer.request('GET', '/api/v1/rooms/drop/lottery');
  assert.equal(drop.json.beacon, beacon);
  await screenshot(page, 'admin-after');

  // Pause and resume admission from the card.
  await card('launch').getByRole('button', { name: 'Pause admission' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('launch').locator('.control-result', { hasText: 'Done: the room is now paused.' }).waitFor();
  assert.equal((await foyer.request('GET', '/api/v1/rooms/launch')).json.state, 'paused');
  await card('launch').getByRole('button', { name: 'Resume admission' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('launch').locator('.control-result', { hasText: 'Done: the room is now open.' }).waitFor();
  assert.equal((await foyer.request('GET', '/api/v1/rooms/launch')).json.state, 'open');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Admin token').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('foyer:admin-token')), null);
  assert.deepEqual(problems, []);
});
