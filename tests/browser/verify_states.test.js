// The verify page's whole-draw check shows three states: a guarantee the draw lacks (no
// beacon, no witnesses) or a key taken from the server itself is "absent", in a colour
// that is not the pass colour, and the verdict never says "every check passed" then. The
// keys to pin go in visible fields. A real lottery room without beacon or witnesses.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { drawnRoom } from '../lib/plain-draw.js';
import { launchBrowser, watchedPage } from './helpers.js';

async function runAudit(page) {
  await page.locator('#audit').click();
  await page.locator('#audit-verdict.pass, #audit-verdict.fail, #audit-verdict.absent').waitFor();
}

const statusOf = (page, check) => page.locator(`[data-check="${check}"] > span:nth-child(2)`);

test('absent guarantees are shown as absent, not passed, and pinned keys go in visible fields', async (t) => {
  const { foyer, room, vkey } = await drawnRoom(t);
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext(), problems);
  await page.goto(`${foyer.url}/verify?room=${room}`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();
  assert.equal(await page.locator('#pin-vkey').isVisible(), true);
  assert.equal(await page.locator('#pin-witnesses').isVisible(), true);

  await runAudit(page);
  for (const check of ['beacon', 'witnessed commit', 'witnessed close', 'ledger key', 'witness keys']) {
    assert.equal(await statusOf(page, check).getAttribute('class'), 'absent', check);
    assert.equal(await statusOf(page, check).textContent(), 'absent', check);
  }
  assert.match(await page.locator('[data-check="beacon"]').textContent(), /could add entrants to steer the draw/);
  assert.equal(await statusOf(page, 'places').getAttribute('class'), 'pass');
  // The absent colour is neither the pass colour nor the fail colour.
  const colour = (check) => statusOf(page, check).evaluate((el) => getComputedStyle(el).color);
  assert.notEqual(await colour('beacon'), await colour('places'));
  const verdict = page.locator('#audit-verdict');
  assert.equal(await verdict.getAttribute('class'), 'result absent');
  assert.doesNotMatch(await verdict.textContent(), /Every check passed/);
  assert.match(await verdict.textContent(), /^9 of 16 checks passed and none failed, but some guarantees are absent/);

  // The ledger key typed in is pinned: that check passes; another key fails it.
  await page.locator('#pin-vkey').fill(vkey);
  await runAudit(page);
  assert.equal(await statusOf(page, 'ledger key').getAttribute('class'), 'pass');
  assert.match(await verdict.textContent(), /^10 of 16 checks passed/);
  await page.locator('#pin-vkey').fill('other+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
  await runAudit(page);
  assert.equal(await statusOf(page, 'ledger key').getAttribute('class'), 'fail');
  assert.equal(await verdict.getAttribute('class'), 'result fail');
  // ?vkey= fills the field.
  await page.goto(`${foyer.url}/verify?room=${room}&vkey=${encodeURIComponent(vkey)}`);
  assert.equal(await page.locator('#pin-vkey').inputValue(), vkey);
  assert.deepEqual(problems, []);
});
