// The verify page's "check the whole draw" on a lobby of 10,000: the record is written by
// the independent test writer (tests/lib/ledger-writer.js) and served with web/ from a
// loopback server under the server's CSP, as the real server publishes it (the server's
// ledger is not on this branch yet). The progress bar moves, every check passes, the
// timeline is drawn; a swapped pair of entrants fails the lobby check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { TestLedger } from '../lib/ledger-writer.js';
import { launchBrowser, screenshot, watchedPage } from './helpers.js';

const web = fileURLToPath(new URL('../../web/', import.meta.url));
const ROOM = 'drop';
const LOBBY = 10_000;
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

// web/ and the API answers the verify page reads, beside the published record.
async function serve(files) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let name = decodeURIComponent(url.pathname.slice(1));
    let body = files.get(name);
    let type = body === undefined ? null : name.startsWith('api/') ? 'application/json' : 'application/octet-stream';
    if (body === undefined) {
      if (name === 'verify') name = 'verify.html';
      const file = path.join(web, name);
      if (file.startsWith(web) && existsSync(file) && path.extname(file)) {
        body = readFileSync(file);
        type = TYPES[path.extname(file)];
      }
    }
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{}');
      return;
    }
    res.writeHead(200, { 'content-type': type, 'content-security-policy': CSP }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

function record({ swap = false } = {}) {
  const ledger = new TestLedger({ origin: 'queue.example/ledger' });
  const ids = Array.from({ length: LOBBY }, () => randomBytes(16));
  const { seed, root, key } = ledger.draw({ room: ROOM, entrants: ids, beacon: { kind: 'operator', value: '5eed' } });
  const files = ledger.files();
  files.set('api/v1/rooms', JSON.stringify({ rooms: [{ id: ROOM, name: 'The drop' }] }));
  files.set(`api/v1/rooms/${ROOM}`, JSON.stringify({ id: ROOM, name: 'The drop' }));
  files.set(`api/v1/rooms/${ROOM}/lottery`, JSON.stringify({
    state: 'drawn', commitment: createHash('sha256').update(seed).digest('hex'), lobby_size: LOBBY, lobby_root: root.toString('hex'), seed: seed.toString('hex'),
    key: key.toString('hex'), beacon_rule: 'operator', beacon: '5eed',
  }));
  if (swap) {
    const bundlePath = `ledger/lobbies/${ROOM}/tile/entries/020`;
    const bundle = Buffer.from(files.get(bundlePath));
    const first = Buffer.from(bundle.subarray(2, 18));
    bundle.copy(bundle, 2, 20, 36);
    first.copy(bundle, 20);
    files.set(bundlePath, bundle);
  }
  return files;
}

// Runs the audit; returns every value the progress bar took, as the page set them.
async function runAudit(page) {
  await page.evaluate(() => {
    window.progressSeen = [];
    const bar = document.getElementById('audit-progress');
    new MutationObserver(() => window.progressSeen.push(bar.value)).observe(bar, { attributes: true, attributeFilter: ['value'] });
  });
  await page.locator('#audit').click();
  await page.locator('#audit-verdict.pass, #audit-verdict.fail').waitFor();
  return page.evaluate(() => window.progressSeen);
}

test('the verify page checks a whole lobby of 10,000 and draws its timeline', async (t) => {
  const server = await serve(record());
  t.after(() => server.close());
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
  assert.equal(await page.locator('#audit-verdict').getAttribute('class'), 'result pass');
  const statuses = await page.locator('#audit-checks li .pass, #audit-checks li .fail').allTextContents();
  assert.equal(statuses.length, 15);
  assert.deepEqual(new Set(statuses), new Set(['passed']));
  assert.match(await page.locator('[data-check="places"]').textContent(), /all 10000 places recomputed/);
  assert.equal(await page.locator('#audit-progress').isHidden(), true);

  // The timeline: commit, witnessed, close, witnessed, reveal, in that order, as SVG.
  const events = await page.locator('#timeline svg g.event').evaluateAll((gs) => gs.map((g) => g.dataset.event));
  assert.deepEqual(events, ['commit', 'witnessedCommit', 'close', 'witnessedClose', 'reveal']);
  assert.match(await page.locator('#timeline svg g.witnessedClose title').textContent(), /witness\.one .*\n.*witness\.two/);
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
  const server = await serve(record({ swap: true }));
  t.after(() => server.close());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await watchedPage(await browser.newContext(), []);
  await page.goto(`${server.url}/verify?room=${ROOM}`);
  await page.locator('#f-seed', { hasText: /^[0-9a-f]{64}$/ }).waitFor();
  await runAudit(page);
  assert.equal(await page.locator('#audit-verdict').getAttribute('class'), 'result fail');
  assert.match(await page.locator('[data-check="lobby tiles"]').textContent(), /FAILED.*tile\/0\/020 differs/s);
});
