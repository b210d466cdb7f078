// Seats in a real browser: a visitor is admitted, holds seats on the demo shop page and
// watches their time run down, the waiting page shows the same hold, the shop's
// confirmation lands on the page; the console shows the seats, their check and the holds
// that ran out.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { eventually, launchBrowser, screenshot, watchedPage } from './helpers.js';

const ADMIN_TOKEN = 'holds-console-token-0123456789';
const SITE_TOKEN = 'holds-site-token-0123456789';

test('a visitor holds seats with a countdown, the waiting page shows them, the shop confirms; the console shows what ran out', async (t) => {
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN, site_token: SITE_TOKEN },
    rooms: [
      {
        id: 'venue', name: 'Small venue', rate_per_minute: 6000, target_url: '/welcome',
        inventory: { total: 6, hold_seconds: 120, max_seats_per_hold: 3 },
      },
      // The shortest hold there is, for the console's list of holds that ran out.
      { id: 'quick', name: 'Quick room', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 3, hold_seconds: 10 } },
    ],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 900 } });
  const problems = [];
  const page = await watchedPage(context, problems);

  // Join, admission, and the demo shop with the pass.
  await page.goto(`${foyer.url}/r/venue`);
  await page.waitForURL(/\/welcome$/, { timeout: 30000 });
  await page.locator('#seats').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#seats-lead').textContent(), '6 of 6 seats are available now.');
  assert.deepEqual(await page.locator('#hold-count option').allTextContents(), ['1', '2', '3']);
  await page.locator('#hold-count').selectOption('2');
  await page.getByRole('button', { name: 'Hold seats' }).click();
  await page.locator('#hold-state', { hasText: '2 seats are held for you.' }).waitFor();
  // About two minutes left, counting down.
  const clock = await page.locator('#hold-clock').textContent();
  assert.match(clock, /^(2:00|1:[0-5]\d)$/);
  await eventually(async () => (await page.locator('#hold-clock').textContent()) !== clock, { what: 'the countdown to move' });
  const command = await page.locator('#hold-confirm').textContent();
  const holdId = /holds\/([0-9a-f]{32})\/confirm/.exec(command)?.[1];
  assert.ok(holdId, command);
  assert.equal((await foyer.request('GET', '/api/v1/rooms/venue/inventory')).json.held, 2);
  await screenshot(page, 'welcome-hold');

  // The waiting page, on the same device, shows the hold in place of the spent pass.
  const room = await context.newPage();
  await room.goto(`${foyer.url}/r/venue`);
  await room.locator('#title', { hasText: 'Your seats are held' }).waitFor();
  assert.equal(await room.locator('#countdown-label').textContent(), 'Time left to pay');
  assert.match(await room.locator('#countdown-clock').textContent(), /^(2:00|1:[0-5]\d)$/);
  assert.match(await room.locator('#lead').textContent(), /^2 seats are yours while you pay\./);
  await room.close();

  // The shop confirms from its server; the page sees it land.
  const confirmed = await foyer.request('POST', `/api/v1/rooms/venue/holds/${holdId}/confirm`, {
    headers: { authorization: `Bearer ${SITE_TOKEN}`, 'idempotency-key': `pay-${holdId}` },
  });
  assert.equal(confirmed.status, 200);
  await page.locator('#hold-state', { hasText: `Confirmed: the seats are yours (confirmation ${confirmed.json.confirmation_id}).` })
    .waitFor();
  assert.equal(await page.locator('#hold-countdown').isVisible(), false);
  assert.equal(await page.locator('#hold-shop').isVisible(), false);

  // A hold in the quick room runs out; the console lists it beside the seats and their check.
  const quick = await context.newPage();
  await quick.goto(`${foyer.url}/r/quick`);
  await quick.waitForURL(/\/welcome$/, { timeout: 30000 });
  await quick.locator('#seats').waitFor({ state: 'visible' });
  await quick.getByRole('button', { name: 'Hold seats' }).click();
  await quick.locator('#hold-state', { hasText: '1 seat is held for you.' }).waitFor();
  await quick.locator('#hold-state', { hasText: 'The hold ran out of time' }).waitFor({ timeout: 30000 });

  const admin = await context.newPage();
  await admin.goto(`${foyer.url}/admin`);
  await admin.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await admin.getByLabel('Admin token').press('Enter');
  const card = (id) => admin.locator(`article[data-room="${id}"]`);
  await card('venue').locator('[data-stat="inventory.confirmed"]', { hasText: '2' }).waitFor();
  const stat = (id, name) => card(id).locator(`[data-stat="inventory.${name}"]`).textContent();
  assert.deepEqual([await stat('venue', 'total'), await stat('venue', 'available'), await stat('venue', 'held')], ['6', '4', '0']);
  assert.equal(await card('venue').locator('.seats-check').textContent(), 'holds');
  assert.equal(await card('venue').locator('.seats-expired').isVisible(), false);
  assert.match(await card('quick').locator('.seats-expired').textContent(), /^Holds that ran out: 1 seat at .+\.$/);
  assert.deepEqual(problems, []);
});

test('a visitor on the waitlist sees their place on the waiting page, then their seats once they come back', async (t) => {
  const foyer = new Foyer({
    server: { site_token: SITE_TOKEN },
    rooms: [{ id: 'line', name: 'Two seats', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 2, waitlist: 1 } }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  // Someone else is admitted too, and holds both seats once the browser's visitor has a pass.
  const ticket = (await foyer.join('line')).json.ticket;
  let pass;
  await eventually(async () => (pass = (await foyer.status(ticket, 'line')).json.pass), { what: 'the first pass' });
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 900 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.goto(`${foyer.url}/r/line`);
  await page.waitForURL(/\/welcome$/, { timeout: 30000 });
  await page.locator('#seats').waitFor({ state: 'visible' });
  const first = await foyer.request('POST', '/api/v1/rooms/line/holds',
    { body: { seats: 2 }, headers: { authorization: `Bearer ${pass}`, 'idempotency-key': 'first' } });
  assert.equal(first.status, 201, first.text);
  await page.getByRole('button', { name: 'Hold seats' }).click();
  await page.locator('#hold-state', { hasText: 'you are number 1 on the waitlist' }).waitFor();

  const room = await context.newPage();
  await room.goto(`${foyer.url}/r/line`);
  await room.locator('#title', { hasText: 'You are on the waitlist' }).waitFor();
  assert.match(await room.locator('#lead').textContent(), /^You are number 1 on the waitlist for 1 seat\./);
  assert.equal(await room.locator('#countdown-label').textContent(), 'Your place on the waitlist lasts');
  await screenshot(room, 'room-waitlisted');

  const released = await foyer.request('POST', `/api/v1/rooms/line/holds/${first.json.hold_id}/release`,
    { headers: { authorization: `Bearer ${SITE_TOKEN}`, 'idempotency-key': 'give-back' } });
  assert.equal(released.json.state, 'released');
  // The waitlist's polls are 2 s apart, an admitted visitor's up to 30 s.
  await room.locator('#title', { hasText: 'Your seats are held' }).waitFor({ timeout: 10000 });
  assert.match(await room.locator('#lead').textContent(), /^1 seat is yours while you pay\./);
  assert.deepEqual(problems, []);
});
