// The verify page says what stands behind a drand room's round: two relays that agreed on
// it, or nothing a second relay confirmed (the server never checks its BLS signature
// itself). Real binary, the loopback relay with recorded rounds, rooms whose committed
// round is a recorded one (tests/lib/drand-room.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { drandRoom, lottery, roundIsOut } from '../lib/drand-room.js';
import { startDrandRelay } from '../lib/drand-relay.js';
import { until } from '../lib/foyer.js';
import { launchBrowser, watchedPage } from './helpers.js';

test('the verify page says whether two relays agreed on the drand round', async (t) => {
  const relay = await startDrandRelay();
  const other = await startDrandRelay();
  t.after(() => Promise.all([relay.close(), other.close()]));
  const started = Date.now();
  const [agreeing, single] = await Promise.all([drandRoom([relay.url, other.url]), drandRoom([relay.url])]);
  t.after(async () => {
    for (const f of [agreeing, single]) await f.cleanup();
  });
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext(), problems);
  const check = page.locator('#drand-check');

  // Before the round: not claimed (once the lobby closed, what the draw waits for).
  await page.goto(`${agreeing.url}/verify?room=drop`);
  await check.waitFor();
  assert.match(await check.textContent(),
    /^(No second relay has confirmed the drand round|The draw waits for two configured relays to agree)/);
  assert.equal(await check.getAttribute('class'), 'small absent');

  await roundIsOut(started);
  for (const f of [agreeing, single]) await until('the draw', async () => (await lottery(f)).seed != null, 15_000);
  await page.goto(`${agreeing.url}/verify?room=drop`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();
  // Who agreed is named, for the reader to judge their independence.
  assert.match(await check.textContent(),
    /^Two relays gave the same drand round: http:\/\/127\.0\.0\.1:\d+ and http:\/\/127\.0\.0\.1:\d+\. Whether they are independent/);
  assert.equal(await check.getAttribute('class'), 'small');
  // One relay configured: drawn, and the page says nothing confirmed the round.
  await page.goto(`${single.url}/verify?room=drop`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();
  assert.match(await check.textContent(), /^No second relay has confirmed the drand round/);
  assert.deepEqual(problems, []);
});
