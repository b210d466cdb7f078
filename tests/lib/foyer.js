// Test harness: starts the real `foyer` binary on a loopback port with a temp data
// dir and a generated config, and talks to it over HTTP.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');
export const foyerBin = process.env.FOYER_BIN ?? path.join(repo, 'build/foyer');

if (!existsSync(foyerBin)) {
  throw new Error(`the foyer binary is missing at ${foyerBin}: build it first (cmake --build build)`);
}

// Every server a test file starts dies with it, even when a failed test skipped its
// clean-up: a leftover process would outlive the run and hold its ports. Each runs in
// its own process group, which is killed whole: nginx's workers go with their master.
const owned = new Set();
process.on('exit', () => {
  for (const proc of owned) killOwned(proc);
});

/** Kills a process spawnOwned started with its whole group: nginx's workers go with their master. */
export function killOwned(proc) {
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
process.once('SIGTERM', () => process.exit(143));

/** child_process.spawn, for a process that must not outlive this test file. */
export function spawnOwned(command, args, options) {
  const proc = spawn(command, args, { ...options, detached: true });
  owned.add(proc);
  proc.on('exit', () => owned.delete(proc));
  return proc;
}

/** The account hint a site signs (README, "One entry per visitor, one per account"). */
export function accountHint(secret, room, account) {
  return createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from('foyer/account/v1'), Buffer.from([room.length]), Buffer.from(room), Buffer.from(account)]))
    .digest('hex');
}

function toml(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toml).join(', ')}]`;
  if (typeof value === 'object') {
    return `{ ${Object.entries(value).map(([k, v]) => `${k} = ${toml(v)}`).join(', ')} }`;
  }
  return String(value);
}

// config: { server: {...}, proof_of_work: {...}, overload: {...}, rooms: [{...}], sinks: [{...}] }. Defaults: work off
// (no base work, no pressure),
// one FIFO room "demo" at 600/min.
export function configText(config = {}) {
  // FOYER_TEST_IO_THREADS runs the suite's servers with that many I/O threads (tests/run.sh).
  const ioThreads = process.env.FOYER_TEST_IO_THREADS;
  const server = { listen: '127.0.0.1:0', ...(ioThreads ? { io_threads: Number(ioThreads) } : {}), ...config.server };
  const pow = { base_bits: 0, max_pressure_bits: 0, ...config.proof_of_work };
  const rooms = config.rooms ?? [{ id: 'demo', name: 'Demo', rate_per_minute: 600, target_url: '/welcome' }];
  let text = '[server]\n';
  for (const [k, v] of Object.entries(server)) text += `${k} = ${toml(v)}\n`;
  text += '[proof_of_work]\n';
  for (const [k, v] of Object.entries(pow)) text += `${k} = ${toml(v)}\n`;
  for (const section of ['overload', 'ledger', 'invites', 'notifications']) {
    if (!config[section]) continue;
    text += `[${section}]\n`;
    for (const [k, v] of Object.entries(config[section])) text += `${k} = ${toml(v)}\n`;
  }
  for (const room of rooms) {
    text += '[[rooms]]\n';
    for (const [k, v] of Object.entries(room)) {
      // opens_at is a TOML date-time, not a string.
      text += k === 'opens_at' ? `${k} = ${v}\n` : `${k} = ${toml(v)}\n`;
    }
  }
  for (const sink of config.sinks ?? []) {
    text += '[[sinks]]\n';
    for (const [k, v] of Object.entries(sink)) text += `${k} = ${toml(v)}\n`;
  }
  return text;
}

export class Foyer {
  constructor(config = {}, { dataDir } = {}) {
    this.dir = mkdtempSync(path.join(tmpdir(), 'foyer-test-'));
    this.dataDir = dataDir ?? path.join(this.dir, 'data');
    this.configPath = path.join(this.dir, 'foyer.toml');
    writeFileSync(this.configPath, configText(config));
    // The I/O threads the server must say it runs with (FOYER_TEST_IO_THREADS, see configText).
    const fromEnv = process.env.FOYER_TEST_IO_THREADS;
    this.ioThreads = config.server?.io_threads ?? (fromEnv ? Number(fromEnv) : undefined);
    this.port = null;
    this.output = '';
  }

  // Starts the server; resolves once it listens. `listen` can pin the port for restarts.
  async start(extraArgs = []) {
    const args = ['serve', '--config', this.configPath, '--data-dir', this.dataDir, ...extraArgs];
    if (this.port) args.push('--listen', `127.0.0.1:${this.port}`);
    this.proc = spawnOwned(foyerBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    // A restart's output follows the last run's: only this run's says where it listens.
    const mark = this.output.length;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`foyer did not start:\n${this.output}`)), 15000);
      const onData = (chunk) => {
        this.output += chunk;
        const m = /serving \d+ room\(s\) on http:\/\/127\.0\.0\.1:(\d+)/.exec(this.output.slice(mark));
        if (m) {
          clearTimeout(timer);
          this.port = Number(m[1]);
          const threads = this.ioThreads;
          if (threads !== undefined && !this.output.slice(mark).includes(`"io_threads":${threads}`)) {
            reject(new Error(`foyer did not start with FOYER_TEST_IO_THREADS=${threads} I/O threads:\n${this.output}`));
          }
          resolve();
        }
      };
      this.proc.stdout.on('data', onData);
      this.proc.stderr.on('data', onData);
      this.exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`foyer exited (${code}):\n${this.output}`)); });
    });
    this.url = `http://127.0.0.1:${this.port}`;
    return this;
  }

  // Runs the binary to completion with these args against this config (expects failure or output).
  async runOnce(extraArgs = []) {
    const proc = spawnOwned(foyerBin, ['serve', '--config', this.configPath, '--data-dir', this.dataDir, ...extraArgs]);
    let output = '';
    proc.stdout.on('data', (c) => { output += c; });
    proc.stderr.on('data', (c) => { output += c; });
    const code = await new Promise((resolve) => proc.on('exit', resolve));
    return { code, output };
  }

  // Rewrites the config file and sends SIGHUP; resolves once the output since then
  // matches `expected` (what the server prints for the reload it was asked for).
  async reload(config, expected) {
    writeFileSync(this.configPath, typeof config === 'string' ? config : configText(config));
    const mark = this.output.length;
    this.proc.kill('SIGHUP');
    const deadline = Date.now() + 10000;
    while (!expected.test(this.output.slice(mark))) {
      if (Date.now() > deadline) throw new Error(`no ${expected} after the reload:\n${this.output.slice(mark)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.output.slice(mark);
  }

  async kill9() {
    this.proc.kill('SIGKILL');
    await this.exited;
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill('SIGTERM');
    return this.exited;
  }

  async cleanup() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) await this.kill9();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async request(method, urlPath, { body, ticket, headers = {} } = {}) {
    const h = { ...headers };
    if (ticket) h.authorization = `Bearer ${ticket}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(this.url + urlPath, {
      method,
      headers: h,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, json, text };
  }

  join(room = 'demo', body) { return this.request('POST', `/api/v1/rooms/${room}/join`, { body }); }
  status(ticket, room = 'demo') { return this.request('GET', `/api/v1/rooms/${room}/status`, { ticket }); }
}

/** Runs the binary with `args` to its end: { code, stdout, stderr }. */
export function runFoyer(args) {
  const proc = spawnOwned(foyerBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c) => { stdout += c; });
  proc.stderr.on('data', (c) => { stderr += c; });
  return new Promise((resolve) => proc.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** One request to any server, redirects not followed: { status, headers, json, text }. */
export async function call(url, method, { bearer, body, key, cookie } = {}) {
  const headers = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (key) headers['idempotency-key'] = key;
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, redirect: 'manual', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, json, text };
}

/** Polls `check` every 20 ms until it returns something truthy, and returns that; fails after `ms`. */
// Starts `f` trusting only the CA file `ca` (OpenSSL reads SSL_CERT_FILE for its default paths).
export async function startTrusting(f, ca) {
  process.env.SSL_CERT_FILE = ca;
  try {
    await f.start();
  } finally {
    delete process.env.SSL_CERT_FILE;
  }
}

export async function until(what, check, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs fn(foyer) against a started server with this config, and cleans up after it. */
export async function withFoyer(config, fn) {
  const foyer = new Foyer(config);
  try {
    await foyer.start();
    await fn(foyer);
  } finally {
    await foyer.cleanup();
  }
}

/** Writes `text` on one connection to the port and resolves to all that comes back until it closes (5 s at most). */
export function rawRequest(port, text) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    let data = '';
    s.on('data', (c) => { data += c; });
    s.on('end', () => resolve(data));
    s.on('error', reject);
    s.setTimeout(5000, () => { s.destroy(); resolve(data); });
  });
}
