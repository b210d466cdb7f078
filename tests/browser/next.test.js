// The round trip through the queue, end to end: the real server, real nginx with the shipped
// snippets and the real `foyer guard` in front of a shop. A visitor without a pass asks for a
// page deep in the shop, waits in the room, and lands on that same page once admitted.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { Guard, Nginx, freePort, startUpstream } from '../nginx/harness.js';
import { launchBrowser, watchedPage } from './helpers.js';

test('from a protected page through the queue back to that same page', async (t) => {
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const shopPort = await freePort();
  const shop = `http://127.0.0.1:${shopPort}`;
  const foyer = new Foyer({ rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 600, target_url: `${shop}/shop/` }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const guard = await new Guard(['--foyer', foyer.url, '--room', 'sale', '--login-url', `${foyer.url}/r/sale`]).start();
  t.after(() => guard.stop());
  const nginx = await new Nginx({ guardPort: guard.port, upstreamPort: upstream.port, port: shopPort }).start();
  t.after(() => nginx.stop());

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  const wanted = '/shop/item?color=red&size=9';
  const seen = [];
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) seen.push(frame.url()); });
  await page.goto(`${shop}${wanted}`);
  await page.waitForURL(`${shop}${wanted}`, { timeout: 30_000 });
  const body = JSON.parse(await page.locator('body').textContent());
  assert.equal(body.from, 'upstream');
  assert.equal(body.path, wanted);
  assert.match(body.visitor, /^[0-9a-f]{32}$/);
  // By the waiting room, which the guard told the page asked for.
  assert.ok(seen.includes(`${foyer.url}/r/sale?next=${encodeURIComponent(wanted)}`), seen.join('\n'));
  assert.deepEqual(problems, []);
});
