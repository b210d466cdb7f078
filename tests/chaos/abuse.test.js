// Abuse at volume, on loopback and bounded in time: 10,000 idle connections, 500
// slowloris connections, a flood of malformed requests and oversized headers, and a storm
// of forged tickets and bad proofs, all at once, while a steady poll load is timed. The
// polls stay fast, every abusive request gets its 4xx problem, the connection cap answers
// 503 and recovers exactly, and the memory the connections took is freed for the next
// ones. The figures are printed as one JSON line, `ABUSE {...}`, for bench/RESULTS.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { solveSync } from '../../web/js/pow.js';
import { spawnOwned } from '../lib/foyer.js';
import {
  WireConnection, garbage, openFilesLimit, pollLoad, raiseOpenFiles, sleep, withFoyer,
} from './helpers.js';

const idle = 10_000;
const slowloris = 500;
const oneShotWorkers = 8;
const keepAliveWorkers = 8;
const pollers = 4;
// Room under the cap for the flood's own short connections and the probe's first ones.
const headroom = 100;
const maxConnections = idle + slowloris + oneShotWorkers + keepAliveWorkers + pollers + headroom;
// The probe's connections beyond the headroom: more than the abuse's connections that may
// be between two of their own (see the probe's check), so some must hear 503 whatever the
// moment.
const overCap = 1000;
const headerTimeoutMs = 2000;
// Longer than the abuse, so the idle connections are held all through it and then cut
// by the server itself: that is the drain.
const idleTimeoutMs = 15_000;
const quietMs = 4000;
const abuseMs = 10_000;
const pollGapMs = 5;
// Below this, a p99 is the machine's scheduling rather than the server: a quiet poll's p99
// is a fraction of a millisecond, and five times that is less than one wait of the
// server's thread for a core on a shared 2-core machine (a scheduler slice is ~3 ms). With
// the abusers at the lowest priority, three runs here gave 4.3, 6.7 and 6.4 times a quiet
// p99 of 1.4 to 1.9 ms (bench/RESULTS.md, "abuse").
const p99FloorMs = 3;
const maxHeaderBytes = 8192;
// A busy client's loop sees its connect late, so a lifetime it measures is short by up to
// this much; and the server's sweeper (a quarter of the shorter timeout) and a loaded
// machine cut up to this much late.
const lateConnectMs = 1000;
const lateCutMs = 3000;

const host = 'Host: 127.0.0.1\r\n';
const statusPath = '/api/v1/rooms/demo/status';
const joinPath = '/api/v1/rooms/demo/join';

// Answered on a connection of their own, which the server then closes (RFC 9112, 9.6:
// it cannot tell where the next request would start).
function oneShotKinds() {
  const noise = (seed) => garbage(seed, 512).toString('latin1');
  return [
    { kind: 'garbage request line', text: 'GARBAGE\r\n\r\n', expect: '400 bad_request' },
    { kind: 'unknown HTTP version', text: `GET / HTTP/9.9\r\n${host}\r\n`, expect: '400 bad_request' },
    { kind: 'binary noise', text: noise(7), expect: '400 bad_request' },
    { kind: 'control byte in the target', text: `GET /a\x01b HTTP/1.1\r\n${host}\r\n`, expect: '400 bad_request' },
    { kind: 'bad Content-Length', text: `POST ${joinPath} HTTP/1.1\r\n${host}Content-Length: 12x\r\n\r\n`, expect: '400 bad_request' },
    { kind: 'oversized request line', text: `GET /${'a'.repeat(2 * maxHeaderBytes)} HTTP/1.1\r\n${host}\r\n`, expect: '431 headers_too_large' },
    { kind: 'oversized header', text: `GET / HTTP/1.1\r\n${host}X-Big: ${'y'.repeat(2 * maxHeaderBytes)}\r\n\r\n`, expect: '431 headers_too_large' },
    { kind: 'too many headers', text: `GET / HTTP/1.1\r\n${host}${'X-h: v\r\n'.repeat(maxHeaderBytes / 4)}\r\n`, expect: '431 headers_too_large' },
  ];
}

// Answered on a keep-alive connection, which stays open for the next one. A request is
// its head and, for a POST, its body (abuse-load.js adds the Content-Length).
function keepAliveKinds(ticket, otherRoomTicket) {
  const status = (t) => `GET ${statusPath} HTTP/1.1\r\n${host}${t ? `Authorization: Bearer ${t}\r\n` : ''}`;
  const join = `POST ${joinPath} HTTP/1.1\r\n${host}Content-Type: application/json\r\n`;
  const zeros = '0'.repeat(16 * 8);
  const forged = ticket.slice(0, -4) + (ticket.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  return [
    { kind: 'forged ticket', head: status(forged), expect: '401 invalid_ticket' },
    { kind: 'truncated ticket', head: status(ticket.slice(0, 20)), expect: '401 invalid_ticket' },
    { kind: 'made-up ticket', head: status('AQRkZW1v' + 'x'.repeat(80)), expect: '401 invalid_ticket' },
    { kind: 'no ticket', head: status(null), expect: '401 missing_ticket' },
    { kind: 'ticket of another room', head: status(otherRoomTicket), expect: '403 ticket_for_other_room' },
    { kind: 'wrong solution', head: join, body: `{"challenge":"CHALLENGE","nonce":"${zeros}"}`, challengeFirst: true, expect: '403 proof_rejected' },
    { kind: 'made-up challenge', head: join, body: `{"challenge":"${'A'.repeat(151)}","nonce":"${zeros}"}`, expect: '403 proof_rejected' },
    { kind: 'join without a proof', head: join, body: '{}', expect: '400 bad_join_body' },
    { kind: 'join body not JSON', head: join, body: '{"challenge":', expect: '400 bad_join_body' },
  ];
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function latencyFigures(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (ms) => Math.round(ms * 1000) / 1000;
  return { polls: sorted.length, p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)), max_ms: round(sorted.at(-1)) };
}

function rssKiB(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

// Joins with a solved proof over a connection of its own, and closes it: the fill at the
// end counts every connection the server holds, so none may linger in a client's pool.
async function joinSolved(port, room) {
  const wire = await WireConnection.open(port);
  try {
    const c = await wire.request(`POST /api/v1/rooms/${room}/challenge HTTP/1.1\r\n${host}Content-Length: 0\r\n\r\n`);
    assert.equal(c.status, 200, c.body);
    const body = JSON.stringify(solveSync(JSON.parse(c.body).challenge));
    const r = await wire.request(`POST /api/v1/rooms/${room}/join HTTP/1.1\r\n${host}Content-Type: application/json\r\n`
      + `Content-Length: ${body.length}\r\n\r\n${body}`);
    assert.equal(r.status, 201, r.body);
    return JSON.parse(r.body).ticket;
  } finally {
    wire.close();
  }
}

// The abuse process (abuse-load.js) and a call into it.
function startAbuser() {
  const script = fileURLToPath(new URL('./abuse-load.js', import.meta.url));
  const proc = spawnOwned(process.execPath, [script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // The attackers are other machines in a real sale; here they share the server's cores, so
  // they take only what the server and the measured polls leave. On 2 cores the tail stays
  // the server's wait for a core either way (bench/RESULTS.md, "abuse").
  setPriority(proc.pid, 19);
  const pending = new Map();
  let next = 0;
  proc.on('message', ({ id, ...result }) => pending.get(id)?.(result));
  const call = (cmd, args = {}) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, (result) => {
      pending.delete(id);
      if (result.error) reject(new Error(`abuse-load ${cmd}: ${result.error}`));
      else resolve(result);
    });
    proc.send({ id, cmd, ...args });
  });
  return { proc, call, end: () => proc.disconnect() };
}

// Each socket is a file descriptor on both ends; the processes' own files come on top.
const holderFiles = Math.max(idle + slowloris + headroom + overCap, maxConnections + 50) + 512;
const serverFiles = maxConnections + overCap + 512;
const { hard } = openFilesLimit();
// The server and the holding process inherit this process's hard limit.
const cannotOpen = hard < serverFiles ? `needs ${serverFiles} open files, the hard limit is ${hard} (ulimit -Hn)` : false;

test('abuse at volume: polls stay fast, abuse gets its 4xx, the cap answers 503 and recovers, memory is re-used',
  { timeout: 150_000, skip: cannotOpen }, async () => {
    const config = {
      server: {
        max_connections: maxConnections,
        header_timeout_ms: headerTimeoutMs,
        idle_timeout_ms: idleTimeoutMs,
        max_header_bytes: maxHeaderBytes,
      },
      // A real price, so that a wrong proof is refused; 12 bits are milliseconds to solve
      // and a guessed nonce passes with odds of 2^-72.
      proof_of_work: { base_bits: 12, max_pressure_bits: 0 },
      // A slow room: the polled tickets stay waiting all through (no pass is signed).
      rooms: [
        { id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' },
        { id: 'other', name: 'Other', rate_per_minute: 1, target_url: '/welcome' },
      ],
    };
    await withFoyer(config, {}, async (f) => {
      const pid = f.proc.pid;
      assert.ok(raiseOpenFiles(pid, serverFiles), `the server may open ${serverFiles} files`);
      // Two ahead in the queue, so that every polled ticket waits.
      await joinSolved(f.port, 'demo');
      await joinSolved(f.port, 'demo');
      const tickets = [];
      for (let i = 0; i < pollers; i++) tickets.push(await joinSolved(f.port, 'demo'));
      const otherRoomTicket = await joinSolved(f.port, 'other');

      const load = pollLoad(f.port, tickets, { phases: ['quiet', 'abuse', 'after'], gapMs: pollGapMs });
      await sleep(quietMs);
      const rssBefore = rssKiB(pid);

      // Two abuse processes: one opens and holds (idle, slowloris, the cap's probes), the
      // other floods; each has its own loop, files and share of the CPU.
      const holder = startAbuser();
      const flooder = startAbuser();
      try {
        assert.ok(raiseOpenFiles(holder.proc.pid, holderFiles), `the abuse may open ${holderFiles} files`);
        const rss = [];
        const sampler = setInterval(() => rss.push(rssKiB(pid)), 200);
        load.phase = 'abuse';
        const abuseStart = performance.now();
        const flood = { oneShot: oneShotKinds(), keepAlive: keepAliveKinds(tickets[0], otherRoomTicket) };
        await flooder.call('start', { port: f.port, plan: { idle: 0, slowloris: 0, oneShotWorkers, keepAliveWorkers, ...flood } });
        const { idleOpenMs } = await holder.call('start', {
          port: f.port, plan: { idle, slowloris, dripMs: 300, oneShotWorkers: 0, keepAliveWorkers: 0 },
        });
        // At the cap: the headroom fills, everything past it hears 503.
        const probe = await holder.call('fill', { count: headroom + overCap });
        await holder.call('release');
        await sleep(Math.max(0, abuseMs - (performance.now() - abuseStart)));
        const [{ byKind: flooded }, { byKind: slowed }] = await Promise.all([flooder.call('stop'), holder.call('stop')]);
        load.phase = 'after';
        const abuseTookMs = performance.now() - abuseStart;
        clearInterval(sampler);
        const byKind = { ...flooded, ...slowed };

        // The idle connections are cut by the server's idle timeout; then RSS is read again.
        const drained = await holder.call('idle-report', { waitMs: idleTimeoutMs + 10_000 });
        await sleep(2000);
        const rssAfter = rssKiB(pid);
        const rssPeak = Math.max(...rss);

        // The cap recovers exactly: with only the poll load connected, the server keeps
        // max_connections - pollers new connections and refuses the next ones.
        const refill = await holder.call('fill', { count: maxConnections - pollers + 50 });
        const rssRefilled = rssKiB(pid);
        await holder.call('release');
        const health = await WireConnection.open(f.port).then(async (w) => {
          const r = await w.request(`GET /healthz HTTP/1.1\r\n${host}\r\n`);
          w.close();
          return r;
        });
        load.running = false;
        await load.done;

        const quiet = latencyFigures(load.samples.quiet);
        const abuse = latencyFigures(load.samples.abuse);
        const figures = {
          quiet,
          abuse,
          after: latencyFigures(load.samples.after),
          abuse_ms: Math.round(abuseTookMs),
          idle_open_ms: Math.round(idleOpenMs),
          probe,
          refill,
          idle: { ...drained, minLifeMs: Math.round(drained.minLifeMs), maxLifeMs: Math.round(drained.maxLifeMs) },
          rss_kib: { before: rssBefore, peak: rssPeak, after: rssAfter, refilled: rssRefilled },
          by_kind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, { sent: v.sent, answers: v.answers }])),
          slowloris_cut_ms: byKind.slowloris?.lifeMs['408 request_timeout']?.map(Math.round),
        };
        console.log(`ABUSE ${JSON.stringify(figures)}`);

        assert.deepEqual(load.failures, [], 'every poll was answered 200');
        assert.equal(health.status, 200, 'a new connection is served after the abuse');
        const bound = 5 * Math.max(quiet.p99_ms, p99FloorMs);
        assert.ok(abuse.p99_ms <= bound, `poll p99 under abuse ${abuse.p99_ms} ms, at most 5 × max(quiet p99 ${quiet.p99_ms} ms, ${p99FloorMs} ms)`);

        for (const { kind, expect } of [...flood.oneShot, ...flood.keepAlive]) {
          const k = byKind[kind];
          assert.ok(k && k.answers[expect] > 0, `${kind}: answered ${expect} (${JSON.stringify(k)})`);
          // At the cap, while the probe held the headroom, a new connection heard 503 instead.
          const other = Object.keys(k.answers).filter((a) => a !== expect && a !== '503 too_many_connections');
          assert.deepEqual(other, [], `${kind}: every answer is ${expect} (${JSON.stringify(k.answers)})`);
        }
        const cut = byKind.slowloris;
        assert.ok(cut.answers['408 request_timeout'] >= slowloris, `every slowloris connection is cut with 408 (${JSON.stringify(cut)})`);
        assert.deepEqual(Object.keys(cut.answers).filter((a) => a !== '408 request_timeout' && a !== '503 too_many_connections'), []);
        const [shortest, longest] = cut.lifeMs['408 request_timeout'];
        assert.ok(shortest >= headerTimeoutMs - lateConnectMs && longest <= headerTimeoutMs + lateCutMs,
          `a slowloris connection is cut after header_timeout_ms (${shortest}–${longest} ms)`);

        assert.equal(drained.failed, 0, 'every idle connection opened');
        assert.equal(drained.opened, idle);
        assert.equal(drained.closedByServer, idle, 'the server cut every idle connection itself');
        assert.deepEqual(drained.answers, { none: idle }, 'an idle connection is closed without an answer');
        assert.ok(drained.minLifeMs >= idleTimeoutMs - lateConnectMs && drained.maxLifeMs <= idleTimeoutMs + lateCutMs,
          `an idle connection is cut after idle_timeout_ms (${drained.minLifeMs}–${drained.maxLifeMs} ms)`);

        assert.equal(probe.failed, 0);
        // The abuse's connections come and go (one per malformed request, a new keep-alive
        // one after a 503, a new slowloris one after each cut): the probe may find up to
        // that many more free than the headroom.
        const flux = oneShotWorkers + keepAliveWorkers + slowloris;
        assert.ok(probe.held <= headroom + flux, `at the cap, the server held ${probe.held} of the probe's connections`);
        assert.ok(probe.answers['503 too_many_connections'] >= overCap - flux, `past the cap, 503 (${JSON.stringify(probe)})`);
        assert.deepEqual(Object.keys(probe.answers), ['503 too_many_connections']);
        assert.deepEqual(refill, { held: maxConnections - pollers, failed: 0, answers: { '503 too_many_connections': 50 } },
          'after the abuse the server holds exactly max_connections again');
        // tcmalloc keeps what the connections freed for the next ones rather than giving it
        // back to the system (bench/RESULTS.md, "Abuse at volume"): RSS stays at its peak.
        // What shows that it was freed, not leaked, is a second crowd of max_connections
        // that fits in it.
        const perConnection = (rssPeak - rssBefore) / (idle + slowloris);
        assert.ok(perConnection <= 16, `${perConnection.toFixed(1)} KiB per connection at the peak`);
        assert.ok(rssAfter <= rssPeak * 1.05, `RSS ${rssAfter} KiB after the abuse, at most about its peak ${rssPeak}`);
        assert.ok(rssRefilled <= rssPeak * 1.05, `a second crowd re-uses the memory: RSS ${rssRefilled} KiB, the peak was ${rssPeak}`);
      } finally {
        holder.end();
        flooder.end();
      }
    });
  });
