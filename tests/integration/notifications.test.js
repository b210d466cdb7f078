// "Your turn" notifications on the real binary: a visitor's ticket opts into Web Push or
// email; bad input is refused with problem details; the contact is held in memory only and
// appears in no event, audit line, log line or sink; opt-out forgets it, and so does the
// room's removal. The senders reach nothing here (a relay on a closed port, a push service
// that does not resolve): delivery has its own tests (notices.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Foyer, until } from '../lib/foyer.js';

const TOKEN = 'notifications-test-token-0123';
const ADDRESS = 'ada.lovelace+queue@example.org';
const ENDPOINT = 'https://push.example.net/wpush/v2/secret-endpoint-token-42';
const subscription = { endpoint: ENDPOINT, expirationTime: null, keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
// No relay listens on port 9 of loopback: every send fails and is retried.
const CLOSED_RELAY = { host: '127.0.0.1', port: 9, from: 'rooms@shop.example.com', starttls: false };
const admin = (f, method, p, body) =>
  f.request(method, `/api/v1/admin/rooms${p}`, { body, headers: { authorization: `Bearer ${TOKEN}` } });
const optIn = (f, ticket, body, room = 'slow') =>
  f.request('POST', `/api/v1/rooms/${room}/notifications`, { ticket, body });

function assertProblem(r, status, code, field) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.equal(r.json.error, code);
  assert.equal(r.json.type, `urn:foyer:problem:${code}`);
  if (field !== undefined) assert.equal(r.json.field, field);
}

async function metric(f, line) {
  const text = (await f.request('GET', '/metrics')).text;
  const m = text.split('\n').find((l) => l.startsWith(line + ' '));
  return m === undefined ? undefined : Number(m.split(' ').at(-1));
}

test('a ticket opts into push and email, bad contacts are refused, and opting out forgets them', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notify-'));
  const sinkFile = path.join(dir, 'events.ndjson');
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: { vapid_subject: 'mailto:ops@example.com', email: CLOSED_RELAY },
    rooms: [{ id: 'slow', name: 'Slow', rate_per_minute: 1, target_url: '/welcome' }],
    sinks: [{ type: 'file', path: sinkFile }],
  });
  try {
    await f.start();
    const info = (await f.request('GET', '/api/v1/rooms/slow')).json;
    // No counts for the public: the channels, and the key a page subscribes with.
    assert.deepEqual(Object.keys(info.notifications), ['channels', 'vapid_public_key']);
    assert.deepEqual(info.notifications.channels, ['push', 'email']);

    const ticket = (await f.join('slow')).json.ticket;
    assertProblem(await optIn(f, undefined, { email: ADDRESS }), 401, 'missing_ticket');

    const push = await optIn(f, ticket, { push: subscription });
    assert.equal(push.status, 201, push.text);
    assert.deepEqual(push.json, { channel: 'push', opted_in: true });
    assert.equal((await optIn(f, ticket, { email: ADDRESS })).status, 201);

    // Bad input: problem details naming the field, never echoing the value.
    const cases = [
      [{ push: { ...subscription, endpoint: 'http://push.example.net/x' } }, 'push.endpoint'],
      [{ push: { ...subscription, endpoint: 'https://127.0.0.1:9/x' } }, 'push.endpoint'],
      [{ push: { ...subscription, endpoint: `https://push.example.net/${'x'.repeat(1100)}` } }, 'push.endpoint'],
      [{ push: { ...subscription, keys: { p256dh: 'short', auth: 'A'.repeat(22) } } }, 'push.keys.p256dh'],
      [{ email: 'ada@example.org\r\nBcc: eve@example.org' }, 'email'],
      [{ email: 'not-an-address' }, 'email'],
      [{ email: ADDRESS, push: subscription }, ''],
      [{}, ''],
      [{ phone: '+44 20 7946 0000' }, 'phone'],
      ['not json', ''],
    ];
    for (const [body, field] of cases) {
      const r = await optIn(f, ticket, body);
      assertProblem(r, 422, 'bad_contact', field);
      assert.ok(!r.text.includes('eve@example.org') && !r.text.includes('7946'), r.text);
    }

    // The operator sees counts; a "soon" notice is due at once (one a minute: about a minute away).
    const view = (await admin(f, 'GET', '/slow')).json.notifications;
    assert.deepEqual(view.opted_in, { push: 1, email: 1 });
    assert.deepEqual(view.held, { push: 1, email: 1 });
    await until('the soon notices sent', async () =>
      (await admin(f, 'GET', '/slow')).json.notifications.sent.email === 1);
    assert.deepEqual((await admin(f, 'GET', '/slow')).json.notifications.sent, { push: 1, email: 1 });
    assert.equal(await metric(f, 'foyer_notifications_total{channel="push",outcome="delivered"}'), 0);
    assert.equal(await metric(f, 'foyer_notification_contacts'), 1);

    // Opt-out forgets every contact of the ticket.
    const out = await f.request('DELETE', '/api/v1/rooms/slow/notifications', { ticket });
    assert.equal(out.status, 200, out.text);
    assert.deepEqual(out.json, { opted_out: true });
    assert.deepEqual((await f.request('DELETE', '/api/v1/rooms/slow/notifications', { ticket })).json, { opted_out: false });
    assert.deepEqual((await admin(f, 'GET', '/slow')).json.notifications.held, { push: 0, email: 0 });
    assert.equal(await metric(f, 'foyer_notification_contacts'), 0);

    // Nowhere else: not in the log (the audit reads it), not in the sinks, not in the logs.
    await admin(f, 'POST', '/slow/pause');
    const audit = (await admin(f, 'GET', '/slow/audit')).text;
    await until('the sink caught up', () => existsSync(sinkFile) && readFileSync(sinkFile, 'utf8').includes('paused'));
    for (const [where, text] of [['audit', audit], ['sink', readFileSync(sinkFile, 'utf8')], ['log', f.output]]) {
      assert.ok(!text.includes(ADDRESS) && !text.includes('secret-endpoint-token-42'), `${where} holds a contact`);
    }
  } finally {
    await f.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a removed room takes its visitors\' contacts along', async () => {
  const f = new Foyer({ server: { admin_token: TOKEN }, notifications: { email: CLOSED_RELAY } });
  try {
    await f.start();
    await admin(f, 'POST', '', { id: 'pop', rate_per_minute: 1, target_url: '/welcome' });
    const ticket = (await f.join('pop')).json.ticket;
    assert.equal((await optIn(f, ticket, { email: ADDRESS }, 'pop')).status, 201);
    // Push is not a channel of this server.
    assertProblem(await optIn(f, ticket, { push: subscription }, 'pop'), 404, 'notifications_off');
    assert.equal(await metric(f, 'foyer_notification_contacts'), 1);
    assert.equal((await admin(f, 'DELETE', '/pop?force=true')).status, 200);
    await until('the contacts forgotten', async () => (await metric(f, 'foyer_notification_contacts')) === 0);
  } finally {
    await f.cleanup();
  }
});

test('without [notifications] opt-ins are refused and the room says nothing of them', async () => {
  const f = new Foyer();
  try {
    await f.start();
    const ticket = (await f.join('demo')).json.ticket;
    assertProblem(await optIn(f, ticket, { email: ADDRESS }, 'demo'), 404, 'notifications_off');
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.notifications, undefined);
    assert.equal(await metric(f, 'foyer_notification_contacts'), undefined);
  } finally {
    await f.cleanup();
  }
});
