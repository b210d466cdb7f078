// Lanes in a real browser: a presale code typed on the waiting page joins the members'
// lane, a wrong one is refused with the server's words and no ticket; a room open to
// code holders only; the console's Lanes panel changes a share and generates, downloads
// and revokes a batch of codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Foyer, call } from '../lib/foyer.js';
import { joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';
import { solveSync } from '../../web/js/pow.js';

const ADMIN_TOKEN = 'lanes-browser-token-0123456789';
const CODE = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

// One slow room, so that visitors stay waiting while the page is looked at.
function presale(lanes = { members: { name: "Members' presale", share: 0.3 } }) {
  return new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 1, target_url: '/welcome', lanes }],
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

test('a visitor types a presale code: a wrong one is refused and kept, the right one joins the members lane', async (t) => {
  const foyer = presale();
  t.after(() => foyer.cleanup());
  await foyer.start();
  const [code] = await generate(foyer, 'members-1', 3);
  // Visitors in the general lane ahead: both lanes wait, so both have a share now.
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'sale');
  const { page, problems } = await visitorPage(t);
  const joins = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/api/v1/rooms/sale/join')) joins.push(req.postDataJSON());
  });

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
  assert.deepEqual(await cells('general'), ['General', 'open', '70 %', '100 %', '2', '0', '2']);
  assert.deepEqual(await cells('members'), ["Members' presale", 'access code', '30 %', '30 %', '0', '0', '0']);

  // A live change of the members' share.
  await panel.getByLabel("New share of Members' presale, in per cent").fill('40');
  await row('members').getByRole('button', { name: 'Apply' }).click();
  await panel.locator('.lanes-result', { hasText: "Members' presale now has 40 % of admission." }).waitFor();
  const admin = await call(`${foyer.url}/api/v1/admin/rooms/sale`, 'GET', { bearer: ADMIN_TOKEN });
  assert.equal(admin.json.config.lanes.members.share, 0.4);
  await row('members').locator('td[data-key="share"]', { hasText: '40 %' }).waitFor();

  // Shares over a whole are refused: the server's words, beside the panel.
  await panel.getByLabel('New share of General, in per cent').fill('90');
  await row('general').getByRole('button', { name: 'Apply' }).click();
  await panel.locator('.lanes-result', { hasText: /\S/ }).waitFor();
  assert.equal((await call(`${foyer.url}/api/v1/admin/rooms/sale`, 'GET', { bearer: ADMIN_TOKEN })).json.config.lanes.general, undefined);

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
