// Lanes in a real browser: a presale code typed on the waiting page joins the members'
// lane, a wrong one is refused with the server's words and no ticket, too many wrong ones
// close the form for the server's Retry-After; a refused invite is said as such; a room
// open to code holders or invited visitors only; the console's Lanes panel declares,
// changes and removes lanes and generates, downloads and revokes a batch of codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Foyer, call } from '../lib/foyer.js';
import { joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';
import { solveSync } from '../../web/js/pow.js';

const ADMIN_TOKEN = 'lanes-browser-token-0123456789';
const CODE = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

// One slow room, so that visitors stay waiting while the page is looked at; `null` lanes: none.
function presale(lanes = { members: { name: "Members' presale", share: 0.3 } }, settings = {}) {
  return new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 1, target_url: '/welcome', ...(lanes ? { lanes } : {}), ...settings }],
    proof_of_work: { base_bits: 4 },
  });
}

async function generate(foyer, batch, count) {
  const res = await call(`${foyer.url}/api/v1/admin/rooms/sale/codes`, 'POST',
    { bearer: ADMIN_TOKEN, body: { batch, lane: 'members', count } });
  assert.equal(res.status, 201, res.text);
  return res.json.generated;
}

async function visitorPage(t) {
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 900 } }), problems);
  return { page, problems };
}

// A visitor's page, with the body of every join it sends to the room "sale".
async function pageRecordingJoins(t) {
  const { page, problems } = await visitorPage(t);
  const joins = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/api/v1/rooms/sale/join')) joins.push(req.postDataJSON());
  });
  return { page, problems, joins };
}

test('a visitor types a presale code: a wrong one is refused and kept, the right one joins the members lane', async (t) => {
  const foyer = presale();
  t.after(() => foyer.cleanup());
  await foyer.start();
  const [code] = await generate(foyer, 'members-1', 3);
  // Visitors in the general lane ahead: both lanes wait, so both have a share now.
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'sale');
  const { page, problems, joins } = await pageRecordingJoins(t);

  await page.goto(`${foyer.url}/r/sale`);
  const form = page.locator('#code-form');
  await form.waitFor({ state: 'visible' });
  assert.equal(await page.locator('#title').textContent(), 'Join the queue');
  assert.equal(await page.getByRole('button', { name: 'Join the queue without a code' }).isVisible(), true);
  assert.equal(joins.length, 0, 'nobody joins before the visitor chooses');

  const field = page.getByLabel('Access code');
  await field.fill('AAAA-AAAA-AAAA-AAAA');
  await page.getByRole('button', { name: 'Join with this code' }).click();
  const error = page.locator('#code-error[role="alert"]');
  await error.filter({ hasText: /\S/ }).waitFor();
  // The server's own words, the code still typed, and no ticket kept.
  const refusal = await foyer.join('sale', { code: 'AAAA-AAAA-AAAA-AAAA' });
  assert.equal(refusal.json.error, 'invalid_code');
  assert.equal(await error.textContent(), refusal.json.detail);
  assert.equal(await field.inputValue(), 'AAAA-AAAA-AAAA-AAAA');
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.equal(joins.at(-1).code, 'AAAA-AAAA-AAAA-AAAA');
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('foyer:room:sale') ?? '{}').ticket ?? null), null);
  await screenshot(page, 'lanes-code-refused');

  // Typed as read out over the phone: lower case, spaces for hyphens.
  await field.fill(code.toLowerCase().replace(/-/g, ' '));
  await field.press('Enter');
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#code-form').isVisible(), false);
  assert.equal(await page.locator('#lane').textContent(), "Members' presale");
  // The first in the members' lane, whatever the general lane's length.
  assert.equal(await page.locator('#place').textContent(), '1');
  assert.equal(await page.locator('#lanes-split').textContent(),
    "Places are shared between the queues: General 70 % · Members' presale 30 %");
  assert.ok(await page.evaluate(() => JSON.parse(localStorage.getItem('foyer:room:sale')).ticket));
  const batches = await call(`${foyer.url}/api/v1/admin/rooms/sale/codes`, 'GET', { bearer: ADMIN_TOKEN });
  assert.equal(batches.json.batches[0].codes_redeemed, 1);
  await screenshot(page, 'lanes-members');

  // A reload keeps the place in the lane: no form, no new join.
  const count = joins.length;
  await page.reload();
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#lane').textContent(), "Members' presale");
  assert.equal(joins.length, count);
  assert.deepEqual(problems, []);
});

test('a room open to code holders only shows the form as the only way in', async (t) => {
  const foyer = presale({ general: { entry: 'invite' }, members: { name: 'Members', share: 0.5 } });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const [code] = await generate(foyer, 'members-1', 1);
  const { page, problems } = await visitorPage(t);
  await page.goto(`${foyer.url}/r/sale`);
  await page.locator('#code-form').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#title').textContent(), 'Enter your access code');
  assert.equal(await page.locator('#action').isVisible(), false);
  // An empty form asks for the code instead of joining without one.
  await page.getByRole('button', { name: 'Join with this code' }).click();
  assert.equal(await page.locator('#code-error').textContent(), 'Enter your access code.');
  await page.getByLabel('Access code').fill(code);
  await page.getByRole('button', { name: 'Join with this code' }).click();
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#lane').textContent(), 'Members');
  assert.deepEqual(problems, []);
});

test('the console lists the lanes, changes a share live, and generates, downloads and revokes codes', async (t) => {
  const foyer = presale();
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 2; i++) await joinByApi(foyer, 'sale');
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1200, height: 1000 }, acceptDownloads: true });
  const page = await watchedPage(context, problems);
  await page.goto(`${foyer.url}/admin#token=${ADMIN_TOKEN}`);
  const panel = page.locator('article[data-room="sale"] .lanes');
  await panel.waitFor({ state: 'visible' });
  const row = (id) => panel.locator(`.lanes-table tr[data-lane="${id}"]`);
  await row('members').waitFor();
  const cells = (id) => row(id).locator('th, td[data-key]').allTextContents();
  assert.deepEqual(await cells('general'), ['General', 'open', '70 %', '100 %', '2', '0', '2', '0', '0']);
  assert.deepEqual(await cells('members'), ["Members' presale", 'access code', '30 %', '30 %', '0', '0', '0', '0', '0']);

  // A live change of the members' share, in per cent.
  await row('members').getByRole('button', { name: "Edit the lane Members' presale" }).click();
  const share = panel.getByLabel('Share (%)');
  assert.equal(await share.inputValue(), '30');
  await share.fill('40');
  await panel.getByRole('button', { name: 'Save the lane' }).click();
  await panel.locator('.lane-status', { hasText: "Saved Members' presale: 40 % of admission." }).waitFor();
  const admin = await call(`${foyer.url}/api/v1/admin/rooms/sale`, 'GET', { bearer: ADMIN_TOKEN });
  assert.deepEqual(admin.json.config.lanes.members,
    { name: "Members' presale", share: 0.4, priority: false, entry: 'code', claim_window_seconds: 0, hold_seconds: 0, max_seats_per_pass: 0 });
  await row('members').locator('td[data-key="share"]', { hasText: '40 %' }).waitFor();

  // Shares over a whole are refused: the server's words beside the form, the 90 still typed.
  await row('general').getByRole('button', { name: 'Edit the lane General' }).click();
  await share.fill('90');
  await panel.getByRole('button', { name: 'Save the lane' }).click();
  const refused = await call(`${foyer.url}/api/v1/admin/rooms/sale`, 'PATCH', {
    bearer: ADMIN_TOKEN, body: { lanes: { general: { name: 'General', share: 0.9, entry: 'open', priority: false } } },
  });
  assert.ok(refused.status >= 400, refused.text);
  await panel.locator('.lane-form-error', { hasText: refused.json.detail }).waitFor();
  assert.equal(await share.inputValue(), '90');
  assert.equal((await call(`${foyer.url}/api/v1/admin/rooms/sale`, 'GET', { bearer: ADMIN_TOKEN })).json.config.lanes.general, undefined);
  await panel.getByRole('button', { name: 'Cancel' }).click();

  // A batch of five codes, shown once, then as a row with its CSV.
  await panel.getByLabel('Batch id').fill('vip');
  await panel.getByRole('combobox', { name: /^Lane/ }).selectOption('members');
  await panel.getByLabel('Codes', { exact: true }).fill('5');
  await panel.getByRole('button', { name: 'Generate codes' }).click();
  const fresh = panel.getByLabel('Generated codes');
  await fresh.waitFor();
  const codes = (await fresh.inputValue()).split('\n');
  assert.equal(codes.length, 5);
  for (const code of codes) assert.match(code, CODE);
  const batchRow = panel.locator('.batches tr[data-batch="vip"]');
  await batchRow.waitFor();
  assert.deepEqual(await batchRow.locator('th, td[data-key]').allTextContents(), ['vip', "Members' presale", '5', '0', '0', 'live']);
  await screenshot(page, 'admin-lanes');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    batchRow.getByRole('button', { name: 'Download CSV' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'sale-vip.csv');
  const rows = readFileSync(await download.path(), 'utf8').trim().split('\r\n');
  assert.equal(rows[0], 'code,sha256,uses,first_redeemed_at,revoked');
  assert.deepEqual(rows.slice(1).map((line) => line.split(',')[0]).sort(), [...codes].sort());

  // A code used by a visitor shows as redeemed; revoking the batch stops the rest.
  const challenge = await foyer.request('POST', '/api/v1/rooms/sale/challenge');
  assert.equal((await foyer.join('sale', { ...solveSync(challenge.json.challenge), code: codes[0] })).status, 201);
  await batchRow.locator('td[data-key="codes_redeemed"]', { hasText: '1' }).waitFor();
  await batchRow.getByRole('button', { name: 'Revoke' }).click();
  await page.locator('#confirm-text', { hasText: 'Revoke every code of batch vip?' }).waitFor();
  await page.locator('#confirm-ok').click();
  await batchRow.locator('td[data-key="revoked"]', { hasText: 'revoked' }).waitFor();
  assert.equal(await batchRow.getByRole('button', { name: 'Revoke' }).isVisible(), false);
  assert.equal((await foyer.join('sale', { code: codes[1] })).json.error, 'invalid_code');
  assert.deepEqual(problems, []);
});

test('a refused invite is said as such and dropped: the code form is still a way in', async (t) => {
  const foyer = presale();
  t.after(() => foyer.cleanup());
  await foyer.start();
  const [code] = await generate(foyer, 'members-1', 1);
  const { page, problems, joins } = await pageRecordingJoins(t);
  await page.goto(`${foyer.url}/r/sale?invite=not-a-signed-invite`);
  await page.locator('#code-form').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#title').textContent(), 'Your invitation was not accepted');
  assert.equal(await page.locator('#lead').textContent(),
    'The link may have expired or been used already: ask the site for a new one. ' +
    'If you were given an access code, you can enter it instead.');
  // Not the code's refusal: no code was typed.
  assert.equal(await page.locator('#code-error').textContent(), '');
  assert.equal(await page.getByRole('button', { name: 'Join the queue without a code' }).isVisible(), true);
  assert.deepEqual(joins.map((body) => body.invite), ['not-a-signed-invite']);
  await screenshot(page, 'lanes-invite-refused');

  // The code joins the members' lane: the refused invite is not sent again.
  await page.getByLabel('Access code').fill(code);
  await page.getByRole('button', { name: 'Join with this code' }).click();
  await page.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#lane').textContent(), "Members' presale");
  assert.equal(joins.at(-1).invite, undefined);
  assert.equal(joins.at(-1).code, code);
  assert.deepEqual(problems, []);
});

test('a room for invited visitors only: a refused invite leaves no form, and no invite is asked for', async (t) => {
  const foyer = presale({ general: { entry: 'invite' }, access: { name: 'Access', share: 0.2, entry: 'invite' } });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const { page, problems, joins } = await pageRecordingJoins(t);
  await page.goto(`${foyer.url}/r/sale?invite=not-a-signed-invite`);
  await page.locator('#title', { hasText: 'Your invitation was not accepted' }).waitFor();
  assert.equal(await page.locator('#code-form').isVisible(), false);
  assert.equal(await page.locator('#action').isVisible(), false);
  assert.equal(joins.length, 1);

  await page.goto(`${foyer.url}/r/sale`);
  await page.locator('#title', { hasText: 'Invitation needed' }).waitFor();
  assert.equal(await page.locator('#lead').textContent(),
    'This queue takes invited visitors only: join through the link the site gives you.');
  assert.equal(await page.locator('#code-form').isVisible(), false);
  assert.equal(joins.length, 1, 'no join is tried without an invite');
  assert.deepEqual(problems, []);
});

test('too many codes tried from a network close the form for the server\'s Retry-After, not as a wrong code', async (t) => {
  const foyer = presale();
  t.after(() => foyer.cleanup());
  await foyer.start();
  const { page, problems, joins } = await pageRecordingJoins(t);
  await page.goto(`${foyer.url}/r/sale`);
  const field = page.getByLabel('Access code');
  await field.fill('AAAA-AAAA-AAAA-AAAA');
  // The network's refusals for the minute, spent from this same address; then the one
  // that comes back first, so that the next waits the longest.
  const wrongCode = () => foyer.join('sale', { code: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ' });
  while ((await wrongCode()).status !== 429);
  while ((await wrongCode()).status === 429) await new Promise((resolve) => setTimeout(resolve, 100));
  const [limited] = await Promise.all([
    page.waitForResponse((res) => res.url().endsWith('/api/v1/rooms/sale/join')),
    page.getByRole('button', { name: 'Join with this code' }).click(),
  ]);
  assert.equal(limited.status(), 429);
  const seconds = Number(await limited.headerValue('retry-after'));
  assert.ok(seconds >= 1);
  // Said as a wait, the form closed meanwhile, checked at one instant.
  const unit = seconds === 1 ? 'second' : 'seconds';
  await page.waitForFunction((text) => document.getElementById('code-error').textContent === text &&
    document.getElementById('code-submit').disabled && document.getElementById('code').disabled,
  `Too many codes were tried from your network. Wait ${seconds} ${unit}, then try again.`);
  assert.equal(await field.getAttribute('aria-invalid'), 'false');
  assert.equal(await field.inputValue(), 'AAAA-AAAA-AAAA-AAAA');
  await screenshot(page, 'lanes-codes-limited');
  // Then it opens again by itself, the code still typed, with no join sent meanwhile.
  await page.getByRole('button', { name: 'Join with this code' }).waitFor({ timeout: seconds * 1000 + 5000 });
  assert.equal(await page.locator('#code-submit').isEnabled(), true);
  assert.equal(await field.isEnabled(), true);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'code');
  assert.equal(joins.length, 1);
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('foyer:room:sale') ?? '{}').ticket ?? null), null);
  assert.deepEqual(problems, []);
});

test('the console declares lanes, changes one, and shows why one with visitors waiting cannot be removed', async (t) => {
  // Seats on sale, so that a lane may hold them longer than the room does.
  const foyer = presale(null, { inventory: { total: 100 } });
  t.after(() => foyer.cleanup());
  await foyer.start();
  await joinByApi(foyer, 'sale');
  const admin = (method, body) => call(`${foyer.url}/api/v1/admin/rooms/sale`, method, { bearer: ADMIN_TOKEN, body });
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 1200, height: 1000 } }), problems);
  const patches = [];
  page.on('request', (req) => {
    if (req.method() === 'PATCH') patches.push(req.postDataJSON());
  });
  await page.goto(`${foyer.url}/admin#token=${ADMIN_TOKEN}`);
  const panel = page.locator('article[data-room="sale"] .lanes');
  await panel.locator('.lanes-none').waitFor({ state: 'visible' });
  assert.equal(await panel.locator('.lanes-table').isVisible(), false);
  assert.equal(await panel.locator('.codes').isVisible(), false);
  const form = panel.locator('.lane-form');
  const field = (label) => form.getByLabel(label, { exact: true });
  const row = (id) => panel.locator(`.lanes-table tr[data-lane="${id}"]`);
  const cells = (id) => row(id).locator('th, td[data-key]').allTextContents();

  // A members' presale with codes, and a claim window, a hold time and seats per pass of its own.
  await panel.getByRole('button', { name: 'Add a lane' }).click();
  assert.equal(await form.locator('h4').textContent(), 'New lane');
  assert.equal(await page.evaluate(() => document.activeElement.name), 'id');
  await field('Id').fill('members');
  await field('Name (optional)').fill('Members');
  await field('Share (%)').fill('30');
  const entry = form.getByRole('combobox', { name: /^Entry/ });
  assert.equal(await entry.inputValue(), 'code');
  await field('Claim window in seconds (optional)').fill('900');
  await field('Hold time in seconds (optional)').fill('1200');
  await field('Seats per pass (optional)').fill('2');
  await form.getByRole('button', { name: 'Add the lane' }).click();
  await panel.locator('.lane-status', { hasText: 'Added Members, with 30 % of admission.' }).waitFor();
  assert.deepEqual(patches.at(-1), {
    lanes: { members: { name: 'Members', share: 0.3, entry: 'code', priority: false, claim_window_seconds: 900, hold_seconds: 1200, max_seats_per_pass: 2 } },
  });
  await row('members').waitFor();
  assert.deepEqual(await cells('general'), ['General', 'open', '70 %', '100 %', '1', '0', '1', '0', '0']);
  assert.deepEqual(await cells('members'), ['Members', 'access code', '30 %', '30 %', '0', '0', '0', '0', '0']);
  assert.equal(await panel.locator('.codes').isVisible(), true);

  // An invite-only quota admitted first: both shown as such.
  await panel.getByRole('button', { name: 'Add a lane' }).click();
  await field('Id').fill('access');
  await field('Share (%)').fill('10');
  await entry.selectOption('invite');
  await form.getByLabel('Priority: admitted first, up to its share').check();
  await form.getByRole('button', { name: 'Add the lane' }).click();
  await row('access').waitFor();
  assert.deepEqual(await cells('access'), ['access priority', 'invite only', '10 %', '10 %', '0', '0', '0', '0', '0']);
  assert.deepEqual((await admin('GET')).json.config.lanes.access,
    { name: 'access', share: 0.1, priority: true, entry: 'invite', claim_window_seconds: 0, hold_seconds: 0, max_seats_per_pass: 0 });

  // Shares past the whole: refused beside the form, everything typed kept.
  await panel.getByRole('button', { name: 'Add a lane' }).click();
  await field('Id').fill('staff');
  await field('Name (optional)').fill('Staff');
  await field('Share (%)').fill('80');
  await form.getByRole('button', { name: 'Add the lane' }).click();
  await form.locator('.lane-form-error', { hasText: /\S/ }).waitFor();
  const tooMuch = await admin('PATCH', patches.at(-1));
  assert.ok(tooMuch.status >= 400, tooMuch.text);
  assert.equal(await form.locator('.lane-form-error').textContent(), tooMuch.json.detail);
  assert.deepEqual([await field('Id').inputValue(), await field('Name (optional)').inputValue(), await field('Share (%)').inputValue()],
    ['staff', 'Staff', '80']);
  assert.equal(await form.isVisible(), true);
  await form.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await form.isVisible(), false);

  // A change of share sends that setting only.
  await row('members').getByRole('button', { name: 'Edit the lane Members' }).click();
  assert.equal(await field('Claim window in seconds (optional)').inputValue(), '900');
  assert.equal(await field('Hold time in seconds (optional)').inputValue(), '1200');
  assert.equal(await field('Seats per pass (optional)').inputValue(), '2');
  assert.equal(await field('Id').getAttribute('readonly'), '');
  await field('Share (%)').fill('40');
  await form.getByRole('button', { name: 'Save the lane' }).click();
  await panel.locator('.lane-status', { hasText: 'Saved Members: 40 % of admission.' }).waitFor();
  assert.deepEqual(patches.at(-1), { lanes: { members: { share: 0.4 } } });
  await row('members').locator('td[data-key="share"]', { hasText: '40 %' }).waitFor();

  // A visitor waits in the members' lane: removing it is refused, in the server's words.
  const [code] = await generate(foyer, 'members-1', 1);
  const challenge = await foyer.request('POST', '/api/v1/rooms/sale/challenge');
  assert.equal((await foyer.join('sale', { ...solveSync(challenge.json.challenge), code })).status, 201);
  await row('members').locator('td[data-key="waiting"]', { hasText: '1' }).waitFor();
  await row('members').getByRole('button', { name: 'Edit the lane Members' }).click();
  await form.getByRole('button', { name: 'Remove the lane' }).click();
  await page.locator('#confirm-text', { hasText: 'Remove the lane Members? Nobody can join it any more.' }).waitFor();
  await page.locator('#confirm-ok').click();
  const kept = await admin('PATCH', { lanes: { members: null } });
  assert.match(kept.json.detail, /share of 0/);
  await form.locator('.lane-form-error', { hasText: kept.json.detail }).waitFor();
  assert.equal(await form.isVisible(), true);
  assert.equal((await admin('GET')).json.config.lanes.members.share, 0.4);
  await screenshot(page, 'admin-lanes-refused');
  await form.getByRole('button', { name: 'Cancel' }).click();

  // An empty lane goes; its funnel stays, marked removed, with nothing left to edit.
  await row('access').getByRole('button', { name: 'Edit the lane access' }).click();
  await form.getByRole('button', { name: 'Remove the lane' }).click();
  await page.locator('#confirm-ok').click();
  await panel.locator('.lane-status', { hasText: 'Removed access.' }).waitFor();
  await row('access').locator('th', { hasText: 'access (removed)' }).waitFor();
  assert.equal(await row('access').locator('td[data-key="entry"]').textContent(), '');
  assert.equal(await row('access').getByRole('button').count(), 0);
  assert.equal((await admin('GET')).json.config.lanes.access, undefined);

  // At phone width the panel and its open form fit the screen.
  await page.setViewportSize({ width: 360, height: 740 });
  await panel.getByRole('button', { name: 'Add a lane' }).click();
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= 360), true);
  await screenshot(page, 'admin-lanes-phone');
  assert.deepEqual(problems, []);
});
