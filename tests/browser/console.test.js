// The operator console in a real browser: sign in, live room cards with charts from
// its own samples, closing a lobby early, supplying a beacon; creating, editing and
// deleting rooms with the server's messages beside the settings they are about.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { eventually, joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';

const ADMIN_TOKEN = 'console-test-token-0123456789';
// Long enough to watch the charts fill with a few samples (one every 3 s).
const WATCH_MS = 10_000;

// An opens_at an hour ahead, in whole seconds, as RFC 3339.
const anHourAhead = () => new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000).toISOString().replace('.000Z', 'Z');

test('the console shows the rooms, charts them, closes a lobby early and takes a beacon', async (t) => {
  const later = anHourAhead();
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
  // The confirmation of an action that cannot be undone: locked until the id is typed
  // exactly, then Enter confirms.
  const confirmTyped = async (id) => {
    const ok = page.getByRole('button', { name: 'Confirm' });
    const typed = page.getByLabel(`This cannot be undone. Type the room id, ${id}, to confirm`);
    assert.equal(await ok.isDisabled(), true);
    await typed.fill(`${id}x`);
    assert.equal(await ok.isDisabled(), true);
    await typed.fill(id);
    assert.equal(await ok.isDisabled(), false);
    await typed.press('Enter');
  };
  await card('concert').waitFor();
  assert.equal(await card('launch').locator('.badge').textContent(), 'lobby open');
  assert.equal(await card('launch').locator('[data-stat="lobby_size"]').textContent(), '4');
  assert.equal(await card('concert').locator('[data-stat="rate_per_minute"]').textContent(), '120');
  assert.equal(await card('drop').locator('form[data-control="beacon"]').isVisible(), false);

  // Only the tiles that apply: a lobby shows its size and its draw time, not passes nor
  // a queue; a room without seats no seat counts. No tile stands empty.
  const tiles = async (id) => card(id).locator('[data-tile]:visible').evaluateAll((els) => els.map((el) => el.dataset.tile));
  assert.deepEqual(await tiles('launch'), ['joined', 'lobby_size', 'draw_at', 'rate_per_minute', 'rate_reason']);
  assert.deepEqual(await tiles('concert'),
    ['joined', 'served', 'waiting', 'rate_per_minute', 'rate_reason', 'active', 'claimed', 'no_shows', 'stock_remaining']);
  assert.match(await card('launch').locator('.draw-at').textContent(), /\d{1,2}:\d{2}/);
  assert.deepEqual(await page.locator('[data-tile]:visible dd').evaluateAll((els) => els.filter((el) => /^(—|)$/.test(el.textContent)).length), 0);

  // The live line: rates once two samples are in, and the degradation level, in a band
  // of its own at body size.
  await page.locator('#ops', { hasText: /^Joins \d+\.\d\/s · admissions \d+\.\d\/s · load: normal \(level 0\)$/ }).waitFor();
  assert.deepEqual(await page.locator('#ops').evaluate((el) => [
    Boolean(el.closest('.toolbar')), getComputedStyle(el).fontSize, getComputedStyle(el).color === getComputedStyle(document.body).color,
  ]), [false, '16px', true]);

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

  // Close the lobby early: it cannot be undone, so the dialog takes the room's id typed
  // out before it confirms; then the room opens with its draw.
  await card('launch').getByRole('button', { name: 'Close the lobby now' }).click();
  await page.locator('#confirm-text', { hasText: 'Close the lobby of Launch day now' }).waitFor();
  await confirmTyped('launch');
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
  await confirmTyped('drop');
  await card('drop').locator('.needs-beacon').waitFor();
  const beacon = 'a3f1'.repeat(16);
  await card('drop').getByLabel('Beacon value (hex)').fill(beacon);
  await card('drop').getByRole('button', { name: 'Supply the beacon' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('drop').locator('.control-result', { hasText: 'Done: the room is now open.' }).waitFor();
  const drop = await foyer.request('GET', '/api/v1/rooms/drop/lottery');
  assert.equal(drop.json.beacon, beacon);
  await screenshot(page, 'admin-after');

  // Pause and resume admission from the card: undone as easily, so a plain confirmation.
  const pause = card('launch').getByRole('button', { name: 'Pause admission' });
  assert.equal(await pause.getAttribute('class'), 'button');
  await pause.click();
  assert.equal(await page.locator('#confirm-typed').isVisible(), false);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('launch').locator('.control-result', { hasText: 'Done: the room is now paused.' }).waitFor();
  assert.equal((await foyer.request('GET', '/api/v1/rooms/launch')).json.state, 'paused');
  await card('launch').getByRole('button', { name: 'Resume admission' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('launch').locator('.control-result', { hasText: 'Done: the room is now open.' }).waitFor();
  assert.equal((await foyer.request('GET', '/api/v1/rooms/launch')).json.state, 'open');

  // Marking sold out and closing cannot be undone: they look it, and take the id typed.
  const soldOut = card('launch').getByRole('button', { name: 'Mark sold out' });
  const close = card('drop').getByRole('button', { name: 'Close the room' });
  assert.deepEqual([await soldOut.getAttribute('class'), await close.getAttribute('class')], ['button danger', 'button danger']);
  await soldOut.click();
  await confirmTyped('launch');
  await card('launch').locator('.control-result', { hasText: 'Done: the room is now sold out.' }).waitFor();
  await close.click();
  await confirmTyped('drop');
  await card('drop').locator('.control-result', { hasText: 'Done: the room is now closed.' }).waitFor();
  assert.equal((await foyer.request('GET', '/api/v1/rooms/drop')).json.state, 'closed');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Admin token').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('foyer:admin-token')), null);
  assert.deepEqual(problems, []);
});

test('the console creates, edits and deletes rooms, with the server\'s messages beside the settings', async (t) => {
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    // One a minute: the visitors who joined wait while the test runs.
    rooms: [{ id: 'concert', name: 'Concert tickets', rate_per_minute: 1, target_url: '/welcome', stock: 500 }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'concert');
  const admin = (method, urlPath, body) =>
    foyer.request(method, urlPath, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  const patches = [];
  page.on('request', (req) => {
    if (req.method() === 'PATCH') patches.push(req.postDataJSON());
  });
  await page.goto(`${foyer.url}/admin`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByLabel('Admin token').press('Enter');
  const card = (id) => page.locator(`article[data-room="${id}"]`);
  await card('concert').waitFor();
  assert.equal(await card('concert').locator('.owner').textContent(), 'Declared in the configuration file');
  const focused = () => page.evaluate(() => document.activeElement.id);

  // A problem about one setting shows beside its input, which gets focus; the rest stays as typed.
  const expectProblem = async (key, message) => {
    const error = page.locator(`#room-field-${key}-error`);
    await error.filter({ hasText: message }).waitFor();
    assert.equal(await error.getAttribute('role'), 'alert');
    const input = page.locator(`#room-field-${key}`);
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    assert.ok((await input.getAttribute('aria-describedby')).split(' ').includes(`room-field-${key}-error`));
    assert.equal(await focused(), `room-field-${key}`);
    assert.equal(await page.locator('.room-dialog [aria-invalid="true"]').count(), 1);
  };
  const refusal = async (body) => (await admin('POST', '/api/v1/admin/rooms', body)).json.detail;

  await page.getByRole('button', { name: 'New room' }).click();
  const form = page.getByRole('dialog', { name: 'New room' });
  await form.waitFor();
  assert.equal(await focused(), 'room-field-id');
  const idInput = form.getByLabel('Id', { exact: true });
  const targetInput = form.getByLabel('Target URL', { exact: true });
  const rateInput = form.getByLabel('Rate per minute (optional)', { exact: true });
  const create = form.getByRole('button', { name: 'Create the room' });
  await idInput.fill('concert');
  await form.getByLabel('Name (optional)', { exact: true }).fill('Sneaker drop');
  await targetInput.fill('/welcome');
  await rateInput.fill('30');
  await create.click();
  await expectProblem('id', await refusal({ id: 'concert', target_url: '/welcome' }));

  await idInput.fill('drop');
  await targetInput.fill('//evil.example');
  await create.click();
  await expectProblem('target_url', await refusal({ id: 'drop', target_url: '//evil.example' }));

  await targetInput.fill('/welcome');
  await rateInput.fill('0');
  await create.click();
  const rateMessage = await refusal({ id: 'drop', target_url: '/welcome', rate_per_minute: 0 });
  await expectProblem('rate_per_minute', rateMessage);
  assert.equal(await form.getByLabel('Name (optional)', { exact: true }).inputValue(), 'Sneaker drop');
  assert.equal(await targetInput.inputValue(), '/welcome');
  // The form's top, the message in sight below it.
  await page.locator('#room-dialog').evaluate((dialog) => { dialog.scrollTop = 0; });
  await screenshot(page, 'admin-room-form', { commit: true });

  await rateInput.fill('30');
  await form.getByLabel('Event (optional)', { exact: true }).fill('spring-tour');
  await create.click();
  await form.waitFor({ state: 'hidden' });
  await card('drop').waitFor();
  assert.equal(await card('drop').locator('.name').textContent(), 'Sneaker drop');
  assert.equal(await card('drop').locator('.owner').textContent(), 'Created through the admin API');
  assert.equal(await card('drop').locator('[data-stat="rate_per_minute"]').textContent(), '30');
  await page.locator('#console-status', { hasText: 'Created Sneaker drop.' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.closest('article')?.dataset.room), 'drop');
  const created = (await admin('GET', '/api/v1/admin/rooms/drop')).json;
  assert.equal(created.owner, 'api');
  assert.deepEqual([created.config.rate_per_minute, created.config.target_url, created.config.event], [30, '/welcome', 'spring-tour']);

  // The quick rate control: a refusal beside its input, then the new rate on the card.
  const rate = card('drop').getByLabel('New rate per minute');
  await rate.fill('0');
  await card('drop').getByRole('button', { name: 'Change the rate' }).click();
  await page.locator('#confirm-text', { hasText: 'Change the rate of Sneaker drop from 30 to 0 visitors per minute?' }).waitFor();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('drop').locator('#room-drop-rate-error', { hasText: rateMessage }).waitFor();
  assert.equal(await rate.evaluate((el) => el === document.activeElement), true);
  assert.equal(await rate.getAttribute('aria-describedby'), 'room-drop-rate-error');
  await rate.fill('45');
  await card('drop').getByRole('button', { name: 'Change the rate' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('drop').locator('.control-result', { hasText: 'Done: the rate is now 45 per minute.' }).waitFor();
  await card('drop').locator('[data-stat="rate_per_minute"]', { hasText: '45' }).waitFor();
  assert.equal(await card('drop').locator('#room-drop-rate-error').textContent(), '');
  assert.deepEqual(patches, [{ rate_per_minute: 0 }, { rate_per_minute: 45 }]);
  assert.equal((await admin('GET', '/api/v1/admin/rooms/drop')).json.rate_per_minute, 45);

  // Edit: the form is the room's config, and only what changed is sent. An opening
  // added to a FIFO room whose visitors hold places is refused beside opens_at.
  await card('concert').getByRole('button', { name: 'Edit settings' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Concert tickets' });
  await edit.waitFor();
  assert.equal(await focused(), 'room-field-name');
  assert.equal(await edit.getByLabel('Id', { exact: true }).inputValue(), 'concert');
  assert.equal(await edit.getByLabel('Id', { exact: true }).getAttribute('readonly'), '');
  assert.equal(await edit.getByLabel('Stock (optional)', { exact: true }).inputValue(), '500');
  assert.equal(await edit.locator('#room-form-note').isVisible(), true);
  const save = edit.getByRole('button', { name: 'Save changes' });
  await save.click();
  await edit.locator('#room-form-error', { hasText: 'Nothing to save: no setting was changed.' }).waitFor();
  const opensAt = edit.getByLabel('Opens at (optional)', { exact: true });
  const later = anHourAhead();
  await opensAt.fill(later);
  await save.click();
  const refused = await admin('PATCH', '/api/v1/admin/rooms/concert', { opens_at: later });
  assert.equal(refused.json.error, 'change_refused');
  await expectProblem('opens_at', refused.json.detail);
  assert.equal(await edit.locator('#room-form-error').textContent(), '');
  await opensAt.fill('');
  await edit.getByLabel('Name (optional)', { exact: true }).fill('Concert night');
  await save.click();
  await edit.waitFor({ state: 'hidden' });
  await card('concert').locator('.name', { hasText: 'Concert night' }).waitFor();
  await card('concert').locator('.control-result', { hasText: 'Saved: Name.' }).waitFor();
  assert.deepEqual(patches.slice(2), [{ opens_at: later }, { name: 'Concert night' }]);

  // On a narrow screen the form fits the width and scrolls by itself.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'New room' }).click();
  await form.waitFor();
  assert.deepEqual(await page.evaluate(() => {
    const dialog = document.getElementById('room-dialog');
    return [document.documentElement.scrollWidth <= 360, dialog.scrollWidth <= dialog.clientWidth];
  }), [true, true]);
  await screenshot(page, 'admin-room-form-narrow', { fullPage: false });
  await page.keyboard.press('Escape');
  await form.waitFor({ state: 'hidden' });
  assert.equal(await focused(), 'new-room');
  await page.setViewportSize({ width: 1200, height: 900 });

  // Delete: a room nobody waits in goes at once; one with visitors waiting takes a second confirmation.
  await card('drop').getByRole('button', { name: 'Delete the room' }).click();
  await page.locator('#confirm-text', { hasText: 'Delete Sneaker drop?' }).waitFor();
  await page.getByLabel('This cannot be undone. Type the room id, drop, to confirm').fill('drop');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await card('drop').waitFor({ state: 'detached' });
  await page.locator('#console-status', { hasText: 'Deleted Sneaker drop.' }).waitFor();
  assert.equal((await admin('GET', '/api/v1/admin/rooms/drop')).status, 404);

  await card('concert').getByRole('button', { name: 'Delete the room' }).click();
  await page.getByLabel('This cannot be undone. Type the room id, concert, to confirm').fill('concert');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.locator('#confirm-text', { hasText: /^\d+ visitors? (is|are) waiting in Concert night\. Close the room and delete it\?/ })
    .waitFor();
  await page.getByRole('button', { name: 'Close and delete' }).click();
  await card('concert').waitFor({ state: 'detached' });
  await page.locator('#no-rooms').waitFor();
  assert.deepEqual((await admin('GET', '/api/v1/admin/rooms')).json.rooms, []);
  assert.deepEqual(problems, []);
});

test('the console shows the rate and why, the passes live and the stock, and follows them', async (t) => {
  const SITE = 'console-site-token-0123456789';
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN, site_token: SITE },
    rooms: [{ id: 'shop', name: 'Shop', rate_per_minute: 6000, target_url: '/welcome', max_active: 1, stock: 50 }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const tickets = [];
  for (let i = 0; i < 3; i++) tickets.push((await foyer.join('shop')).json.ticket);
  await eventually(async () => (await foyer.status(tickets[0], 'shop')).json.state === 'admitted');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await watchedPage(await browser.newContext(), []);
  await page.goto(`${foyer.url}/admin`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByLabel('Admin token').press('Enter');
  const shop = page.locator('article[data-room="shop"]');
  await shop.locator('[data-stat="active"]', { hasText: '1' }).waitFor();
  assert.equal(await shop.locator('[data-stat="rate_per_minute"]').textContent(), '6,000');
  assert.equal(await shop.locator('[data-text="rate_reason"]').textContent(), 'held: max_active passes are live');
  assert.equal(await shop.locator('[data-stat="stock_remaining"]').textContent(), '50');

  const sold = await foyer.request('POST', '/api/v1/rooms/shop/stock', {
    body: { consumed: 8 }, headers: { authorization: `Bearer ${SITE}`, 'idempotency-key': 'sale-1' },
  });
  assert.equal(sold.status, 200, sold.text);
  await shop.locator('[data-stat="stock_remaining"]', { hasText: '42' }).waitFor({ timeout: 15_000 });
});

test('the console signs in from the address the demo prints, /admin#token=..., and wipes the token from it', async (t) => {
  const foyer = new Foyer({ server: { admin_token: ADMIN_TOKEN } });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext(), problems);
  await page.goto(`${foyer.url}/admin#token=${ADMIN_TOKEN}`);
  await page.locator('article[data-room="demo"]').waitFor();
  assert.equal(new URL(page.url()).hash, '');
  assert.deepEqual(problems, []);
});
