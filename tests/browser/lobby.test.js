// The lobby in a real browser: visitors wait for the opening with a countdown, the
// lottery draws their places, and the verify page recomputes the same place from the
// receipt, with WebCrypto on a secure origin and with plain JS on a plain-HTTP one.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { PLAIN_HOST, eventually, joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';

const VISITORS = 3;
const ADMIN_TOKEN = 'lobby-test-token-0123456789';

test('lobby visitors are drawn by lottery and the verify page recomputes their place', async (t) => {
  // The opening is an hour away; the test closes the lobby once everyone is in.
  const opensAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000);
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    rooms: [{
      id: 'launch', name: 'Launch day', rate_per_minute: 600, target_url: '/welcome',
      opens_at: opensAt.toISOString().replace('.000Z', 'Z'),
    }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  // Others in the lobby, so that the draw has something to shuffle.
  for (let i = 0; i < 5; i++) await joinByApi(foyer, 'launch');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const visitors = [];
  for (let i = 0; i < VISITORS; i++) {
    const context = await browser.newContext({ viewport: { width: 720, height: 640 } });
    const page = await watchedPage(context, problems);
    const visitor = { context, page, place: null, receipt: null };
    // What the server told this visitor, read before the page gets it (a page that
    // navigates away takes its response bodies with it).
    await page.route(/\/api\/v1\/rooms\/launch\/(join|status)$/, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      if (route.request().url().endsWith('/join')) visitor.receipt = body.receipt;
      else if (body.place != null) visitor.place = body.place;
      await route.fulfill({ response });
    });
    visitors.push(visitor);
    await page.goto(`${foyer.url}/r/launch`);
  }
  for (const { page } of visitors) {
    await page.locator('#countdown').waitFor({ state: 'visible' });
    assert.match(await page.locator('#countdown-clock').textContent(), /^(1:00:00|59:[0-5]\d)$/);
    assert.equal(await page.locator('#title').textContent(), 'You are in the lobby');
  }
  await screenshot(visitors[0].page, 'lobby');
  const closed = await foyer.request('POST', '/api/v1/admin/rooms/launch/close-lobby',
    { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(closed.status, 200);

  // A reload asks at once, and keeps the ticket (the next test watches a page notice the
  // close by itself). After the draw each visitor is given a place and admitted at 10 a second.
  for (const visitor of visitors) await visitor.page.reload();
  for (const visitor of visitors) {
    await visitor.page.waitForURL(/\/welcome$/, { timeout: 10000 });
    assert.ok(visitor.receipt, 'the join gave a receipt');
    assert.equal(typeof visitor.place, 'number');
  }
  const places = visitors.map((v) => v.place);
  assert.equal(new Set(places).size, VISITORS);
  assert.ok(places.every((p) => p >= 0 && p < 5 + VISITORS), `places ${places}`);

  // The verify page, prefilled with the visitor's own receipt, recomputes the same place.
  for (const visitor of visitors) {
    const page = visitor.page;
    await page.goto(`${foyer.url}/verify?room=launch`);
    await eventually(async () => (await page.locator('#receipt').inputValue()).includes('"entrant_id"'),
      { what: 'the prefilled receipt' });
    await page.locator('#seed-check.pass').waitFor();
    // No beacon: the page says the organiser-grinding guarantee is absent.
    assert.ok(await page.locator('#no-beacon').isVisible());
    assert.match(await page.locator('#no-beacon').textContent(), /could have added entrants of their own/);
    assert.equal(await page.locator('#operator-beacon').isVisible(), false);
    await page.getByRole('button', { name: 'Check this receipt' }).click();
    await page.locator('#place-result[data-place]').waitFor();
    assert.equal(Number(await page.locator('#place-result').getAttribute('data-place')), visitor.place);
    assert.equal(await page.locator('#verdict').getAttribute('class'), 'result pass');
    assert.equal(await page.locator('.checks .pass').count(), 5, 'all five checks pass, the signature included');
    assert.match(await page.locator('#hashes').textContent(), /WebCrypto/);
  }
  await screenshot(visitors[0].page, 'verify');

  // On plain HTTP there is no WebCrypto: anyone pastes a receipt and the pure-JS hashes
  // give the same place; the Ed25519 signature is honestly left unchecked.
  const stranger = await browser.newContext({ viewport: { width: 720, height: 640 } });
  const page = await watchedPage(stranger, problems);
  const plainUrl = `http://${PLAIN_HOST}:${foyer.port}/verify`;
  await page.goto(plainUrl);
  assert.equal(await page.evaluate(() => Boolean(globalThis.crypto.subtle)), false);
  await page.locator('#seed-check.pass').waitFor();
  await page.locator('#receipt').fill(JSON.stringify(visitors[1].receipt));
  await page.getByRole('button', { name: 'Check this receipt' }).click();
  await page.locator('#place-result[data-place]').waitFor();
  assert.equal(Number(await page.locator('#place-result').getAttribute('data-place')), visitors[1].place);
  // The unchecked signature is not counted as passed: no "every check passed" verdict.
  assert.equal(await page.locator('#verdict').getAttribute('class'), 'result skipped');
  assert.match(await page.locator('#verdict').textContent(), /^4 of 5 checks passed and none failed/);
  assert.equal(await page.locator('.checks .skipped').count(), 1);
  assert.match(await page.locator('#hashes').textContent(), /plain JavaScript/);

  // A tampered receipt fails.
  const forged = { ...visitors[1].receipt, lobby_index: (visitors[1].receipt.lobby_index + 1) % (5 + VISITORS) };
  await page.locator('#receipt').fill(JSON.stringify(forged));
  await page.getByRole('button', { name: 'Check this receipt' }).click();
  await page.locator('#verdict.fail').waitFor();
  await screenshot(page, 'verify-plain-http');
  assert.deepEqual(problems, []);
});

test('a lobby closed early shows the number drawn within one poll, without a reload', async (t) => {
  // The opening an hour away: the status would next be asked in half a minute. One a
  // minute after the draw: nobody is admitted while the test looks.
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    rooms: [{
      id: 'launch', name: 'Launch day', rate_per_minute: 1, target_url: '/welcome',
      opens_at: new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000).toISOString().replace('.000Z', 'Z'),
    }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'launch');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  let place = null;
  await page.route(/\/api\/v1\/rooms\/launch\/status$/, async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    if (body.place != null) place = body.place;
    await route.fulfill({ response });
  });
  await page.goto(`${foyer.url}/r/launch`);
  await page.locator('#countdown').waitFor({ state: 'visible' });
  const closed = await foyer.request('POST', '/api/v1/admin/rooms/launch/close-lobby',
    { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(closed.status, 200);
  const closedAt = Date.now();

  await page.locator('#drawn').waitFor({ state: 'visible', timeout: 10_000 });
  assert.ok(Date.now() - closedAt < 10_000, 'noticed within one of the lobby\'s polls');
  assert.equal(await page.locator('#title').textContent(), 'You are in the queue');
  assert.equal(typeof place, 'number');
  assert.equal(await page.locator('#drawn').textContent(), `Drawn: number ${place + 1} of 4`);
  assert.equal(await page.locator('#place').textContent(), String(place + 1));
  assert.equal(await page.locator('#countdown').isVisible(), false);
  assert.deepEqual(problems, []);
});
