// "Keep my place" in a real browser: one context takes the resume link, a second opens it
// and sees the same place; both polling make no second place; the revoked link is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { joinByApi, launchBrowser, screenshot, startTarget, watchedPage } from './helpers.js';

test('resume on a second context: the same place, one place for both, and a revoked link refused', async (t) => {
  const target = await startTarget();
  t.after(() => target.close());
  // One a minute: everyone keeps waiting while the test looks.
  const foyer = new Foyer({ rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 1, target_url: `${target.url}/shop` }],
    proof_of_work: { base_bits: 4 } });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < 3; i++) await joinByApi(foyer, 'sale');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const first = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 900 } }), problems);
  await first.goto(`${foyer.url}/r/sale`);
  await first.locator('#figures').waitFor({ state: 'visible' });
  const place = await first.locator('#place').textContent();
  assert.equal(place, '4');

  await first.locator('#keep-open').click();
  await first.locator('#keep-panel').waitFor({ state: 'visible' });
  const link = await first.locator('#keep-link').inputValue();
  assert.match(link, new RegExp(`^${foyer.url}/r/sale/resume/[A-Za-z0-9_-]+$`));
  // The QR code drew: an SVG image under the page's CSP.
  await first.waitForFunction(() => document.getElementById('keep-qr').naturalWidth > 0);
  await screenshot(first, 'resume-link');

  // A second browser context: no cookie, no storage of the first.
  const second = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  const calls = [];
  second.on('request', (req) => {
    if (req.url().includes('/api/v1/rooms/sale/')) calls.push(`${req.method()} ${new URL(req.url()).pathname}`);
  });
  await second.goto(link);
  await second.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await second.locator('#place').textContent(), place);
  // The link's mark left the address, and the page took the ticket up without a proof of work.
  assert.equal(new URL(second.url()).pathname, '/r/sale');
  assert.equal(new URL(second.url()).search, '');
  assert.ok(!calls.includes('POST /api/v1/rooms/sale/challenge'), calls.join('\n'));
  assert.ok(calls.includes('POST /api/v1/rooms/sale/join'), calls.join('\n'));

  // Both keep polling the one place: the next visitor is fifth, not sixth.
  await second.reload();
  await second.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await second.locator('#place').textContent(), place);
  await first.reload();
  await first.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await first.locator('#place').textContent(), place);
  assert.equal((await joinByApi(foyer, 'sale')).place, 4);

  // Revoked from the first device: the link opens nothing any more.
  await first.locator('#keep-open').click();
  await first.locator('#keep-panel').waitFor({ state: 'visible' });
  assert.equal(await first.locator('#keep-link').inputValue(), link);
  await first.locator('#keep-revoke').click();
  await first.locator('#keep-panel').waitFor({ state: 'hidden' });
  assert.match(await first.locator('#keep-status').textContent(), /no longer works/);
  const third = await watchedPage(await browser.newContext(), problems);
  const refused = await third.goto(link);
  assert.equal(refused.status(), 410);
  assert.equal(JSON.parse(await refused.text()).error, 'resume_link_revoked');
  // The second device still holds the ticket: it waits on.
  await second.reload();
  await second.locator('#figures').waitFor({ state: 'visible' });
  assert.equal(await second.locator('#place').textContent(), place);
  assert.deepEqual(problems, []);
});
