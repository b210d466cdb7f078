// "Your turn" notices, end to end on the real binary: a visitor opts in by Web Push and by
// email, closes the tab (never polls again), and hears of their turn when it comes. The push
// goes to a push service on loopback that decrypts it with http_ece and checks its VAPID token
// with jose (tests/support/push_service.js); the email goes through a real SMTP relay on
// loopback, Debian's aiosmtpd (tests/support/smtp_relay.js). The mailed resume link, opened by
// a client that never held the ticket, lands on the same place and through to a pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, until } from '../lib/foyer.js';
import { startNoticeRoom } from '../support/notice_room.js';
import { relay } from '../support/smtp_relay.js';

const TOKEN = 'notices-test-admin-token-0123';
const ADDRESS = 'visitor.one@example.org';
const admin = (f, p) => f.request('POST', `/api/v1/admin/rooms/hall/${p}`, { headers: { authorization: `Bearer ${TOKEN}` } });
const optIn = (f, ticket, body) => f.request('POST', '/api/v1/rooms/hall/notifications', { ticket, body });

function scratch(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notices-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function metric(f, line) {
  const text = (await f.request('GET', '/metrics')).text;
  const m = text.split('\n').find((l) => l.startsWith(line + ' '));
  return m === undefined ? undefined : Number(m.split(' ').at(-1));
}

test('a visitor who closed the tab gets "it\'s your turn" by push and by email, and the mailed link lands on their place', async (t) => {
  const dir = scratch(t);
  const { f, service, smtp } = await startNoticeRoom(t, dir, { server: { admin_token: TOKEN } });

  const info = (await f.request('GET', '/api/v1/rooms/hall')).json.notifications;
  assert.deepEqual(info.channels, ['push', 'email']);
  assert.match(info.vapid_public_key, /^[A-Za-z0-9_-]{87}$/);

  // Admission is held while the visitor joins and opts in, then they close the tab.
  assert.equal((await admin(f, 'pause')).status, 200);
  const joined = (await f.join('hall')).json;
  const s = service.subscribe();
  const push = await optIn(f, joined.ticket, { push: { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } } });
  assert.equal(push.status, 201, push.text);
  const mail = await optIn(f, joined.ticket, { email: ADDRESS });
  assert.equal(mail.status, 201, mail.text);
  assert.equal(service.received.length, 0, 'nothing is sent while admission is held');

  assert.equal((await admin(f, 'resume')).status, 200);
  const pushed = await until('the turn pushed', () => service.received
    .map((m) => (m.payload ? JSON.parse(m.payload) : null)).find((p) => p?.kind === 'turn'), 20000);
  assert.equal(pushed.room, 'hall');
  assert.equal(pushed.title, "It's your turn");
  assert.match(pushed.body, /^Concert hall: it's your turn/);
  assert.equal(pushed.url, `${f.url}/r/hall`);
  assert.ok(service.received.every((m) => m.error === undefined), JSON.stringify(service.received.map((m) => m.error)));
  assert.equal(service.received[0].vapid.claims.sub, 'mailto:ops@example.com');
  // Signed by the key the page subscribes with.
  assert.equal(service.received[0].vapid.key, info.vapid_public_key);

  const turn = await until('the turn mailed', () => smtp.messages().find((m) => /your turn/i.test(m.message.subject)
    && !/in about/.test(m.message.subject)), 20000);
  assert.deepEqual(turn.rcpt_tos, [ADDRESS]);
  assert.equal(turn.message.from, 'rooms@shop.example.com');
  const link = /http:\/\/127\.0\.0\.1:\d+\/r\/hall\/resume\/[A-Za-z0-9_-]+/.exec(turn.message.body)?.[0];
  assert.ok(link, turn.message.body);

  // The link opened on another device: the same ticket, admitted, and a pass.
  const forwarded = await fetch(link, { redirect: 'manual' });
  assert.equal(forwarded.status, 303);
  const opened = await fetch(f.url + forwarded.headers.get('location'), { redirect: 'manual' });
  assert.equal(opened.status, 303);
  const cookie = /foyer_ticket=([^;]+)/.exec(opened.headers.get('set-cookie'))?.[1];
  assert.ok(cookie);
  const status = await until('admitted with a pass', async () => {
    const st = await f.request('GET', '/api/v1/rooms/hall/status', { headers: { cookie: `foyer_ticket=${cookie}` } });
    return st.json?.state === 'admitted' && st.json.pass ? st.json : null;
  });
  assert.equal(status.place, joined.place);

  assert.equal(await metric(f, 'foyer_notifications_total{channel="push",outcome="delivered"}') >= 1, true);
  assert.equal(await metric(f, 'foyer_notifications_total{channel="email",outcome="delivered"}') >= 1, true);
  // Once "it's your turn" is out, the contacts are forgotten.
  assert.equal(await metric(f, 'foyer_notification_contacts'), 0);
  assert.ok(!f.output.includes(ADDRESS) && !f.output.includes(s.endpoint), 'a contact reached the log');
});

test('a push service that hangs and a relay that refuses cost their queues, never a join or a poll', async (t) => {
  const dir = scratch(t);
  const { f, service, smtp } = await startNoticeRoom(t, dir, {
    server: { admin_token: TOKEN }, notifications: { max_attempts: 2 }, rate: 600,
    push: { answer: () => 503 }, relayArgs: ['--refuse-rcpt'],
  });
  const joined = (await f.join('hall')).json;
  const s = service.subscribe();
  assert.equal((await optIn(f, joined.ticket, { push: { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } } })).status, 201);
  assert.equal((await optIn(f, joined.ticket, { email: ADDRESS })).status, 201);
  // 503 is tried again, then dropped; the relay's 550 on the address means it is gone.
  await until('the push dropped', async () =>
    (await metric(f, 'foyer_notifications_total{channel="push",outcome="dropped"}')) >= 1, 20000);
  await until('the address gone', async () =>
    (await metric(f, 'foyer_notifications_total{channel="email",outcome="gone"}')) >= 1, 20000);
  assert.ok((await metric(f, 'foyer_notifications_total{channel="push",outcome="failed"}')) >= 2);
  // Joins and polls went on all along.
  const later = await f.join('hall');
  assert.equal(later.status, 201);
  assert.equal((await f.status(later.json.ticket, 'hall')).status, 200);
});

test('an opt-in acknowledged survives kill -9: the mail comes after the restart, once, and the address is then deleted', async (t) => {
  const dir = scratch(t);
  const smtp = await relay(t, dir, []);
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: { email: { host: '127.0.0.1', port: smtp.port, from: 'rooms@shop.example.com', starttls: false } },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 60, target_url: '/welcome' }],
  });
  t.after(() => f.cleanup());
  await f.start();
  const turns = () => smtp.messages().filter((m) => /your turn/i.test(m.message.subject) && !/in about/.test(m.message.subject));

  // Admission is held; the visitor opts in and closes the tab; the server dies at once.
  assert.equal((await admin(f, 'pause')).status, 200);
  const joined = (await f.join('hall')).json;
  const mail = await optIn(f, joined.ticket, { email: ADDRESS });
  assert.equal(mail.status, 201, mail.text);
  // The same address again (a page reload) is one opt-in.
  assert.equal((await optIn(f, joined.ticket, { email: ADDRESS })).status, 201);
  await f.kill9();

  await f.start();
  assert.match(f.output, /the contacts of 1 visitor\(s\) are kept from the last run/);
  assert.equal(await metric(f, 'foyer_notification_contacts'), 1);
  assert.equal((await admin(f, 'resume')).status, 200);
  const turn = await until('the turn mailed after the restart', () => turns()[0], 20000);
  assert.deepEqual(turn.rcpt_tos, [ADDRESS]);
  assert.match(turn.message.body, /http:\/\/127\.0\.0\.1:\d+\/r\/hall\/resume\/[A-Za-z0-9_-]+/);
  await until('the contact forgotten', async () => (await metric(f, 'foyer_notification_contacts')) === 0);
  // The deletion is written in the pass that planned the notice; give its sync a moment.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await f.kill9();

  // Restarted again: the address is gone from the store, so nothing is sent twice.
  await f.start();
  assert.equal(await metric(f, 'foyer_notification_contacts'), 0);
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(turns().length, 1);
  assert.ok(!f.output.includes(ADDRESS), 'an address reached the log');
});
