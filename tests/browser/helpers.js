// Shared by the browser tests: Debian's chromium through playwright-core, screenshots,
// a tiny target site, and visitors joining through the API with a native solve.
import { createServer } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { solveSync } from '../../web/js/pow.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.resolve(here, '../artifacts');
const committed = path.join(here, 'screenshots');
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
// A name that resolves to loopback but is not a secure context: pages there have no crypto.subtle.
export const PLAIN_HOST = 'foyer.test';

if (!existsSync(chromiumPath)) {
  throw new Error(`chromium is missing at ${chromiumPath}: apt-get install chromium (packaging/deps.sh does)`);
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--host-resolver-rules=MAP ${PLAIN_HOST} 127.0.0.1`],
  });
}

/**
 * A page that fails the test on any script error or CSP violation: the pages must run
 * under the server's strict CSP without a single inline script or style.
 */
export async function watchedPage(context, problems) {
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Expected: refusals the pages handle, and the note that COOP needs HTTPS on the plain-HTTP origin.
  const expected = /status of (401|403|404|409|410|422|429)|Cross-Origin-Opener-Policy header has been ignored/;
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  return page;
}

/**
 * Saves a screenshot in tests/artifacts, of the whole page unless `fullPage` is false;
 * with `commit`, also the README's copy in tests/browser/screenshots, so that every run
 * refreshes the pictures the README shows (commit them with the change that moved them).
 */
export async function screenshot(page, name, { commit = false, fullPage = true } = {}) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage, animations: 'disabled' });
  if (commit) await page.screenshot({ path: path.join(committed, `${name}.png`), fullPage, animations: 'disabled' });
}

/**
 * A stand-in for a shop behind Foyer: /shop?foyer_pass=P sets the foyer_pass cookie and
 * redirects to the clean URL (as a site's guard endpoint does); /shop shows a page.
 */
export async function startTarget() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const pass = url.searchParams.get('foyer_pass');
    if (url.pathname === '/shop' && pass) {
      res.writeHead(302, { 'set-cookie': `foyer_pass=${pass}; Path=/; HttpOnly; SameSite=Lax`, location: '/shop' });
      res.end();
      return;
    }
    const hasPass = /(^|; )foyer_pass=/.test(req.headers.cookie ?? '');
    res.writeHead(url.pathname === '/shop' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Shop</title><h1>The shop</h1><p id="pass">${hasPass ? 'pass cookie present' : 'no pass'}</p>`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) };
}

/** Joins `room` as a fresh visitor through the API, solving the challenge natively. */
export async function joinByApi(foyer, room) {
  const challenge = await foyer.request('POST', `/api/v1/rooms/${room}/challenge`);
  if (challenge.status !== 200) throw new Error(`challenge: ${challenge.status} ${challenge.text}`);
  const res = await foyer.join(room, solveSync(challenge.json.challenge));
  if (res.status !== 201) throw new Error(`join: ${res.status} ${res.text}`);
  return res.json;
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually(check, { timeoutMs = 15000, everyMs = 100, what = 'condition' } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
