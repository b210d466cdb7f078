// Notices can't be aimed at strangers, on the real binary with a real SMTP relay on loopback
// (tests/support/smtp_relay.js): a ticket gives one address per room, a network's opt-ins are
// counted as its joins are and refused past opt_ins_per_network, and an address hears
// "soon" and "turn" once each per room however many tickets name it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, until } from '../lib/foyer.js';
import { relay } from '../support/smtp_relay.js';

const TOKEN = 'notice-strangers-admin-token-1';
const optIn = (f, ticket, email) => f.request('POST', '/api/v1/rooms/hall/notifications', { ticket, body: { email } });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(t, notifications = {}, room = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notice-strangers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const smtp = await relay(t, dir, []);
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: { email: { host: '127.0.0.1', port: smtp.port, from: 'rooms@shop.example.com', starttls: false }, ...notifications },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 600, target_url: '/welcome', ...room }],
  });
  t.after(() => f.cleanup());
  await f.start();
  return { f, smtp };
}

test('one address per ticket, even after an opt-out; a network past opt_ins_per_network is refused', async (t) => {
  const { f } = await start(t, { opt_ins_per_network: 3 }, { rate_per_minute: 1 });
  const tickets = [];
  for (let i = 0; i < 4; ++i) tickets.push((await f.join('hall')).json.ticket);

  assert.equal((await optIn(f, tickets[0], 'first@example.org')).status, 201);
  // The same again changes nothing and is not counted.
  assert.equal((await optIn(f, tickets[0], 'first@example.org')).status, 201);
  const taken = await optIn(f, tickets[0], 'stranger@example.org');
  assert.equal(taken.status, 409, taken.text);
  assert.equal(taken.json.error, 'contact_taken');
  assert.ok(!taken.text.includes('stranger'), taken.text);
  const out = await f.request('DELETE', '/api/v1/rooms/hall/notifications', { ticket: tickets[0] });
  assert.deepEqual(out.json, { opted_out: true });
  assert.equal((await optIn(f, tickets[0], 'stranger@example.org')).json.error, 'contact_taken');

  // Opt-ins from this network: the first counted, two more, then refused for a while.
  assert.equal((await optIn(f, tickets[1], 'second@example.org')).status, 201);
  assert.equal((await optIn(f, tickets[2], 'third@example.org')).status, 201);
  const limited = await optIn(f, tickets[3], 'fourth@example.org');
  assert.equal(limited.status, 429, limited.text);
  assert.equal(limited.json.error, 'too_many_opt_ins');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
});

test('three tickets naming one address: it hears "soon" once and "turn" once', async (t) => {
  const { f, smtp } = await start(t);
  const joined = [];
  for (let i = 0; i < 3; ++i) joined.push((await f.join('hall')).json);
  for (const j of joined) assert.equal((await optIn(f, j.ticket, 'fan@example.org')).status, 201);
  await until('all admitted', async () => (await f.request('GET', '/api/v1/rooms/hall')).json.served >= 3);
  await until('a turn mailed', () => smtp.messages().some((m) => m.message.subject.startsWith("It's your turn")));
  // Three planning passes more: nothing else comes.
  await sleep(3000);
  const subjects = smtp.messages().map((m) => m.message.subject);
  assert.equal(subjects.filter((s) => s.startsWith("It's your turn")).length, 1, subjects.join('\n'));
  assert.ok(subjects.filter((s) => s.startsWith('Your turn at')).length <= 1, subjects.join('\n'));
  assert.equal(subjects.length, subjects.filter((s) => s.startsWith("It's your turn")).length
    + subjects.filter((s) => s.startsWith('Your turn at')).length);
});

test('confirm = true: a confirmation mail first, nothing else until the holder confirms through its link', async (t) => {
  const { f, smtp } = await start(t, { confirm: true });
  const admin = (p) => f.request('POST', `/api/v1/admin/rooms/hall/${p}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal((await admin('pause')).status, 200);
  // Two visitors; the holder of one address confirms, the other's never does.
  for (const address of ['fan@example.org', 'stranger@example.org']) {
    assert.equal((await optIn(f, (await f.join('hall')).json.ticket, address)).status, 201);
  }
  await until('the confirmations mailed', () => smtp.messages().length >= 2);
  const mail = (to) => smtp.messages().filter((m) => m.rcpt_tos[0] === to);
  const [m] = mail('fan@example.org');
  assert.equal(m.message.subject, 'Confirm notices from Concert hall');
  const body = m.message.body.replace(/\r\n/g, '\n');
  const link = body.split('\n').find((l) => l.includes('/notify/confirm/'));
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/r\/hall\/notify\/confirm\/[0-9a-f]{64}$/);
  // Nothing in it the requester wrote but the address.
  assert.equal(body, 'Someone waiting in Concert hall asked to be told at this address when their turn comes.\n\n'
    + `If that was you, confirm with this link:\n\n${link}\n\nIf not, ignore this email: nothing more will be sent `
    + 'to you for this request, and the address is forgotten when Concert hall ends.\n');

  // Opening the link asks; an altered one is refused; the button confirms.
  const path = new URL(link).pathname;
  const page = await f.request('GET', path);
  assert.equal(page.status, 200);
  assert.match(page.text, /<form method="post">/);
  const altered = path.slice(0, -1) + (path.endsWith('0') ? '1' : '0');
  assert.equal((await f.request('POST', altered)).json.error, 'invalid_confirmation_link');
  const confirmed = await f.request('POST', path);
  assert.equal(confirmed.status, 200, confirmed.text);
  assert.match(confirmed.text, /Notices confirmed/);

  // Both admitted: the confirmed address hears its turn, the other nothing more.
  assert.equal((await admin('resume')).status, 200);
  await until('the turn mailed', () => mail('fan@example.org').some((x) => x.message.subject.startsWith("It's your turn")));
  await until('both admitted', async () => (await f.request('GET', '/api/v1/rooms/hall')).json.served >= 2);
  await sleep(2500);
  assert.deepEqual(mail('stranger@example.org').map((x) => x.message.subject), ['Confirm notices from Concert hall']);
});

test('opt-ins sent at once from one network are held to opt_ins_per_network too', async (t) => {
  const { f } = await start(t, { opt_ins_per_network: 3 });
  const tickets = [];
  for (let i = 0; i < 10; ++i) tickets.push((await f.join('hall')).json.ticket);
  const answers = await Promise.all(tickets.map((ticket, i) => optIn(f, ticket, `fan${i}@example.org`)));
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [201, 201, 201, 429, 429, 429, 429, 429, 429, 429], answers.map((a) => a.text).join('\n'));
});
