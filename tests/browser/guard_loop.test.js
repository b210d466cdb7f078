// The redirect loop of a guard set up with another issuer than the server's, end to end: the
// real server, real nginx with the shipped snippets and the real `foyer guard` in front of a
// shop. The guard refuses the pass, logs why and tells the waiting room; the page stops the
// loop and names the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { Guard, Nginx, freePort, startUpstream } from '../nginx/harness.js';
import { launchBrowser, screenshot, watchedPage } from './helpers.js';

test('a guard with the wrong issuer: the visitor ends on the reason, not in a loop, and the guard logs it', async (t) => {
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const shopPort = await freePort();
  const foyer = new Foyer({ rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 600, target_url: `http://127.0.0.1:${shopPort}/shop/` }] });
  t.after(() => foyer.cleanup());
  await foyer.start();
  // The README's old example: an issuer that is not the server's (Foyer's default is "foyer").
  const guard = await new Guard(['--jwks', `${foyer.url}/.well-known/jwks.json`, '--room', 'sale',
    '--issuer', 'https://queue.example.com', '--login-url', `${foyer.url}/r/sale`]).start();
  t.after(() => guard.stop());
  const nginx = await new Nginx({ guardPort: guard.port, upstreamPort: upstream.port, port: shopPort }).start();
  t.after(() => nginx.stop());

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  await page.goto(`${foyer.url}/r/sale`);
  await page.locator('#title', { hasText: 'The site did not accept your pass' }).waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#lead').textContent(), /\(reason: wrong_issuer\)/);
  assert.match(page.url(), /\/r\/sale\?foyer_refused=wrong_issuer&next=%2Fshop%2F$/);
  // Sent on twice, each pass checked once at the enter step, then stopped for good.
  assert.equal((await guard.health()).checks, 2);
  await page.waitForTimeout(3000);
  assert.equal((await guard.health()).checks, 2);
  // One line for the two refusals: the second falls within the same 10 s.
  const lines = guard.output().match(/^foyer guard: refused a pass \(wrong_issuer\).*$/gm);
  assert.deepEqual(lines, ["foyer guard: refused a pass (wrong_issuer): its iss is not 'https://queue.example.com', the issuer this guard expects"]);
  await screenshot(page, 'pass-refused-by-guard');
  assert.deepEqual(problems, []);
});
