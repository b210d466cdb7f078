// "Your turn" email through the operator's SMTP relay: `foyer notify test-email` sends a
// notice to a real SMTP server on loopback (Debian's python3-aiosmtpd, tests/support/
// smtp_server.py) with STARTTLS to a self-signed certificate the config trusts, and AUTH.
// The message is read back with Python's own mail parser: headers decoded, body decoded,
// the link found. Relays that refuse the recipient, hang, lack STARTTLS or refuse the login
// end the command with the outcome, never with the address or the password in its output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runFoyer } from '../lib/foyer.js';
import { certificate, relay } from '../support/smtp_relay.js';

const TO = 'visitor.one@example.org';
const USER = 'mailer';
const PASSWORD = 'relay-password-93c1';
const ROOM = 'Été concert — doors';
const LINK = 'https://tickets.example.com/r/concert?resume=' + 'k'.repeat(90);

function scratch(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-email-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A config with one room and [notifications.email] as given; `server`: more [server] lines.
function config(dir, email, server = '') {
  const file = path.join(dir, `foyer-${Math.random().toString(36).slice(2)}.toml`);
  let text = `[server]\nlisten = "127.0.0.1:8080"\n${server}[[rooms]]\nid = "concert"\nname = ${JSON.stringify(ROOM)}\n` +
    'rate_per_minute = 60\ntarget_url = "/go"\n[notifications.email]\n';
  for (const [k, v] of Object.entries(email)) text += `${k} = ${JSON.stringify(v)}\n`;
  writeFileSync(file, text);
  return file;
}

function secureEmail(dir, port, ca, extra = {}) {
  const passwordFile = path.join(dir, 'smtp-password');
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  return { host: '127.0.0.1', port, from: 'rooms@shop.example.com', username: USER, password_file: passwordFile,
    ca_file: ca, timeout_ms: 10000, ...extra };
}

function assertNoSecrets(result) {
  const output = result.stdout + result.stderr;
  assert.ok(!output.includes(TO), `the address is in the output: ${output}`);
  assert.ok(!output.includes('visitor.one'), output);
  assert.ok(!output.includes(PASSWORD), output);
}

test('a notice goes through STARTTLS and AUTH PLAIN, and reads back as sent: headers, body, link', async (t) => {
  const dir = scratch(t);
  const { key, cert } = certificate(dir);
  const r = await relay(t, dir, ['--cert', cert, '--key', key, '--user', USER, '--password', PASSWORD]);
  const file = config(dir, secureEmail(dir, r.port, cert));
  const result = await runFoyer(['notify', 'test-email', '--config', file, '--to', TO, '--notice', 'soon',
    '--minutes', '7', '--link', LINK]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /delivered through relay 127\.0\.0\.1:\d+/);
  assertNoSecrets(result);

  const [m, ...more] = r.messages();
  assert.equal(more.length, 0);
  assert.equal(m.tls, true);
  assert.equal(m.login, USER);
  assert.equal(m.mail_from, 'rooms@shop.example.com');
  assert.deepEqual(m.rcpt_tos, [TO]);
  const msg = m.message;
  assert.deepEqual(msg.defects, []);
  assert.equal(msg.from, 'rooms@shop.example.com');
  assert.equal(msg.to, TO);
  assert.equal(msg.subject, `Your turn at ${ROOM} in about 7 minutes`);
  assert.equal(msg.date_valid, true);
  assert.match(msg['message-id'], /^<[0-9a-f]{32}@shop\.example\.com>$/);
  assert.equal(msg['mime-version'], '1.0');
  assert.equal(msg.content_type, 'text/plain');
  assert.equal(msg.charset, 'utf-8');
  assert.equal(msg['content-transfer-encoding'], 'quoted-printable');
  assert.equal(msg['auto-submitted'], 'auto-generated');
  assert.ok(msg.longest_line <= 78, `a line of ${msg.longest_line} characters`);
  const body = msg.body.replace(/\r\n/g, '\n');
  assert.ok(body.includes(`Your turn at ${ROOM} comes in about 7 minutes.`), body);
  assert.ok(body.split('\n').includes(LINK), body);
  // Sent as 7-bit text: the UTF-8 travels encoded.
  assert.ok([...m.raw].every((b) => b < 0x80));
});

test('without --link the notice links to the room at [server] public_url, else at the listen address, with a warning', async (t) => {
  const dir = scratch(t);
  const r = await relay(t, dir, []);
  const email = { host: '127.0.0.1', port: r.port, from: 'rooms@shop.example.com', starttls: false };
  for (const [server, link] of [['public_url = "https://queue.example.com:8443"\n', 'https://queue.example.com:8443/r/concert'],
    ['', 'http://127.0.0.1:8080/r/concert']]) {
    const before = r.messages().length;
    const result = await runFoyer(['notify', 'test-email', '--config', config(dir, email, server), '--to', TO]);
    assert.equal(result.code, 0, result.stderr);
    const m = r.messages()[before];
    assert.ok(m.message.body.replace(/\r\n/g, '\n').split('\n').includes(link), m.message.body);
    // The listen address is no visitor's: the command says which setting names theirs.
    const warned = /warning: \[server\] public_url is not set .* start with http:\/\/127\.0\.0\.1:8080, the listen address/;
    assert.equal(warned.test(result.stderr), server === '', result.stderr);
  }
});

test('AUTH LOGIN where the relay offers no PLAIN; the turn notice', async (t) => {
  const dir = scratch(t);
  const { key, cert } = certificate(dir);
  const r = await relay(t, dir, ['--cert', cert, '--key', key, '--user', USER, '--password', PASSWORD,
    '--exclude-auth', 'PLAIN']);
  const result = await runFoyer(['notify', 'test-email', '--config', config(dir, secureEmail(dir, r.port, cert)),
    '--to', TO, '--link', LINK]);
  assert.equal(result.code, 0, result.stderr);
  const [m] = r.messages();
  assert.equal(m.login, USER);
  assert.equal(m.message.subject, `It's your turn at ${ROOM}`);
  assert.ok(m.message.body.replace(/\r\n/g, '\n').split('\n').includes(LINK));
});

test('a relay that refuses the recipient: gone, and its reply quoting the address is not shown', async (t) => {
  const dir = scratch(t);
  const { key, cert } = certificate(dir);
  const r = await relay(t, dir, ['--cert', cert, '--key', key, '--user', USER, '--password', PASSWORD, '--refuse-rcpt']);
  const result = await runFoyer(['notify', 'test-email', '--config', config(dir, secureEmail(dir, r.port, cert)),
    '--to', TO]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /gone: relay 127\.0\.0\.1:\d+: RCPT TO: 550 5\.1\.1/);
  assertNoSecrets(result);
  assert.equal(r.messages().length, 0);
});

test('a relay that never answers: failed, within the timeout', async (t) => {
  const dir = scratch(t);
  const sockets = new Set();
  const silent = net.createServer((s) => sockets.add(s));
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => { for (const s of sockets) s.destroy(); silent.close(); });
  const timeout = 1500;
  const file = config(dir, { host: '127.0.0.1', port: silent.address().port, from: 'rooms@shop.example.com',
    timeout_ms: timeout });
  const started = Date.now();
  const result = await runFoyer(['notify', 'test-email', '--config', file, '--to', TO]);
  const took = Date.now() - started;
  assert.equal(result.code, 1);
  assert.match(result.stderr, /failed: relay 127\.0\.0\.1:\d+: greeting: timed out/);
  assert.ok(sockets.size === 1, 'the relay was reached');
  assert.ok(took >= timeout - 100 && took < timeout + 1000, `took ${took} ms`);
});

test('STARTTLS is required: a relay without it, or with an untrusted certificate, gets nothing', async (t) => {
  const dir = scratch(t);
  const plain = await relay(t, dir, []);
  let result = await runFoyer(['notify', 'test-email', '--config',
    config(dir, { host: '127.0.0.1', port: plain.port, from: 'rooms@shop.example.com' }), '--to', TO]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /failed: relay 127\.0\.0\.1:\d+: the relay does not offer STARTTLS/);
  assert.equal(plain.messages().length, 0);

  const { key, cert } = certificate(dir);
  const tls = await relay(t, dir, ['--cert', cert, '--key', key, '--user', USER, '--password', PASSWORD]);
  const untrusted = secureEmail(dir, tls.port, cert);
  delete untrusted.ca_file;
  result = await runFoyer(['notify', 'test-email', '--config', config(dir, untrusted), '--to', TO]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /failed: relay 127\.0\.0\.1:\d+: TLS handshake: .*certificate/);
  assertNoSecrets(result);
  assert.equal(tls.messages().length, 0);
});

test('a wrong password is refused by the relay and reported without the password', async (t) => {
  const dir = scratch(t);
  const { key, cert } = certificate(dir);
  const r = await relay(t, dir, ['--cert', cert, '--key', key, '--user', USER, '--password', 'another-one']);
  const result = await runFoyer(['notify', 'test-email', '--config', config(dir, secureEmail(dir, r.port, cert)),
    '--to', TO]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /failed: relay 127\.0\.0\.1:\d+: AUTH PLAIN: 535 5\.7\.8/);
  assertNoSecrets(result);
  assert.equal(r.messages().length, 0);
});

test('starttls = false reaches a loopback relay in the clear; an address that could inject is refused', async (t) => {
  const dir = scratch(t);
  const r = await relay(t, dir, []);
  const file = config(dir, { host: '127.0.0.1', port: r.port, starttls: false, from: 'rooms@shop.example.com' });
  let result = await runFoyer(['notify', 'test-email', '--config', file, '--to', TO]);
  assert.equal(result.code, 0, result.stderr);
  const [m] = r.messages();
  assert.equal(m.tls, false);
  assert.deepEqual(m.rcpt_tos, [TO]);

  result = await runFoyer(['notify', 'test-email', '--config', file, '--to', `${TO}>\r\nRCPT TO:<other@example.org`]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /--to: not a plain address/);
  assert.equal(r.messages().length, 1);
});
