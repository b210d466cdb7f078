// Hostile clients: disconnects mid-request, slowloris, a flood of garbage. The server
// stays up, keeps answering good requests, and the queue's invariants hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FrontierWatch, assertAckedHold, assertNoPlaceTwice, chaosConfig, crowd, garbage, rawExchange, roomInfo, sleep,
  statusCodes, withFoyer,
} from './helpers.js';

const joinRequest = 'POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n';

async function assertServing(f, acked) {
  assert.equal(f.proc.exitCode, null, `the server is still running:\n${f.output}`);
  assert.equal(f.proc.signalCode, null, `the server is still running:\n${f.output}`);
  const health = await f.request('GET', '/healthz');
  assert.equal(health.status, 200);
  const more = [];
  await crowd(f, { concurrency: 2, until: () => more.length >= 10, acked: more });
  acked.push(...more);
  assertNoPlaceTwice(acked);
  await assertAckedHold(f, acked);
}

test('clients that disconnect mid-request leave the server and the queue intact', { timeout: 60000 }, async () => {
  const rate = 600;
  const watch = new FrontierWatch(rate, Date.now());
  await withFoyer(chaosConfig({ rate }), {}, async (f) => {
    const acked = [];
    await crowd(f, { concurrency: 4, until: () => acked.length >= 20, acked });
    const cut = [];
    for (let i = 0; i < 60; i++) {
      // Gone after half a request line, after the headers of a body that never comes,
      // and right after a whole join (which may be durable and never answered).
      cut.push(rawExchange(f.port, ['POST /api/v1/rooms/de'], { timeoutMs: 50 }));
      cut.push(rawExchange(f.port, ['POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"chal'], { timeoutMs: 50 }));
      cut.push(rawExchange(f.port, [joinRequest], { timeoutMs: 1 }));
      cut.push(rawExchange(f.port, [`GET /api/v1/rooms/demo/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${acked[i % acked.length].ticket}\r\n\r\n`], { timeoutMs: 1 }));
    }
    await Promise.all(cut);
    await watch.sample(f);
    await assertServing(f, acked);
    const info = await roomInfo(f);
    assert.ok(info.joined >= acked.length, 'every acknowledged join is counted');
    await watch.sample(f);
  });
});

test('slowloris connections are cut after header_timeout_ms while others are served', { timeout: 60000 }, async () => {
  const headerTimeoutMs = 600;
  const idleTimeoutMs = 1000;
  await withFoyer(chaosConfig({ server: { header_timeout_ms: headerTimeoutMs, idle_timeout_ms: idleTimeoutMs } }), {}, async (f) => {
    const acked = [];
    await crowd(f, { concurrency: 2, until: () => acked.length >= 5, acked });
    // Each sends a request line, then one header byte every 100 ms, never finishing.
    const drip = ['GET /healthz HTTP/1.1\r\n', ...'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.split('')];
    const slow = Array.from({ length: 40 }, () => rawExchange(f.port, drip, { gapMs: 100, timeoutMs: 5000 }));
    // And connections that say nothing at all are cut after the idle timeout.
    const silent = Array.from({ length: 20 }, () => rawExchange(f.port, [], { timeoutMs: 5000 }));
    await sleep(200);
    const t0 = Date.now();
    await assertServing(f, acked);
    assert.ok(Date.now() - t0 < headerTimeoutMs, 'good requests are answered while the slow ones hang on');
    for (const r of await Promise.all(slow)) {
      assert.notEqual(r.closedAfterMs, null, 'the server closed the slow connection');
      assert.ok(r.closedAfterMs >= headerTimeoutMs - 50 && r.closedAfterMs < headerTimeoutMs + 1500,
        `cut after ${r.closedAfterMs} ms, the header timeout is ${headerTimeoutMs} ms`);
      assert.deepEqual(statusCodes(r.text).filter((s) => s !== 408), [], 'a slow request gets 408 at most');
    }
    for (const r of await Promise.all(silent)) {
      assert.notEqual(r.closedAfterMs, null, 'the server closed the silent connection');
      assert.ok(r.closedAfterMs >= idleTimeoutMs - 50 && r.closedAfterMs < idleTimeoutMs + 1500,
        `silent connection cut after ${r.closedAfterMs} ms, the idle timeout is ${idleTimeoutMs} ms`);
    }
    await assertServing(f, acked);
  });
});

test('a burst of connections beyond max_connections: the extra ones get 503, the limit holds', { timeout: 60000 }, async () => {
  const limit = 20;
  const burst = 80;
  await withFoyer(chaosConfig({ server: { max_connections: limit } }), {}, async (f) => {
    const acked = [];
    await crowd(f, { concurrency: 2, until: () => acked.length >= 5, acked });
    // All at once, saying nothing: an accepted one stays open until the client goes.
    const results = await Promise.all(Array.from({ length: burst }, () => rawExchange(f.port, [], { timeoutMs: 1500 })));
    const open = results.filter((r) => r.closedAfterMs === null);
    const refused = results.filter((r) => statusCodes(r.text).join() === '503');
    assert.ok(open.length >= 1 && open.length <= limit, `${open.length} connections held open; the limit is ${limit}`);
    assert.equal(refused.length, burst - open.length, 'every connection over the limit is refused with a 503');
    assert.match(refused[0].text, /"error":"too_many_connections"/);
    assert.match(refused[0].text, /Retry-After: 5/);
    await assertServing(f, acked);
  });
});

test('a flood of garbage gets 4xx answers or a closed connection, and good requests still work', { timeout: 60000 }, async () => {
  const rate = 600;
  const watch = new FrontierWatch(rate, Date.now());
  await withFoyer(chaosConfig({ rate }), {}, async (f) => {
    const acked = [];
    await crowd(f, { concurrency: 2, until: () => acked.length >= 10, acked });
    const ticket = acked[0].ticket;
    const malformed = [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      'GET /api/v1/rooms/demo/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer AAAA\r\n\r\n',
      `GET /api/v1/rooms/demo/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ticket.slice(0, -2)}xx\r\n\r\n`,
      'POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"chall',
      `POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nContent-Length: 40000\r\n\r\n${'x'.repeat(40000)}`,
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20000)}\r\n\r\n`,
      'GET /api/v1/rooms/nope/status HTTP/1.1\r\nHost: x\r\n\r\n',
      'DELETE /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ];
    const sends = [];
    for (let i = 0; i < 400; i++) {
      const payload = i % 2 === 0 ? garbage(i + 1, 64 + (i % 7) * 300) : malformed[i % malformed.length];
      sends.push(rawExchange(f.port, [payload], { timeoutMs: 1500 }));
      if (sends.length >= 50) {
        for (const r of await Promise.all(sends.splice(0))) {
          for (const s of statusCodes(r.text)) assert.ok(s >= 400 && s < 500, `garbage answered ${s}`);
        }
        await watch.sample(f);
      }
    }
    for (const r of await Promise.all(sends)) {
      for (const s of statusCodes(r.text)) assert.ok(s >= 400 && s < 500, `garbage answered ${s}`);
    }
    await assertServing(f, acked);
    await watch.sample(f);
  });
});
