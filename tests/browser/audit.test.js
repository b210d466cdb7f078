// The verify page's "check the whole draw" on a lobby of 10,000, drawn by the real binary
// (tests/lib/real-draw.js: two Go witnesses, the recorded drand round) and read from it:
// the progress bar moves, every check passes, the timeline is drawn. Through a loopback
// proxy that swaps two entrants of a lobby bundle, the lobby check fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';

import { runDraw } from '../lib/real-draw.js';
import { launchBrowser, screenshot, watchedPage } from './helpers.js';

const LOBBY = 10_000;

// A loopback proxy in front of the server that answers `rewrite(path, bytes)` for a GET.
async function proxy(target, rewrite) {
  const server = createServer(async (req, res) => {
    const upstream = await fetch(target + req.url, { headers: { accept: req.headers.accept ?? '*/*' } });
    const headers = Object.fromEntries([...upstream.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)));
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, headers).end(rewrite(new URL(req.url, 'http://x').pathname, body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

// The draw, shared by both tests.
let drawn;
const draw = () => (drawn ??= runDraw({ entrants: LOBBY }));
test.after(async () => (await drawn)?.close());

// Runs the audit; returns every value the progress bar took, as the page set them.
async function runAudit(page) {
  await page.evaluate(() => {
    window.progressSeen = [];
    const bar = document.getElementById('audit-progress');
    new MutationObserver(() => window.progressSeen.push(bar.value)).observe(bar, { attributes: true, attributeFilter: ['value'] });
  });
  await page.locator('#audit').click();
  await page.locator('#audit-verdict.pass, #audit-verdict.fail, #audit-verdict.absent').waitFor();
  return page.evaluate(() => window.progressSeen);
}

test('the verify page checks a whole lobby of 10,000 and draws its timeline', async (t) => {
  const { foyer: server, room: ROOM } = await draw();
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.goto(`${server.url}/verify?room=${ROOM}`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();

  const started = Date.now();
  const progress = await runAudit(page);
  t.diagnostic(`whole-draw audit of ${LOBBY} entrants in the browser: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.ok(progress.filter((v) => v > 0 && v < 1).length >= 10, `the progress bar moved: ${progress.join(' ')}`);
  // Nothing pinned: the keys' checks are absent, everything else passed.
  assert.equal(await page.locator('#audit-verdict').getAttribute('class'), 'result absent');
  const statuses = await page.locator('#audit-checks li .pass, #audit-checks li .fail, #audit-checks li .absent').allTextContents();
  assert.equal(statuses.length, 16);
  assert.deepEqual(statuses.filter((x) => x !== 'passed'), ['absent', 'absent']);
  assert.match(await page.locator('[data-check="places"]').textContent(), /all 10000 places recomputed/);
  assert.equal(await page.locator('#audit-progress').isHidden(), true);

  // The timeline: commit, witnessed, close, witnessed, the round, reveal, in that order, as SVG.
  const events = await page.locator('#timeline svg g.event').evaluateAll((gs) => gs.map((g) => g.dataset.event));
  assert.deepEqual(events, ['commit', 'witnessedCommit', 'close', 'witnessedClose', 'beacon', 'reveal']);
  assert.match(await page.locator('#timeline svg g.witnessedClose title').textContent(), /witness-a\.example .*\n.*witness-b\.example/);
  assert.match(await page.locator('#fr-size').textContent(), /10,000/);
  assert.match(await page.locator('#fr-uniformity').textContent(), /p = 0\.\d{3}/);
  // Nothing pushes the page sideways, at desktop or phone width.
  for (const width of [900, 375]) {
    await page.setViewportSize({ width, height: 1000 });
    const { content, window } = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, window: innerWidth }));
    assert.ok(content <= window, `${width}: content ${content} > window ${window}`);
  }
  await page.setViewportSize({ width: 900, height: 1000 });
  await page.locator('#audit-heading').scrollIntoViewIfNeeded();
  await screenshot(page, 'verify-whole-draw');

  // ?vkey= pins the ledger key: another key than the published one fails the audit.
  await page.goto(`${server.url}/verify?room=${ROOM}&vkey=${encodeURIComponent('other+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')}`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();
  await runAudit(page);
  assert.match(await page.locator('[data-check="ledger key"]').textContent(), /FAILED.*is not the pinned other\+/s);
  assert.deepEqual(problems, []);
});

test('the verify page fails a lobby with two entrants swapped', async (t) => {
  const { foyer, room: ROOM } = await draw();
  // Entrants 0 and 1 of the lobby's second bundle swapped.
  const server = await proxy(foyer.url, (p, body) => {
    if (!p.startsWith(`/ledger/lobbies/${ROOM}/tile/entries/001`)) return body;
    const out = Buffer.from(body);
    body.copy(out, 2, 20, 36);
    body.copy(out, 20, 2, 18);
    return out;
  });
  t.after(() => server.close());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await watchedPage(await browser.newContext(), []);
  await page.goto(`${server.url}/verify?room=${ROOM}`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();
  await runAudit(page);
  assert.equal(await page.locator('#audit-verdict').getAttribute('class'), 'result fail');
  assert.match(await page.locator('[data-check="lobby tiles"]').textContent(), /FAILED.*tile\/0\/001 differs/s);
});
