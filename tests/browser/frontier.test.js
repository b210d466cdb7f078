// Polling a CDN can absorb, in a real browser: far from the front the waiting page polls
// the room's cacheable frontier and works out its own position, switches to its status
// where the server said (frontier_above), and is admitted from there; a sale that ends
// while a visitor is far back shows at once, from the frontier alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';
import { eventually, launchBrowser, watchedPage } from './helpers.js';

const ADMIN_TOKEN = 'frontier-test-token-0123456789';
const PRE_JOINED = 40;

// Which of a page's polls went where, in order: 's' for status, 'f' for the frontier.
function pollLog(page) {
  const log = [];
  page.on('request', (req) => {
    const { pathname } = new URL(req.url());
    if (pathname.endsWith('/status')) log.push('s');
    if (pathname.endsWith('/frontier')) log.push('f');
  });
  return log;
}

test('far back the page polls the frontier, near the front its status, and a sale that ends far back shows at once', async (t) => {
  const room = (id) => ({ id, name: id, rate_per_minute: 120, target_url: '/welcome' });
  const foyer = new Foyer({
    // Within 5 places, or 1 s of admission at two a second: from position 5 on, status.
    server: { admin_token: ADMIN_TOKEN, status_within_places: 5, status_within_seconds: 1 },
    rooms: [room('far'), room('gone')],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  for (let i = 0; i < PRE_JOINED; i++) {
    assert.equal((await foyer.join('far')).status, 201);
    assert.equal((await foyer.join('gone')).status, 201);
  }
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext();
  const problems = [];

  const page = await watchedPage(context, problems);
  const polls = pollLog(page);
  const ahead = [];
  page.on('response', async (res) => {
    if (!new URL(res.url()).pathname.endsWith('/status')) return;
    const body = await res.json().catch(() => null);
    if (body?.frontier_above != null) ahead.push(body.frontier_above);
  });
  // Both visitors start at once, far back: the queues move at two a second.
  const late = await watchedPage(context, problems);
  const latePolls = pollLog(late);
  await Promise.all([page.goto(`${foyer.url}/r/far`), late.goto(`${foyer.url}/r/gone`)]);

  // A visitor far back in a room that sells out learns it from the frontier.
  await eventually(() => latePolls.filter((p) => p === 'f').length >= 2, { timeoutMs: 20000, what: 'frontier polls' });
  const sold = await foyer.request('POST', '/api/v1/admin/rooms/gone/sold-out', {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'idempotency-key': 'sell-out' },
  });
  assert.equal(sold.status, 200, sold.text);
  const before = latePolls.length;
  await late.locator('#title', { hasText: 'Sold out' }).waitFor({ timeout: 10000 });
  assert.deepEqual(latePolls.slice(before), latePolls.slice(before).map(() => 'f'), latePolls.join(''));

  const shown = [];
  await eventually(async () => {
    if (page.url().endsWith('/welcome')) return true;
    const text = await page.locator('#ahead').textContent({ timeout: 200 }).catch(() => null);
    if (text && text !== shown.at(-1)) shown.push(text);
    return false;
  }, { timeoutMs: 40000, what: 'admission' });
  const sequence = polls.join('');
  // The frontier once for the clock, status to learn the place and the switch, the frontier
  // while far, then status to the pass.
  assert.match(sequence, /^fs+f{3,}s+$/, sequence);
  assert.deepEqual([...new Set(ahead)], [5]);
  const positions = shown.map(Number);
  assert.ok(positions.length >= 3, `positions seen: ${shown}`);
  assert.deepEqual(positions, [...positions].sort((a, b) => b - a), `positions seen: ${shown}`);
  assert.deepEqual(problems, []);
});
