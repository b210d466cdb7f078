// The pages at phone width with a long room name that has no spaces: nothing may make
// the page scroll sideways.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { launchBrowser, screenshot, watchedPage } from './helpers.js';

const phone = { width: 375, height: 740 };
const longId = `r${'x'.repeat(63)}`;
const longName = `Grand${'Sale'.repeat(48)}`;

test('a long room name without spaces wraps on /, /r/{room} and /verify at phone width', async (t) => {
  const foyer = new Foyer({
    rooms: [
      { id: longId, name: longName, rate_per_minute: 1, target_url: '/welcome' },
      { id: 'other', name: 'Other', rate_per_minute: 60, target_url: '/welcome' },
    ],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: phone });
  const problems = [];
  const page = await watchedPage(context, problems);
  const overflow = () => page.evaluate(() => ({
    content: document.documentElement.scrollWidth,
    window: window.innerWidth,
  }));

  const pages = [
    ['/', '#rooms li'],
    [`/r/${longId}`, '#figures'],
    [`/verify?room=${longId}`, '#check'],
  ];
  for (const [address, ready] of pages) {
    await page.goto(`${foyer.url}${address}`);
    await page.locator(ready).first().waitFor({ state: 'visible' });
    await page.locator('body', { hasText: 'GrandSaleSale' }).waitFor();
    const { content, window } = await overflow();
    await screenshot(page, `layout${address.replace(/[/?=]/g, '-').slice(0, 24)}`);
    assert.ok(content <= window, `${address}: ${content} px of content in a ${window} px window`);
  }
  assert.deepEqual(problems, []);
});
