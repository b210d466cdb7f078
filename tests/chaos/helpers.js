// Shared by the chaos tests: crowds of joins, the invariants every chaos test checks,
// raw sockets, and real faulty storage (a tiny tmpfs, a frozen ext4 on a loop device).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Foyer } from '../lib/foyer.js';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Work off and no join pressure: the chaos tests join hundreds of times from 127.0.0.1,
// which would otherwise raise the price past an empty body after 16 joins a minute.
export function chaosConfig({ rate = 600, server = {}, room = {} } = {}) {
  return {
    server,
    proof_of_work: { base_bits: 0, max_pressure_bits: 0 },
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: rate, target_url: '/welcome', ...room }],
  };
}

export async function withFoyer(config, options, fn) {
  const foyer = new Foyer(config, options);
  try {
    await foyer.start();
    await fn(foyer);
  } finally {
    await foyer.cleanup();
  }
}

// One join; never throws: a dead server is { status: 0 }.
export async function tryJoin(foyer) {
  try {
    const r = await foyer.join();
    return { status: r.status, json: r.json, headers: r.headers };
  } catch (e) {
    return { status: 0, error: e };
  }
}

// `concurrency` visitors join back to back until `until()` says stop. Every 201 is an
// acknowledged join and lands in `acked` as { ticket, place }. Gives up (throws) after
// `maxRefused` answers other than 201 or a dead server, so a refusing server fails the
// test instead of hanging it.
export async function crowd(foyer, { concurrency = 16, until, acked, statuses = new Map(), maxRefused = 1000 }) {
  let refused = 0;
  const one = async () => {
    while (!until()) {
      const r = await tryJoin(foyer);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 201) {
        acked.push({ ticket: r.json.ticket, place: r.json.place });
      } else if (r.status === 0) {
        await sleep(5);
      } else if (++refused > maxRefused) {
        throw new Error(`joins refused: ${JSON.stringify([...statuses])}\n${foyer.output}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return statuses;
}

export function assertNoPlaceTwice(acked) {
  const seen = new Map();
  for (const a of acked) {
    assert.equal(typeof a.place, 'number', 'every acknowledged join has a place');
    assert.ok(!seen.has(a.place), `place ${a.place} was issued twice`);
    seen.set(a.place, a.ticket);
  }
}

// Every acknowledged join still holds: its ticket polls, with the same place, and the
// answer is consistent with admission in place order (admitted exactly when place < served).
export async function assertAckedHold(foyer, acked, { concurrency = 16 } = {}) {
  let next = 0;
  const check = async () => {
    while (next < acked.length) {
      const a = acked[next++];
      const r = await foyer.status(a.ticket);
      assert.equal(r.status, 200, `acknowledged ticket for place ${a.place} polls: ${r.text}`);
      assert.equal(r.json.place, a.place, 'the place survived');
      assertInOrder(r.json);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, check));
}

export function assertInOrder(st) {
  if (st.place < st.served) {
    assert.equal(st.state, 'admitted', `place ${st.place} < served ${st.served} is admitted`);
    assert.ok(st.pass, 'an admitted visitor gets a pass');
  } else {
    assert.notEqual(st.state, 'admitted', `place ${st.place} >= served ${st.served} is not admitted yet`);
  }
}

export async function frontier(foyer) {
  const r = await foyer.request('GET', '/api/v1/rooms/demo/frontier');
  assert.equal(r.status, 200);
  return r.json;
}

export async function roomInfo(foyer) {
  const r = await foyer.request('GET', '/api/v1/rooms/demo');
  assert.equal(r.status, 200);
  return r.json;
}

// Watches the frontier: served never goes backwards (across restarts too) and never
// runs ahead of the rate: served <= rate × (time since the first start) + 1.
export class FrontierWatch {
  constructor(ratePerMinute, firstStartMs) {
    this.rate = ratePerMinute;
    this.t0 = firstStartMs;
    this.samples = [];
  }

  record(f) {
    const last = this.samples.at(-1);
    if (last) assert.ok(f.served >= last.served, `served went back from ${last.served} to ${f.served}`);
    const allowed = (this.rate * (f.at - this.t0)) / 60000 + 1;
    assert.ok(f.served <= allowed, `served ${f.served} ran ahead of the rate (at most ${allowed.toFixed(2)})`);
    this.samples.push(f);
    return f;
  }

  async sample(foyer) {
    return this.record(await frontier(foyer));
  }

  get last() {
    return this.samples.at(-1);
  }
}

// A raw TCP exchange: writes `chunks` (strings or Buffers, `gapMs` apart), then reads
// until the server closes or `timeoutMs` passes. Resolves with what came back and when
// the server closed (null if it did not).
export function rawExchange(port, chunks, { gapMs = 0, timeoutMs = 3000 } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const received = [];
    let closedAfterMs = null;
    let timer = null;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(received).toString('latin1'), closedAfterMs });
    };
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAfterMs = Date.now() - started;
      finish();
    });
    timer = setTimeout(finish, timeoutMs);
    socket.on('connect', async () => {
      for (const c of chunks) {
        if (socket.destroyed) return;
        socket.write(c);
        if (gapMs) await sleep(gapMs);
      }
    });
  });
}

// Deterministic bytes (xorshift32, fixed seed): garbage that is the same on every run.
export function garbage(seed, length) {
  let x = seed || 1;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

// Status codes of the responses in a raw HTTP/1.1 byte stream, in order.
export function statusCodes(text) {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

export const isRoot = process.getuid?.() === 0;
export const rootOnly = isRoot ? false : 'needs root to mount a tmpfs and a loop device (CI runs as root)';

function run(cmd, args) {
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

// A tmpfs of `bytes` bytes. Small enough that RocksDB's preallocation of a 17 MiB WAL
// fails (it is only advisory), so the data dir meets ENOSPC as soon as the device is full.
export function mountTmpfs(bytes) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-chaos-tmpfs-'));
  run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
  return { dir, unmount: () => { run('umount', [dir]); rmSync(dir, { recursive: true, force: true }); } };
}

// Fills the file system holding `dir` with one file until ENOSPC; returns its path.
export function fillDevice(dir) {
  const file = path.join(dir, 'filler');
  const fd = openSync(file, 'w');
  for (const size of [1 << 20, 4096, 512, 1]) {
    const chunk = Buffer.alloc(size);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (e) {
      if (e.code !== 'ENOSPC') throw e;
    }
  }
  closeSync(fd);
  return file;
}

// An ext4 file system on a loop device, which, unlike tmpfs, can be frozen: while frozen,
// every write and fsync to it blocks, as on a storage that stalls.
export function mountLoopExt4(megabytes) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-chaos-ext4-'));
  const image = `${dir}.img`;
  const mnt = path.join(dir, 'mnt');
  run('truncate', ['-s', `${megabytes}M`, image]);
  run('mkfs.ext4', ['-q', '-F', image]);
  run('mkdir', [mnt]);
  run('mount', ['-o', 'loop', image, mnt]);
  let frozen = false;
  return {
    dir: mnt,
    freeze: () => { run('fsfreeze', ['--freeze', mnt]); frozen = true; },
    thaw: () => { if (frozen) run('fsfreeze', ['--unfreeze', mnt]); frozen = false; },
    unmount: () => {
      if (frozen) run('fsfreeze', ['--unfreeze', mnt]);
      run('umount', [mnt]);
      rmSync(dir, { recursive: true, force: true });
      rmSync(image, { force: true });
    },
  };
}

// One keep-alive HTTP/1.1 connection on a raw socket: whole requests written as text,
// each answer read by its Content-Length. The poll load and the abuse use it so that what
// they time is the server, not a client library's pool. `request` resolves to
// { status, head, body } and rejects once the server has closed the connection.
export class WireConnection {
  static open(port) {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new WireConnection(socket));
      });
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.waiting = null;
    this.closed = false;
    socket.on('data', (d) => {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, d]) : d;
      this.answer();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.reject(new Error('the server closed the connection'));
      this.waiting = null;
    });
  }

  answer() {
    if (!this.waiting) return;
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffer.length < end + 4 + length) return;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
    this.buffer = this.buffer.subarray(end + 4 + length);
    const { resolve } = this.waiting;
    this.waiting = null;
    resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1] ?? 0), head, body });
  }

  request(text) {
    if (this.closed) return Promise.reject(new Error('the server closed the connection'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(text);
    });
  }

  close() {
    this.socket.destroy();
  }
}

// The `error` code of a problem-details body, or null.
export function problemCode(body) {
  try {
    return JSON.parse(body).error ?? null;
  } catch {
    return null;
  }
}

// The soft limit on open files of a process, from /proc/<pid>/limits.
export function openFilesLimit(pid = 'self') {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  const [soft, hard] = line.split(/\s+/).slice(3, 5).map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  return { soft, hard };
}

// Raises a process's soft limit on open files to its hard limit (prlimit(1)) when the soft
// one is below `need`. Returns false when even the hard limit is below it: raising that
// takes CAP_SYS_RESOURCE, which a container's root may lack.
export function raiseOpenFiles(pid, need) {
  const { soft, hard } = openFilesLimit(pid);
  if (soft >= need) return true;
  if (hard < need) return false;
  const limit = hard === Infinity ? need : hard;
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${limit}:${hard === Infinity ? 'unlimited' : hard}`], { stdio: 'ignore' });
  } catch {
    return false;
  }
  return openFilesLimit(pid).soft >= need;
}

// A steady poll load: one keep-alive connection per ticket, each polling its status every
// `gapMs`, each latency filed under the phase (one of `phases`, the first at the start)
// it started in. Set `load.phase` to move on, `load.running = false` to stop, then await
// `load.done`. Every poll must succeed: the others are in `load.failures`.
export function pollLoad(port, tickets, { phases, gapMs }) {
  const load = { phase: phases[0], samples: Object.fromEntries(phases.map((p) => [p, []])), failures: [], running: true };
  load.done = Promise.all(tickets.map(async (ticket) => {
    const wire = await WireConnection.open(port);
    const text = `GET /api/v1/rooms/demo/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ticket}\r\n\r\n`;
    while (load.running) {
      const phase = load.phase;
      const t0 = performance.now();
      const r = await wire.request(text).catch((e) => ({ status: 0, body: String(e) }));
      load.samples[phase].push(performance.now() - t0);
      if (r.status !== 200) load.failures.push(`${phase}: ${r.status} ${r.body}`);
      if (r.status === 0) break;
      await sleep(gapMs);
    }
    wire.close();
  }));
  return load;
}
