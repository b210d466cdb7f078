// Events out: [[sinks]] deliver the log's events as signed CloudEvents to a webhook, or
// as NDJSON to a file, off the visitor's path. The receivers here are written for the
// test, on loopback; the signature is checked with node:crypto, independently of Foyer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, until, withFoyer, startTrusting } from '../lib/foyer.js';

const TOKEN = 'sinks-test-admin-token';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SOURCE = '/foyer/sinks-test';
const demo = { id: 'demo', name: 'Demo', rate_per_minute: 600, target_url: '/welcome' };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


function webhook(port, extra = {}) {
  return { type: 'webhook', name: 'hook', url: `http://127.0.0.1:${port}/hook`, secret: SECRET, max_backoff_ms: 200, ...extra };
}

function config(sinks, server = {}) {
  return { server: { admin_token: TOKEN, event_source: SOURCE, ...server }, rooms: [demo], sinks };
}

// The Standard Webhooks check, as a receiver would write it: HMAC-SHA256 with the
// base64-decoded key over "id.timestamp.body", compared with each v1 signature.
function verifySignature(headers, body) {
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest();
  return headers['webhook-signature'].split(' ').some((sig) => {
    const [version, value] = sig.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// A webhook receiver on `port` (0: any): answers `status()` and keeps every request.
async function receiver(port = 0, status = () => 200) {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(status()).end();
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    received,
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}

// An HTTPS receiver with a fresh self-signed certificate for `san` (e.g. "IP:127.0.0.1");
// `cert` is its path, for a Foyer that is to trust it.
async function httpsReceiver(dir, san) {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-days', '1', '-subj', '/CN=foyer-test', '-addext', `subjectAltName=${san}`, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const received = [];
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  const handshakes = [];
  server.on('tlsClientError', (e) => handshakes.push(e.message));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port, cert, received, handshakes,
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}

// A port nothing listens on (connections are refused) until something does.
async function refusedPort() {
  const s = net.createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const admin = (f, action) => f.request('POST', `/api/v1/admin/rooms/demo/${action}`, { headers: { authorization: `Bearer ${TOKEN}` } });

async function pauseResume(f, times) {
  for (let i = 0; i < times; i++) {
    assert.equal((await admin(f, 'pause')).status, 200);
    assert.equal((await admin(f, 'resume')).status, 200);
  }
}

// The room's audit trail: every event of the log, by seq.
async function audit(f) {
  const r = await f.request('GET', '/api/v1/admin/rooms/demo/audit?limit=100000', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.status, 200, r.text);
  return r.text.trimEnd().split('\n').map((l) => JSON.parse(l));
}

async function sinkMetrics(f, sink = 'hook') {
  const text = (await f.request('GET', '/metrics')).text;
  const value = (name) => Number(new RegExp(`^${name}\\{sink="${sink}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  for (const name of ['foyer_sink_queued', 'foyer_sink_delivered_total', 'foyer_sink_dropped_total']) {
    assert.match(text, new RegExp(`^# TYPE ${name} (gauge|counter)$`, 'm'));
  }
  return {
    queued: value('foyer_sink_queued'),
    delivered: value('foyer_sink_delivered_total'),
    dropped: value('foyer_sink_dropped_total'),
    failed: value('foyer_sink_failed_total'),
  };
}

// Every event of the audit trail but joins (which leave as counts) and admission steps
// (which leave only when they admitted someone: event_figures.test.js) must have arrived,
// in log order: the ids of single events are their seqs.
function assertAllInOrder(trail, ids) {
  const seqs = ids.filter((id) => /^\d+$/.test(id)).map(Number);
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] > seqs[i - 1], `seq ${seqs[i]} after ${seqs[i - 1]}`);
  const got = new Set(seqs);
  const missing = trail.filter((e) => !['visitor_joined', 'visitors_admitted'].includes(e.type) && !got.has(e.seq))
    .map((e) => e.seq);
  assert.deepEqual(missing, []);
}

test('a webhook gets signed CloudEvents: created, configured, joins counted per second, state changes', async () => {
  const hook = await receiver();
  try {
    await withFoyer(config([webhook(hook.port)]), async (f) => {
      const visitors = [];
      for (let i = 0; i < 5; i++) visitors.push((await f.join()).json.visitor_id);
      await admin(f, 'pause');
      await until('the pause', () => hook.received.find((r) => r.json.type === 'dev.foyer.room.state_changed'));
      await until('the joins', () => hook.received.find((r) => r.json.type === 'dev.foyer.room.joins'));

      const now = Date.now();
      for (const { headers, body, json } of hook.received) {
        assert.equal(headers['content-type'], 'application/cloudevents+json');
        assert.ok(verifySignature(headers, body), `signature of ${body}`);
        assert.ok(Math.abs(Number(headers['webhook-timestamp']) * 1000 - now) < 60000);
        assert.equal(headers['webhook-id'], json.id);
        assert.equal(json.specversion, '1.0');
        assert.equal(json.source, SOURCE);
        assert.match(json.type, /^dev\.foyer\.room\.[a-z_]+$/);
        assert.equal(json.subject, 'demo');
        assert.equal(json.datacontenttype, 'application/json');
        assert.match(json.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(Math.abs(Date.parse(json.time) - now) < 60000);
        assert.equal(typeof json.data, 'object');
        for (const v of visitors) assert.ok(!body.includes(v), 'no visitor id leaves');
      }
      const types = hook.received.map((r) => r.json.type);
      assert.deepEqual(types.slice(0, 2), ['dev.foyer.room.created', 'dev.foyer.room.configured']);
      assert.match(hook.received[0].json.data.commitment, /^[0-9a-f]{64}$/);
      assert.equal(hook.received[1].json.data.config.rate_per_minute, 600);
      const joins = hook.received.filter((r) => r.json.type === 'dev.foyer.room.joins');
      assert.equal(joins.reduce((n, r) => n + r.json.data.count, 0), 5);
      for (const j of joins) assert.match(j.json.id, /^demo-joins-\d+-\d+$/);
      assert.equal(hook.received.find((r) => r.json.type === 'dev.foyer.room.state_changed').json.data.state, 'paused');
      assertAllInOrder(await audit(f), hook.received.map((r) => r.json.id));
    });
  } finally {
    await hook.close();
  }
});

test('a receiver that is down, then answers 500, then is back gets every buffered event in order', async () => {
  const port = await refusedPort();
  let status = 500;
  await withFoyer(config([webhook(port)]), async (f) => {
    await pauseResume(f, 10);
    await until('refused attempts', async () => (await sinkMetrics(f)).failed >= 2);
    let m = await sinkMetrics(f);
    assert.ok(m.queued >= 20, `queued ${m.queued}`);
    assert.equal(m.delivered, 0);

    const hook = await receiver(port, () => status);
    try {
      await until('a 500 answered', () => hook.received.length >= 2);
      await pauseResume(f, 5);
      m = await sinkMetrics(f);
      assert.equal(m.delivered, 0);
      status = 200;
      const trail = await audit(f);
      const last = trail.at(-1).seq;
      await until('the backlog', () => hook.received.some((r) => r.json.id === String(last)));
      m = await sinkMetrics(f);
      assert.equal(m.dropped, 0);
      // Each event is delivered once answered 200; those answered 500 come again, same id.
      const delivered = [];
      for (const r of hook.received) if (delivered.at(-1) !== r.json.id) delivered.push(r.json.id);
      assertAllInOrder(trail, delivered);
    } finally {
      await hook.close();
    }
  });
});

test('interim answers (103 Early Hints) before the real one: each event is counted by its own answer', async () => {
  // Each event is refused once, then accepted; every answer follows a 103.
  const answered = new Map();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const { id } = JSON.parse(body);
      const statuses = answered.get(id) ?? [];
      statuses.push(statuses.length === 0 ? 500 : 200);
      answered.set(id, statuses);
      res.writeEarlyHints({ link: '</hook.css>; rel=preload' });
      res.writeHead(statuses.at(-1)).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await withFoyer(config([webhook(server.address().port)]), async (f) => {
      await pauseResume(f, 5);
      const last = (await audit(f)).at(-1).seq;
      await until('the last event accepted', () => answered.get(String(last))?.includes(200));
      // Delivered in order: every event before it was answered 500, then 200, and no answer
      // was taken for another request's.
      const upTo = [...answered.keys()].filter((id) => /^\d+$/.test(id) && Number(id) <= last);
      assert.ok(upTo.length >= 12, `events ${upTo}`);
      for (const id of upTo) assert.deepEqual(answered.get(id), [500, 200], `event ${id}`);
    });
  } finally {
    await new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); });
  }
});

test('a receiver that accepts and never answers costs the joins and polls nothing', async () => {
  const sockets = [];
  const hang = net.createServer((s) => sockets.push(s));
  await new Promise((resolve) => hang.listen(0, '127.0.0.1', resolve));
  try {
    await withFoyer(config([webhook(hang.address().port, { timeout_ms: 2000 })]), async (f) => {
      // Joins at speed, 8 at a time, each timed, while the sink waits on the receiver.
      const latencies = [];
      const started = Date.now();
      const worker = async () => {
        for (let i = 0; i < 50; i++) {
          const t0 = Date.now();
          const r = await f.join();
          assert.equal(r.status, 201, r.text);
          assert.equal((await f.status(r.json.ticket)).status, 200);
          latencies.push(Date.now() - t0);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const elapsed = Date.now() - started;
      latencies.sort((a, b) => a - b);
      assert.ok(sockets.length >= 1, 'the sink connected to the hanging receiver');
      // A join waits for its durable write only: a few ms, never the sink's 2 s timeout
      // (the bound leaves room for a busy machine).
      const p99 = latencies[Math.floor(latencies.length * 0.99)];
      assert.ok(p99 < 1000, `p99 ${p99} ms`);
      assert.ok(elapsed < 20000, `400 joins took ${elapsed} ms`);
      const m = await until('a timed-out attempt', async () => { const s = await sinkMetrics(f); return s.failed >= 1 && s; }, 15000);
      assert.equal(m.delivered, 0);
    });
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => hang.close(resolve));
  }
});

test('a full buffer drops the oldest and counts it; the newest are delivered once the receiver is back', async () => {
  const port = await refusedPort();
  await withFoyer(config([webhook(port, { buffer: 4 })]), async (f) => {
    await pauseResume(f, 6);
    const m = await sinkMetrics(f);
    assert.ok(m.dropped >= 8, `dropped ${m.dropped}`);
    assert.ok(m.queued <= 4);
    const hook = await receiver(port);
    try {
      const trail = await audit(f);
      await until('the newest', () => hook.received.some((r) => r.json.id === String(trail.at(-1).seq)));
      const ids = hook.received.map((r) => r.json.id);
      assert.ok(ids.length <= 6, `${ids.length} delivered after the overflow`);
      for (let i = 1; i < ids.length; i++) assert.ok(Number(ids[i]) > Number(ids[i - 1]));
    } finally {
      await hook.close();
    }
  });
});

test('https: a certificate that verifies for the host is delivered to; another host, or an unknown CA, is refused', async () => {
  const dirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), 'foyer-tls-')));
  const good = await httpsReceiver(dirs[0], 'IP:127.0.0.1');
  const otherHost = await httpsReceiver(dirs[1], 'DNS:elsewhere.example');
  const url = (r) => `https://127.0.0.1:${r.port}/hook`;
  const servers = [
    new Foyer(config([webhook(0, { url: url(good) })])),
    new Foyer(config([webhook(0, { url: url(otherHost) })])),
    new Foyer(config([webhook(0, { url: url(good) })])),
  ];
  try {
    await startTrusting(servers[0], good.cert);
    await startTrusting(servers[1], otherHost.cert);
    await startTrusting(servers[2], otherHost.cert);  // not the CA of `good`'s certificate
    await until('delivery over TLS', () => good.received.some((r) => r.json.type === 'dev.foyer.room.configured'));
    assert.ok(verifySignature(good.received[0].headers, good.received[0].body));
    for (const f of servers.slice(1)) await until('refused handshakes', async () => (await sinkMetrics(f)).failed >= 2);
    assert.equal(otherHost.received.length, 0);
    for (const f of servers.slice(1)) assert.equal((await sinkMetrics(f)).delivered, 0);
    assert.match(servers[1].output, /sink 'hook': https:\/\/127\.0\.0\.1:\d+\/hook: cannot connect: .*certificate verify failed/);
    assert.match(servers[2].output, /cannot connect: .*certificate verify failed/);
    assert.equal(good.received.filter((r) => r.headers['webhook-id'] === undefined).length, 0);
  } finally {
    for (const f of servers) await f.cleanup();
    await good.close();
    await otherHost.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

test('the file sink appends NDJSON, and survives a rotation by rename and SIGHUP', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-sink-'));
  const file = path.join(dir, 'events.ndjson');
  const f = new Foyer(config([{ type: 'file', name: 'log', path: file }]));
  const lines = (p) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  try {
    await f.start();
    await pauseResume(f, 3);
    let trail = await audit(f);
    await until('the first lines', () => lines(file).some((e) => e.id === String(trail.at(-1).seq)));
    renameSync(file, `${file}.1`);
    const mark = f.output.length;
    f.proc.kill('SIGHUP');
    await until('the reload', () => /reload: the rooms are as the file declares them/.test(f.output.slice(mark)));
    await pauseResume(f, 3);
    trail = await audit(f);
    await until('lines in the new file', () => lines(file).some((e) => e.id === String(trail.at(-1).seq)));
    const old = lines(`${file}.1`);
    const now = lines(file);
    assert.ok(old.length > 0 && now.length > 0);
    for (const e of [...old, ...now]) {
      assert.equal(e.specversion, '1.0');
      assert.equal(e.source, SOURCE);
      assert.equal(e.subject, 'demo');
    }
    assertAllInOrder(trail, [...old, ...now].map((e) => e.id));
    // A line counts as delivered once its batch is synced, a moment after it is written.
    const m = await until('the lines counted', async () => {
      const s = await sinkMetrics(f, 'log');
      return s.delivered >= old.length + now.length && s;
    });
    assert.equal(m.dropped, 0);
  } finally {
    await f.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad [[sinks]] stop the start with a message naming the field; plain http:// to private addresses starts', async () => {
  const cases = [
    [{ type: 'webhook', url: 'http://203.0.113.7/hook', secret: SECRET }, /config: sinks\[0\]\.url: http:\/\/ only to a loopback or private address/],
    [{ type: 'webhook', url: 'http://hooks.example.com/', secret: SECRET }, /config: sinks\[0\]\.url: http:\/\/ only/],
    [{ type: 'webhook', url: 'ftp://127.0.0.1/', secret: SECRET }, /config: sinks\[0\]\.url: must be an http:\/\/ or https:\/\/ URL/],
    [{ type: 'webhook', url: 'https://hooks.example.com/', secret: 'not-a-secret' }, /config: sinks\[0\]\.secret: must be "whsec_"/],
    [{ type: 'webhook', url: 'https://hooks.example.com/', secret: SECRET, events: ['dev.foyer.*.x'] }, /config: sinks\[0\]\.events\[0\]: must be/],
    [{ type: 'webhook', url: 'https://hooks.example.com/', secret: SECRET, buffer: 0 }, /config: sinks\[0\]\.buffer: must be a whole number from 1/],
    [{ type: 'webhook', url: 'https://hooks.example.com/', secret: SECRET, path: '/tmp/x' }, /config: sinks\[0\]\.path: unknown setting/],
    [{ type: 'queue' }, /config: sinks\[0\]\.type: must be "webhook" or "file"/],
    [{ type: 'file', path: '/nonexistent-dir/events.ndjson' }, /config: sinks\[0\]\.path: cannot open '\/nonexistent-dir\/events\.ndjson' for appending/],
    [{ type: 'file', path: '/tmp/x', name: 'a b' }, /config: sinks\[0\]\.name: must be letters/],
  ];
  for (const [sink, expected] of cases) {
    const f = new Foyer(config([sink]));
    try {
      const { code, output } = await f.runOnce();
      assert.equal(code, 1, output);
      // Each log line is JSON: the sentence is its msg.
      const messages = output.trim().split('\n').map((line) => JSON.parse(line).msg);
      assert.ok(messages.some((m) => expected.test(m)), `${expected} in ${output}`);
    } finally {
      await f.cleanup();
    }
  }
  // Plain http:// to this machine or a private network is accepted.
  const private_ = new Foyer(config(['http://localhost:9/h', 'http://10.1.2.3:9/h', 'http://192.168.0.1/h', 'http://[fd00::1]:9/h']
    .map((url, i) => ({ type: 'webhook', name: `p${i}`, url, secret: SECRET }))));
  try {
    await private_.start();
  } finally {
    await private_.cleanup();
  }
  const twice = new Foyer(config([{ type: 'file', path: '/tmp/a', name: 'x' }, { type: 'file', path: '/tmp/b', name: 'x' }]));
  try {
    assert.match((await twice.runOnce()).output, /config: sinks\[1\]\.name: 'x' is used by another sink/);
  } finally {
    await twice.cleanup();
  }
});
