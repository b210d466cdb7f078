// Cluster mode on loopback: real etcd members and real `foyer` nodes, each with its data
// dir on disk (fsyncs are real), for tests/cluster/ and bench/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../nginx/harness.js';
import { configText, foyerBin, spawnOwned } from './foyer.js';

function watchOutput(proc, self) {
  const add = (chunk) => { self.output += chunk; };
  proc.stdout.on('data', add);
  proc.stderr.on('data', add);
}

async function until(what, check, ms) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Three etcd members (Debian's etcd 3.4) on loopback, with a short election timeout so
// that losing the etcd leader costs well under a second.
export class EtcdCluster {
  // `flags`: more of etcd's own, for every member (e.g. a space quota). `tls`: { cert,
  // key, ca } PEM files: each member also listens with TLS, asking clients for a certificate
  // signed by `ca` (tlsEndpoints); the plain listener stays for the test's own checks.
  // `addresses`: more loopback addresses each member also listens on (endpointsAt), so that
  // a node given only one of them can be cut off from etcd alone.
  constructor(dir, { size = 3, flags = [], tls = null, addresses = [] } = {}) {
    this.dir = dir;
    this.size = size;
    this.flags = flags;
    this.tls = tls;
    this.addresses = addresses;
    this.members = [];
  }

  async start() {
    for (let i = 0; i < this.size; i++) {
      const at = {};
      for (const address of this.addresses) at[address] = await freePort();
      this.members.push({
        name: `e${i}`, client: await freePort(), peer: await freePort(), tlsClient: this.tls ? await freePort() : null,
        at, output: '',
      });
    }
    const initial = this.members.map((m) => `${m.name}=http://127.0.0.1:${m.peer}`).join(',');
    for (const m of this.members) this.launch(m, initial);
    await until('etcd to elect a leader', () => this.healthy(), 20000);
    return this;
  }

  launch(m, initial) {
    const clientUrls = [
      `http://127.0.0.1:${m.client}`,
      ...(this.tls ? [`https://127.0.0.1:${m.tlsClient}`] : []),
      ...Object.entries(m.at ?? {}).map(([address, port]) => `http://${address}:${port}`),
    ].join(',');
    const tlsFlags = this.tls
      ? ['--cert-file', this.tls.cert, '--key-file', this.tls.key, '--trusted-ca-file', this.tls.ca, '--client-cert-auth']
      : [];
    m.proc = spawnOwned('etcd', [
      '--name', m.name, '--data-dir', path.join(this.dir, m.name),
      '--listen-client-urls', clientUrls, '--advertise-client-urls', clientUrls, ...tlsFlags,
      '--listen-peer-urls', `http://127.0.0.1:${m.peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${m.peer}`,
      '--initial-cluster', initial, '--initial-cluster-state', m.started ? 'existing' : 'new',
      '--heartbeat-interval', '50', '--election-timeout', '500', '--log-level', 'warn', ...this.flags,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    m.started = true;
    m.exited = new Promise((resolve) => m.proc.on('exit', resolve));
    watchOutput(m.proc, m);
  }

  get endpoints() {
    return this.members.map((m) => `http://127.0.0.1:${m.client}`);
  }

  get tlsEndpoints() {
    return this.members.map((m) => `https://127.0.0.1:${m.tlsClient}`);
  }

  endpointsAt(address) {
    return this.members.map((m) => `http://${address}:${m.at[address]}`);
  }

  async status(m) {
    try {
      const res = await fetch(`http://127.0.0.1:${m.client}/v3/maintenance/status`, { method: 'POST', body: '{}' });
      return res.ok ? await res.json() : null;
    } catch {
      return null;
    }
  }

  async healthy() {
    for (const m of this.members) {
      const s = await this.status(m);
      if (s && s.leader && s.leader !== '0') return true;
    }
    return false;
  }

  // The member that leads etcd's raft now.
  async leader() {
    for (const m of this.members) {
      const s = await this.status(m);
      if (s && s.leader === s.header.member_id) return m;
    }
    return null;
  }

  async kill9(m) {
    m.proc.kill('SIGKILL');
    await m.exited;
  }

  restart(m) {
    this.launch(m, this.members.map((x) => `${x.name}=http://127.0.0.1:${x.peer}`).join(','));
  }

  async stop() {
    for (const m of this.members) {
      if (m.proc.exitCode === null && m.proc.signalCode === null) {
        m.proc.kill('SIGKILL');
        await m.exited;
      }
    }
  }
}

// One Foyer node in cluster mode. It listens only while it leads: start() returns at
// once, and leading() resolves once it serves.
export class ClusterNode {
  // `cluster`: more of [cluster]'s keys (e.g. retained_entries).
  constructor({ dir, id, etcd, secretsDir, port, rooms, ttl = 2, cluster: more = {} }) {
    this.id = id;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.dataDir = path.join(dir, id, 'data');
    this.configPath = path.join(dir, id, 'foyer.toml');
    mkdirSync(path.join(dir, id), { recursive: true });
    const cluster = {
      etcd, node_id: id, advertise: this.url, prefix: '/foyer-test', lease_ttl_seconds: ttl, secrets_dir: secretsDir,
      ...more,
    };
    let text = configText({ server: { listen: `127.0.0.1:${port}` }, rooms });
    text += '[cluster]\n';
    for (const [k, v] of Object.entries(cluster)) {
      text += `${k} = ${Array.isArray(v) ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(v)}\n`;
    }
    writeFileSync(this.configPath, text);
    this.output = '';
    this.runs = 0;
  }

  start() {
    this.mark = this.output.length;
    this.proc = spawnOwned(foyerBin, ['serve', '--config', this.configPath, '--data-dir', this.dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    this.runs += 1;
    // 'close', not 'exit': the output is all read by then.
    this.exited = new Promise((resolve) => this.proc.on('close', (code, signal) => resolve({ code, signal })));
    watchOutput(this.proc, this);
    return this;
  }

  get alive() {
    return this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  // Whether this run of the node serves (it leads).
  get serving() {
    return this.alive && /serving \d+ room\(s\)/.test(this.output.slice(this.mark));
  }

  async leading(ms = 15000) {
    await until(`${this.id} to lead:\n${this.output.slice(this.mark)}`, () => this.serving, ms);
  }

  async kill9() {
    this.proc.kill('SIGKILL');
    await this.exited;
  }

  wipe() {
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export function clusterDir() {
  // On disk, not tmpfs: etcd's and RocksDB's fsyncs are real.
  return mkdtempSync(path.join(process.env.FOYER_CLUSTER_TMP ?? tmpdir(), 'foyer-cluster-'));
}

// Network namespaces, for the tests that cut a node off from etcd: the test file runs itself
// again inside `unshare --net` (as root), where loopback and nftables are its own, so
// nothing on the machine is touched. FOYER_IN_NETNS is set inside.
export const inNetworkNamespace = Boolean(process.env.FOYER_IN_NETNS);

export function canMakeNetworkNamespace() {
  return spawnSync('unshare', ['--net', 'true']).status === 0;
}

// Runs `file` in a new namespace, as tests/run.sh runs every file (run-node.js: it exits once
// the tests are done, and stops a file that stalls); its output, and whether it passed.
export function runInNetworkNamespace(file, timeoutMs) {
  const runner = fileURLToPath(new URL('./run-node.js', import.meta.url));
  const inner = ['ip link set lo up && exec "$0" "$1" --timeout="$2" "$3"', process.execPath, runner, String(timeoutMs), file];
  const r = spawnSync('unshare', ['--net', 'sh', '-c', ...inner], {
    // Not as a child of this runner: its own exit status says how it went.
    env: { ...process.env, FOYER_IN_NETNS: '1', NODE_TEST_CONTEXT: undefined }, encoding: 'utf8',
    timeout: timeoutMs + 15000,
  });
  return { passed: r.status === 0, said: `${r.stdout}${r.stderr}` };
}

export function nft(...args) {
  const r = spawnSync('nft', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `nft ${args.join(' ')}: ${r.stderr}`);
}

// Drops every packet sent to `address` (one that only a node's etcd endpoints use), until
// heal(): that node loses etcd, and keeps its visitors.
export function cutOff(address) {
  nft('add', 'table', 'inet', 'partition');
  nft('add', 'chain', 'inet', 'partition', 'out', '{ type filter hook output priority 0 ; }');
  nft('add', 'rule', 'inet', 'partition', 'out', 'ip', 'daddr', address, 'drop');
}

export function heal() {
  nft('delete', 'table', 'inet', 'partition');
}
