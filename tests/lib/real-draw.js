// A draw run by the real binary for the audit tests: two Go witnesses (tests/go/witness),
// the loopback drand relay with the recorded quicknet rounds, and a drand room whose
// committed round is the recorded round 30662982. The server's and the witnesses' clocks
// are put in the past (FOYER_TEST_CLOCK_OFFSET_MS, -clock-offset) so that round's time
// comes 30 s after the scheduled close.
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startDrandRelay } from './drand-relay.js';
import { Foyer, configText, spawnOwned } from './foyer.js';

export const ROUND = 30662982;
const roundTimeMs = (1692803367 + (ROUND - 1) * 3) * 1000;
const admin_token = 'test-admin-token-0123456789';
const origin = 'tickets.example/foyer/ledger';
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function witnessVkey(name, seed) {
  const key = createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }));
  const pub = Buffer.from(key.export({ format: 'jwk' }).x, 'base64url');
  const id = createHash('sha256').update(Buffer.concat([Buffer.from(name), Buffer.of(0x0a, 0x04), pub])).digest().subarray(0, 4);
  return `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(0x04), pub]).toString('base64')}`;
}

// Builds the Go witness offline: GOPATH mode on Debian's Go sources (packaging/deps.sh).
function buildWitness(dir) {
  const binary = path.join(dir, 'witness');
  execFileSync('go', ['build', '-o', binary, '.'], {
    cwd: fileURLToPath(new URL('../go/witness', import.meta.url)),
    env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '', GOPROXY: 'off', GOCACHE: path.join(tmpdir(), 'foyer-go-cache') },
  });
  return binary;
}

function startWitness(binary, name, seed, logVkey, offsetSeconds) {
  const proc = spawnOwned(binary, ['serve', '-listen', '127.0.0.1:0', '-name', name, '-seed', seed.toString('hex'),
    '-log-vkey', logVkey, '-clock-offset', String(offsetSeconds)]);
  const url = new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(`http://${m[1]}`);
    });
    proc.on('exit', (code) => reject(new Error(`witness ${name} exited with ${code}`)));
  });
  return { proc, url };
}

/**
 * Runs a draw of `entrants` entrants in room `room` to its reveal.
 * @returns {Promise<{foyer: Foyer, room: string, vkey: string, witnesses: string[], lottery: object, close: () => Promise<void>}>}
 */
export async function runDraw({ entrants, room = 'tatkal', leadMs = 8000 + 2 * entrants }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-real-draw-'));
  const owned = [];
  const close = async () => {
    for (const c of owned.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const binary = buildWitness(dir);
    const relay = await startDrandRelay();
    owned.push(() => relay.close());
    const closesAtMs = roundTimeMs - 30_000;
    // Whole seconds, the witnesses' unit: the server's and the witnesses' clocks agree.
    const offsetSeconds = Math.round((closesAtMs - leadMs - Date.now()) / 1000);
    const offsetMs = offsetSeconds * 1000;
    // Both runs on the shifted clock: a restart's clock continues from the log's last event.
    const start = async (f) => {
      process.env.FOYER_TEST_CLOCK_OFFSET_MS = String(offsetMs);
      try {
        await f.start();
      } finally {
        delete process.env.FOYER_TEST_CLOCK_OFFSET_MS;
      }
    };
    // A first run with no room only to learn the ledger's key, which the witnesses need.
    const f = new Foyer({ server: { admin_token }, ledger: { origin } });
    owned.push(() => f.cleanup());
    await start(f);
    const vkey = (await f.request('GET', '/api/v1/ledger')).json.vkey;
    await f.stop();

    const witnesses = [];
    for (const [i, name] of ['witness-a.example', 'witness-b.example'].entries()) {
      const seed = createHash('sha256').update(name).digest();
      const w = startWitness(binary, name, seed, vkey, offsetSeconds);
      owned.push(() => w.proc.kill('SIGKILL'));
      witnesses.push({ name, vkey: witnessVkey(name, seed), url: await w.url, i });
    }
    writeFileSync(f.configPath, configText({
      server: { admin_token },
      ledger: {
        origin, quorum: 2, beacon_relays: [relay.url],
        witnesses: witnesses.map(({ name, vkey: v, url }) => ({ name, vkey: v, url })),
      },
      rooms: [{
        id: room, name: 'Tatkal', rate_per_minute: 60000, target_url: '/welcome',
        opens_at: new Date(closesAtMs).toISOString().replace(/\.\d+Z$/, 'Z'), beacon_rule: 'drand-quicknet',
        // Seconds away, not the minute start-up asks for: the test means it.
        opens_at_in_past: 'accept',
      }],
    }));
    await start(f);
    // Eight joins at a time: 10,000 take seconds, well within the lead.
    let joined = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (joined < entrants) {
        joined++;
        const r = await f.join(room);
        if (r.status !== 201) throw new Error(`join: ${r.status} ${r.text}`);
      }
    }));
    if (Date.now() >= closesAtMs - offsetMs) throw new Error(`the joins took past the close: give a longer lead than ${leadMs} ms`);
    // The close is scheduled, the round 30 s after it: the reveal comes within ~40 s.
    const deadline = Date.now() + leadMs + 60_000;
    let lottery;
    for (;;) {
      lottery = (await f.request('GET', `/api/v1/rooms/${room}/lottery`)).json;
      if (lottery.seed) break;
      if (Date.now() > deadline) throw new Error(`no reveal: ${JSON.stringify(lottery)}\n${f.output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return { foyer: f, room, vkey, witnesses: witnesses.map((w) => w.vkey), lottery, close };
  } catch (error) {
    await close();
    throw error;
  }
}
