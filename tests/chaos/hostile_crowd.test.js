// A hostile crowd on loopback, bounded in time: 200 connections each playing one attack on
// the server's memory or framing (an endless trailer, an endless chunk extension, a slow
// body, a pipelined flood that never reads, an idle connection, a smuggling attempt), then
// a crowd past the descriptor limit, while honest visitors poll. The server's memory stays
// under the bound docs/security.md works out from the limits, every poll is answered, and
// the server answers afterwards. The polls' latency is printed (HOSTILE_CROWD_POLLS), not
// asserted: on a machine shared with other work it measures the neighbours as much as the
// server; the abuse benchmark (bench/RESULTS.md, "abuse") is where it is judged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawnOwned } from '../lib/foyer.js';
import { chaosConfig, openFilesLimit, pollLoad, sleep, tryJoin, withFoyer } from './helpers.js';

const hostile = 200;
const pollers = 4;
const pollGapMs = 5;
const quietMs = 3000;
const crowdSeconds = 20;
const headerTimeoutMs = 3000;

// The limits, as [server] has them by default (src/http/server.hpp).
const limits = { header: 8192, fields: 100, body: 16384, trailer: 4096, chunkLine: 1024, keptAnswer: 16384 };
const readChunk = 4096;
// Twice the largest answer an anonymous client can ask for (the biggest embedded file, about
// 17 KB): its body and its bytes on the wire, both held while a slow reader takes them.
const answerInFlight = 2 * 18 * 1024;
// docs/security.md, "Memory under a hostile crowd": one connection's bound.
const perConnection = Math.max(limits.header, limits.trailer, limits.chunkLine) + readChunk // read buffer
  + limits.header + limits.fields * 80 // the parsed header
  + 2 * limits.body // the body, and its string's spare capacity
  + Math.max(limits.keptAnswer, answerInFlight) // the answer being written, or the buffer kept after it
  + 4096; // the session: its coroutine frame, state and socket
// ... and what no single connection holds: one trailer parsed at a time, 20 times its
// bytes as fields, and the allocator's slack, which returns memory to the system lazily.
const fixedSlackKiB = (20 * limits.trailer) / 1024 + 8 * 1024;

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)[1]);
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

function descriptorCount(pid) {
  return Number(execFileSync('sh', ['-c', `ls /proc/${pid}/fd | wc -l`]).toString());
}

// The count once it has stayed the same for half a second, or after ten seconds of change.
async function settledDescriptorCount(pid) {
  let last = descriptorCount(pid);
  for (let steady = 0, tries = 0; steady < 5 && tries < 100; tries++) {
    await sleep(100);
    const now = descriptorCount(pid);
    steady = now === last ? steady + 1 : 0;
    last = now;
  }
  return last;
}

function p99(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))];
}

function runCrowd(port) {
  const script = fileURLToPath(new URL('./hostile-crowd-load.js', import.meta.url));
  const proc = spawnOwned(process.execPath, [script, String(port), String(hostile), String(crowdSeconds)],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  setPriority(proc.pid, 19);
  let output = '';
  proc.stdout.on('data', (d) => { output += d; });
  return new Promise((resolve) => proc.on('exit', () => resolve(JSON.parse(/CROWD (.*)/.exec(output)[1]))));
}

test('a hostile crowd holds no more memory than the limits allow, and honest polls are all answered', { timeout: 90_000 }, async () => {
  const config = chaosConfig({ server: { header_timeout_ms: headerTimeoutMs, max_connections: 2000 } });
  await withFoyer(config, {}, async (f) => {
    const pid = f.proc.pid;
    const tickets = [];
    for (let i = 0; i < pollers; i++) tickets.push((await tryJoin(f)).json.ticket);
    const load = pollLoad(f.port, tickets, { phases: ['quiet', 'crowd'], gapMs: pollGapMs });
    await sleep(quietMs);
    const before = status(pid);

    load.phase = 'crowd';
    let peakKiB = 0;
    const sampler = setInterval(() => { peakKiB = Math.max(peakKiB, status(pid).rss); }, 100);
    const heard = await runCrowd(f.port);
    clearInterval(sampler);
    console.log(`HOSTILE_CROWD ${JSON.stringify({ heard, rss_before_kib: before.rss, rss_peak_kib: peakKiB, hwm_kib: status(pid).hwm })}`);

    // Every attack was refused or cut, none answered as if it were whole.
    assert.ok(heard['endless trailer']['431'] > 0, JSON.stringify(heard));
    assert.ok(heard['endless chunk extension']['400'] > 0, JSON.stringify(heard));
    assert.ok(heard['slow body']['408'] > 0, JSON.stringify(heard));
    assert.ok(heard['bad framing']['400'] > 0 && !heard['bad framing']['200'], JSON.stringify(heard));

    const boundKiB = before.rss + ((hostile + pollers) * perConnection) / 1024 + fixedSlackKiB;
    assert.ok(status(pid).hwm <= boundKiB, `peak RSS ${status(pid).hwm} KiB over the bound ${Math.round(boundKiB)} KiB`);

    // Past the descriptor limit: the accept loop pauses instead of spinning, and says so rarely.
    const { soft, hard } = openFilesLimit(pid);
    // The crowd's connections close on the server a moment after its process exits: a count
    // taken before they all have would leave room for the whole crowd below.
    const open = await settledDescriptorCount(pid);
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${open + 50}:${hard === Infinity ? 'unlimited' : hard}`]);
    const mark = f.output.length;
    const crowd = Array.from({ length: 300 }, () => net.connect(f.port, '127.0.0.1').on('error', () => {}));
    await sleep(3000);
    const lines = f.output.slice(mark).split('\n').filter((l) => l.includes('accept failed'));
    assert.ok(lines.length >= 1 && lines.length <= 2, `accept failures logged ${lines.length} times`);
    for (const s of crowd) s.destroy();
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${soft === Infinity ? 'unlimited' : soft}:${hard === Infinity ? 'unlimited' : hard}`]);

    load.running = false;
    await load.done;
    assert.deepEqual(load.failures, []);
    const quiet = p99(load.samples.quiet);
    const during = p99(load.samples.crowd);
    console.log(`HOSTILE_CROWD_POLLS ${JSON.stringify({ quiet_p99_ms: quiet, crowd_p99_ms: during, polls: load.samples.crowd.length })}`);
    assert.ok(load.samples.crowd.length > 0, 'honest visitors polled through the crowd');

    await sleep(500);
    assert.equal((await f.request('GET', '/healthz')).status, 200);
  });
});
