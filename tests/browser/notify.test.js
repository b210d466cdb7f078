// "Notify me" on the waiting page: the visitor opts in, the page registers its service
// worker (/sw.js) and sends its push subscription, which the server stores; then an email
// address; then opts out. Chromium's own push service can't be reached from here, so the
// page is fed a subscription (PushManager.subscribe is replaced before the page loads) of a
// push service on loopback (tests/support/push_service.js, admitted by
// allow_private_push_hosts), which then receives the "soon" notice and decrypts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, startTrusting, until } from '../lib/foyer.js';
import { startPushService } from '../support/push_service.js';
import { launchBrowser, screenshot, watchedPage } from './helpers.js';

const TOKEN = 'notify-browser-token-0123';

test('the visitor opts in: the service worker is registered and the subscription the page sends is stored', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notify-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const service = await startPushService(dir);
  t.after(() => service.close());
  const subscription = service.subscribe();
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: {
      vapid_subject: 'mailto:ops@example.com',
      allow_private_push_hosts: ['127.0.0.1'],
      // No relay listens on port 9: the address is taken, its mail never leaves.
      email: { host: '127.0.0.1', port: 9, from: 'rooms@shop.example.com', starttls: false },
    },
    rooms: [{ id: 'slow', name: 'Slow sale', rate_per_minute: 1, target_url: '/welcome' }],
  });
  t.after(() => f.cleanup());
  await startTrusting(f, service.cert);
  const notices = async () =>
    (await f.request('GET', '/api/v1/admin/rooms/slow', { headers: { authorization: `Bearer ${TOKEN}` } })).json.notifications;

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 720, height: 900 } });
  await context.grantPermissions(['notifications'], { origin: f.url });
  await context.addInitScript(({ endpoint, p256dh, auth }) => {
    const fake = { endpoint, toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }) };
    let subscribed = null;
    if (globalThis.PushManager) {
      PushManager.prototype.subscribe = async () => { subscribed = fake; return fake; };
      PushManager.prototype.getSubscription = async () => subscribed;
    }
  }, subscription);
  const problems = [];
  const page = await watchedPage(context, problems);
  await page.goto(`${f.url}/r/slow`);
  await page.locator('#notify-push').waitFor({ state: 'visible', timeout: 30_000 });
  await page.click('#notify-push');
  await page.locator('#notify-status', { hasText: 'Notices are on for this device.' }).waitFor({ timeout: 15_000 });

  const worker = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration('/');
    return { script: registration?.active?.scriptURL, scope: registration?.scope };
  });
  assert.equal(worker.script, `${f.url}/sw.js`);
  assert.equal(worker.scope, `${f.url}/`);
  assert.deepEqual((await notices()).held, { push: 1, email: 0 });
  // The visitor's turn is a minute away: the push service gets "soon", for this subscription.
  const soon = await until('the soon notice pushed', () => service.received.find((m) => m.payload), 15_000);
  assert.equal(soon.error, undefined);
  assert.equal(JSON.parse(soon.payload).kind, 'soon');

  await page.fill('#notify-email', 'ada@example.org');
  await page.click('#notify-email-form button[type=submit]');
  await page.locator('#notify-status', { hasText: 'We will email you.' }).waitFor();
  assert.deepEqual((await notices()).held, { push: 1, email: 1 });
  await screenshot(page, 'notify-opted-in');

  await page.click('#notify-off');
  await page.locator('#notify-status', { hasText: 'Notices are off.' }).waitFor();
  assert.deepEqual((await notices()).held, { push: 0, email: 0 });
  assert.deepEqual(problems, []);
});
