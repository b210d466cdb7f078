// "Notify me" on the waiting page: the visitor opts in, the page registers its service
// worker (/sw.js) and sends its push subscription, which the server stores; then an email
// address; then opts out. And the whole way: an address given on the page, the tab closed,
// the turn mailed through a real relay (aiosmtpd), the link opened in a second browser
// context, which lands on the same place and goes through to the shop. Chromium's own push service can't be reached from here, so the
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
import { relay } from '../support/smtp_relay.js';
import { launchBrowser, screenshot, startTarget, watchedPage } from './helpers.js';

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

test('an address given on the page, the tab closed: the turn is mailed, and its link opens the place in another browser', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notify-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const smtp = await relay(t, dir, []);
  const target = await startTarget();
  t.after(() => target.close());
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: { email: { host: '127.0.0.1', port: smtp.port, from: 'rooms@shop.example.com', starttls: false } },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 60, target_url: `${target.url}/shop` }],
  });
  t.after(() => f.cleanup());
  await f.start();
  const admin = (p) => f.request('POST', `/api/v1/admin/rooms/hall/${p}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal((await admin('pause')).status, 200);

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const first = await browser.newContext({ viewport: { width: 720, height: 900 } });
  const page = await watchedPage(first, problems);
  await page.goto(`${f.url}/r/hall`);
  await page.locator('#notify-email-form').waitFor({ state: 'visible', timeout: 30_000 });
  const place = await page.locator('#place').textContent();
  await page.fill('#notify-email', 'ada@example.org');
  await page.click('#notify-email-form button[type=submit]');
  await page.locator('#notify-status', { hasText: 'We will email you.' }).waitFor();
  await first.close();

  assert.equal((await admin('resume')).status, 200);
  const mail = await until('the turn mailed', () => smtp.messages().find((m) => !/in about/.test(m.message.subject)), 20_000);
  assert.deepEqual(mail.rcpt_tos, ['ada@example.org']);
  const link = new RegExp(`${f.url}/r/hall/resume/[A-Za-z0-9_-]+`).exec(mail.message.body)?.[0];
  assert.ok(link, mail.message.body);

  const second = await watchedPage(await browser.newContext({ viewport: { width: 720, height: 640 } }), problems);
  await second.goto(link);
  await second.waitForURL(`${target.url}/shop`, { timeout: 30_000 });
  assert.equal(await second.locator('#pass').textContent(), 'pass cookie present');
  assert.equal(place, '1');
  assert.deepEqual(problems, []);
});
