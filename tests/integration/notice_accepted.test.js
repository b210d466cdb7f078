// "Told means accepted", on the real binary with a real SMTP relay on loopback (Debian's
// aiosmtpd, tests/support/smtp_relay.js): an "it's your turn" counts as told when the relay
// answers 250 to the message, not when it is queued. A relay slow to accept moves the claim
// window's start to its acceptance; a relay that refuses every attempt tells nobody: no
// turn_notified, the notice counted refused, and the visitor who lapses is a no-show but not
// a notified one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, until } from '../lib/foyer.js';
import { relay } from '../support/smtp_relay.js';

const TOKEN = 'notice-accepted-admin-token-01';
const WINDOW_S = 10;  // the least a room may set
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = { authorization: `Bearer ${TOKEN}` };

function scratch(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notice-accepted-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function withRelay(t, relayArgs, notifications = {}) {
  const dir = scratch(t);
  const smtp = await relay(t, dir, relayArgs);
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: { email: { host: '127.0.0.1', port: smtp.port, from: 'rooms@shop.example.com', starttls: false }, ...notifications },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 600, claim_window_seconds: WINDOW_S, target_url: '/welcome' }],
  });
  t.after(() => f.cleanup());
  await f.start();
  return { f, smtp };
}

async function turnsNotified(f) {
  const audit = await f.request('GET', '/api/v1/admin/rooms/hall/audit', { headers: bearer });
  return audit.text.trimEnd().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'turn_notified');
}

const notices = async (f) => (await f.request('GET', '/api/v1/admin/rooms/hall', { headers: bearer })).json.notifications;

test('a relay that accepts 6.5 s late: the claim window runs from its acceptance', async (t) => {
  const { f, smtp } = await withRelay(t, ['--delay-data', '6.5']);
  // Neither polls again after joining: a poll would claim their pass.
  const told = (await f.join('hall')).json;
  const silent = (await f.join('hall')).json;
  const joinedAt = Date.now();
  const optIn = await f.request('POST', '/api/v1/rooms/hall/notifications', { ticket: told.ticket, body: { email: 'fan@example.org' } });
  assert.equal(optIn.status, 201, optIn.text);

  await until('the turn accepted', () => smtp.messages().find((m) => m.message.subject.startsWith("It's your turn")), 15000);
  const [turn] = await turnsNotified(f);
  assert.equal(turn?.place, told.place);
  // Queued within two seconds of the join; told only once the relay said 250, 6.5 s later.
  const accepted = smtp.messages().find((m) => m.message.subject.startsWith("It's your turn")).accepted_at_ms;
  assert.ok(accepted - joinedAt >= 6500, `accepted ${accepted - joinedAt} ms after the join`);

  // Past the window from the admission, inside the one from the acceptance.
  await sleep(joinedAt + 13000 - Date.now());
  const lapsed = await f.status(silent.ticket, 'hall');
  assert.equal(lapsed.json.state, 'expired', lapsed.text);
  const kept = await f.status(told.ticket, 'hall');
  assert.equal(kept.json.state, 'admitted', kept.text);
  assert.ok(kept.json.pass, kept.text);
});

test('a relay that answers 451 to every attempt: no turn_notified, counted refused, not a notified no-show', async (t) => {
  const { f, smtp } = await withRelay(t, ['--answer-data', '451 4.3.0 Try again later'], { max_attempts: 3 });
  const joined = (await f.join('hall')).json;
  const joinedAt = Date.now();
  const optIn = await f.request('POST', '/api/v1/rooms/hall/notifications', { ticket: joined.ticket, body: { email: 'fan@example.org' } });
  assert.equal(optIn.status, 201, optIn.text);

  // "It's your turn" (and perhaps "soon" before it), three attempts each, all refused.
  await until('the turn given up', () => /room 'hall': an "it's your turn" by email was not accepted \(dropped, 3 attempts\)/.test(f.output), 15000);
  await until('every notice given up', async () => { const c = await notices(f); return c.refused.email === c.sent.email; });
  assert.deepEqual(await turnsNotified(f), []);
  const counts = await notices(f);
  assert.equal(counts.delivered.email, 0);
  assert.equal(smtp.refused(), 3 * counts.sent.email);
  assert.equal(smtp.messages().length, 0);

  // The window ran from the admission: they lapse a no-show, not a notified one.
  await sleep(joinedAt + (WINDOW_S + 2) * 1000 - Date.now());
  const lapsed = await f.status(joined.ticket, 'hall');
  assert.equal(lapsed.json.state, 'expired', lapsed.text);
  await until('judged', async () => (await f.request('GET', '/api/v1/rooms/hall')).json.no_shows === 1);
  assert.equal((await notices(f)).notified_no_shows, 0);
  const metrics = (await f.request('GET', '/metrics')).text;
  assert.match(metrics, /^foyer_notified_no_shows_total 0$/m);
  assert.deepEqual(await turnsNotified(f), []);
});
