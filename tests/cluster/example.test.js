// packaging/cluster/, the three-machine example, read as the real programs read it: etcd
// started from etcd.default's variables alone, `foyer serve` leading with foyer.toml and the
// unit's command line, nginx with nginx.conf passing visitors to it past two nodes that
// refuse (standbys), and the systemd drop-in. Each machine's addresses become free ports on
// loopback, the same port wherever the files name the same address, and its paths move
// under a temporary directory.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { foyerBin, repo, runFoyer, spawnOwned, until } from '../lib/foyer.js';
import { freePort, launchNginx, nginxConfig } from '../nginx/harness.js';

const example = (name) => readFileSync(path.join(repo, 'packaging/cluster', name), 'utf8');
const tmp = mkdtempSync(path.join(process.env.FOYER_CLUSTER_TMP ?? tmpdir(), 'foyer-example-'));
const under = (p) => path.join(tmp, p);
const running = [];

after(async () => {
  for (const proc of running.reverse()) {
    if (proc.exitCode !== null || proc.signalCode !== null) continue;
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    try {
      // The whole group: nginx's workers go with their master.
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      continue; // gone already
    }
    await exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

function start(command, args, options) {
  const proc = spawnOwned(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  proc.output = '';
  proc.stdout.on('data', (c) => { proc.output += c; });
  proc.stderr.on('data', (c) => { proc.output += c; });
  running.push(proc);
  return proc;
}

// Each IPv4 address:port the files name, as a free port on loopback: one map for all of
// them, so that etcd's client URL in foyer.toml is the etcd started here, and node a's
// listen address is nginx's first upstream.
const ports = new Map();
async function toLoopback(text) {
  const pattern = /\b\d{1,3}(?:\.\d{1,3}){3}:\d+\b/g;
  for (const [address] of text.matchAll(pattern)) {
    if (!ports.has(address)) ports.set(address, `127.0.0.1:${await freePort()}`);
  }
  return text.replace(pattern, (address) => ports.get(address));
}

// A change the test makes to a file, which must find what it changes.
function rewrite(text, pattern, replacement) {
  assert.notEqual(text.search(pattern), -1, `${pattern} is in the file`);
  return text.replace(pattern, replacement);
}

// KEY=VALUE lines as systemd's EnvironmentFile= reads them: blank and # lines skipped,
// quotes around a value taken off.
function environmentFile(text) {
  const env = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    assert.ok(m, `not KEY=VALUE: ${line}`);
    env[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  }
  return env;
}

// An INI file as systemd reads a unit: { section: { key: [values] } }.
function unitFile(text) {
  const unit = {};
  let section = null;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = unit[header[1]] ??= {};
      continue;
    }
    const m = /^(\w+)=(.*)$/.exec(line);
    assert.ok(section && m, `not KEY=VALUE in a section: ${line}`);
    (section[m[1]] ??= []).push(m[2]);
  }
  return unit;
}

const etcdEnv = environmentFile(example('etcd.default'));
const unit = unitFile(readFileSync(path.join(repo, 'packaging/systemd/foyer.service'), 'utf8'));
const dropIn = unitFile(example('foyer-cluster.conf'));
const toml = example('foyer.toml');
const tomlValue = (key) => new RegExp(`^${key} = "([^"\\n]*)"$`, 'm').exec(toml)?.[1];
// The three members as ETCD_INITIAL_CLUSTER names them: [{ name, url, host }].
const members = etcdEnv.ETCD_INITIAL_CLUSTER.split(',').map((m) => {
  const [name, url] = m.split('=');
  return { name, url, host: new URL(url).hostname };
});
let etcd;
let foyer;

test('etcd.default: three members, and member 1 runs from its variables alone', async () => {
  for (const key of ['ETCD_NAME', 'ETCD_DATA_DIR', 'ETCD_LISTEN_PEER_URLS', 'ETCD_LISTEN_CLIENT_URLS',
    'ETCD_INITIAL_ADVERTISE_PEER_URLS', 'ETCD_ADVERTISE_CLIENT_URLS', 'ETCD_INITIAL_CLUSTER_TOKEN']) {
    assert.ok(etcdEnv[key], key);
  }
  assert.equal(etcdEnv.ETCD_INITIAL_CLUSTER_STATE, 'new');
  assert.equal(etcdEnv.ETCD_AUTO_COMPACTION_MODE, 'periodic');
  assert.equal(etcdEnv.ETCD_AUTO_COMPACTION_RETENTION, '10m');
  assert.deepEqual(members.map((m) => m.host), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  // Members 2 and 3 are member 1's file with their name and address, as its comment says.
  const own = members.find((m) => m.name === etcdEnv.ETCD_NAME);
  assert.equal(own, members[0]);
  for (const m of members) {
    assert.equal(etcdEnv.ETCD_INITIAL_ADVERTISE_PEER_URLS.replaceAll(own.host, m.host), m.url, m.name);
    assert.ok(etcdEnv.ETCD_LISTEN_PEER_URLS.replaceAll(own.host, m.host).split(',').includes(m.url), m.name);
  }

  const env = { PATH: process.env.PATH };
  for (const [key, value] of Object.entries(etcdEnv)) env[key] = await toLoopback(value);
  env.ETCD_DATA_DIR = under(etcdEnv.ETCD_DATA_DIR);
  // A cluster of one: member 1 alone.
  env.ETCD_INITIAL_CLUSTER = await toLoopback(`${own.name}=${own.url}`);
  etcd = start('etcd', [], { env });
  const client = env.ETCD_ADVERTISE_CLIENT_URLS;
  const post = async (api) => {
    try {
      const res = await fetch(`${client}/v3/${api}`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1000) });
      return res.ok ? await res.json() : null;
    } catch {
      return null;
    }
  };
  await until(`etcd to answer at ${client}:\n${etcd.output}`, async () => (await post('maintenance/status'))?.leader > 0, 20000);
  const { members: list } = await post('cluster/member/list');
  assert.deepEqual(list.map((m) => [m.name, m.peerURLs, m.clientURLs]),
    [[own.name, [env.ETCD_INITIAL_ADVERTISE_PEER_URLS], [client]]]);
});

test('foyer.toml: node a leads with the unit\'s command line and answers /readyz', async () => {
  assert.ok(etcd, 'etcd runs');
  // Its etcd list is the three members' client URLs.
  const clientUrl = (m) => etcdEnv.ETCD_ADVERTISE_CLIENT_URLS.replaceAll(members[0].host, m.host);
  assert.match(toml, new RegExp(`^etcd = \\[${members.map((m) => `"${clientUrl(m)}"`).join(', ')}\\]$`, 'm'));
  assert.equal(tomlValue('node_id'), 'foyer-a');
  assert.equal(tomlValue('advertise'), `http://${tomlValue('listen')}`);

  // The shared secrets made as step 3 says: openssl and `foyer keygen`.
  const secretsDir = under(tomlValue('secrets_dir'));
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(secretsDir, 'secret'), execFileSync('openssl', ['rand', '-hex', '32']), { mode: 0o600 });
  const keygen = await runFoyer(['keygen', '--data-dir', secretsDir]);
  assert.equal(keygen.code, 0, keygen.stderr);
  const kid = /with \w+ key (\S+)/.exec(keygen.stdout + keygen.stderr)?.[1];
  assert.ok(kid, keygen.stdout);

  let text = await toLoopback(toml);
  text = rewrite(text, /^secrets_dir = "(.*)"$/m, (_, dir) => `secrets_dir = ${JSON.stringify(under(dir))}`);
  const ioThreads = process.env.FOYER_TEST_IO_THREADS;
  if (ioThreads) text = rewrite(text, /^\[server\]$/m, `[server]\nio_threads = ${ioThreads}`);
  // The unit's own command line, with the drop-in adding none of its own.
  assert.equal(dropIn.Service.ExecStart, undefined);
  const [bin, ...args] = unit.Service.ExecStart[0].split(/\s+/);
  assert.equal(path.basename(bin), 'foyer');
  const config = args[args.indexOf('--config') + 1];
  mkdirSync(path.dirname(under(config)), { recursive: true });
  writeFileSync(under(config), text);
  // Step 4: the secret was made outside Foyer, so the new log is marked as its own once.
  const marked = await runFoyer(['new-incarnation', '--config', under(config)]);
  assert.equal(marked.code, 0, marked.stdout + marked.stderr);
  foyer = start(foyerBin, args.map((a) => (a.startsWith('/') ? under(a) : a)));
  foyer.url = `http://${ports.get(tomlValue('listen'))}`;
  await until(`node a to lead:\n${foyer.output}`, () => {
    assert.equal(foyer.exitCode, null, foyer.output);
    return /serving 1 room\(s\)/.test(foyer.output);
  }, 20000);
  assert.equal((await fetch(`${foyer.url}/readyz`)).status, 200);
  // It signs with the keys made in step 3.
  const jwks = await (await fetch(`${foyer.url}/.well-known/jwks.json`)).json();
  assert.ok(jwks.keys.some((k) => k.kid === kid), JSON.stringify(jwks));
});

// GET over TLS, the certificate not checked (it is the test's own).
function httpsGet(url) {
  return new Promise((resolve, reject) => {
    https.get(url, { rejectUnauthorized: false, headers: { host: 'queue.example.com' } }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

test('nginx.conf: nginx takes it, and /readyz through it reaches the leader past two standbys', async () => {
  assert.ok(foyer, 'node a runs');
  const conf = example('nginx.conf');
  // Upstream: each node's listen address, all three never marked down.
  const listen = tomlValue('listen');
  const nodes = members.map((m) => listen.replaceAll(members[0].host, m.host));
  assert.deepEqual([...conf.matchAll(/^\s*server (\S+) max_fails=0;$/gm)].map((m) => m[1]), nodes);
  assert.match(conf, /^\s*keepalive \d+;$/m);

  const server = { dir: mkdtempSync(path.join(tmp, 'nginx-')), port: await freePort() };
  const tlsPort = await freePort();
  const cert = path.join(server.dir, 'cert.pem');
  const key = path.join(server.dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=queue.example.com'], { stdio: 'pipe' });
  // b and c get ports nothing listens on: standbys, which refuse the connection.
  let text = await toLoopback(conf);
  text = rewrite(text, /^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${server.port};`);
  text = rewrite(text, /^(\s*)listen 443 /m, `$1listen 127.0.0.1:${tlsPort} `);
  text = rewrite(text, /ssl_certificate \S+;/, `ssl_certificate ${cert};`);
  text = rewrite(text, /ssl_certificate_key \S+;/, `ssl_certificate_key ${key};`);
  text = rewrite(text, /include snippets\/foyer-nodes\.conf;/, `include ${path.join(repo, 'packaging/nginx/foyer-nodes.conf')};`);
  launchNginx(server, nginxConfig(server.dir, text));
  running.push(server.proc);
  server.proc.output = '';
  server.proc.stderr.on('data', (c) => { server.proc.output += c; });

  // Plain HTTP goes to HTTPS (fetch sends its own Host: the address).
  const redirect = await until(`nginx to answer:\n${server.proc.output}`,
    () => fetch(`${server.url}/readyz`, { redirect: 'manual' }).catch(() => null), 15000);
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get('location'), 'https://127.0.0.1/readyz');
  // Round robin starts each request on another node: every one ends at the leader.
  for (let i = 0; i < 6; i++) {
    const res = await httpsGet(`https://127.0.0.1:${tlsPort}/readyz`);
    assert.equal(res.status, 200, res.body);
  }
});

test('foyer-cluster.conf: a drop-in for foyer.service after etcd, restarting a node that steps down', () => {
  assert.deepEqual(Object.keys(dropIn).sort(), ['Service', 'Unit']);
  assert.deepEqual(dropIn.Unit.Wants, ['etcd.service']);
  assert.deepEqual(dropIn.Unit.After, ['etcd.service']);
  assert.deepEqual(dropIn.Unit.StartLimitIntervalSec, ['0']);
  assert.deepEqual(dropIn.Service.Restart, ['on-failure']);
  // A status-75 exit is not kept from restarting, and the unit restarts on failure too.
  assert.equal(dropIn.Service.RestartPreventExitStatus, undefined);
  assert.deepEqual(unit.Service.Restart, ['on-failure']);
  if (spawnSync('systemd-analyze', ['--version']).status !== 0) return;
  // systemd's own reading: the unit (its ExecStart at a binary that exists) with the drop-in
  // in its foyer.service.d/, and not a word of complaint.
  const dir = mkdtempSync(path.join(tmp, 'units-'));
  mkdirSync(path.join(dir, 'foyer.service.d'));
  writeFileSync(path.join(dir, 'foyer.service'), readFileSync(path.join(repo, 'packaging/systemd/foyer.service'), 'utf8')
    .replace(/^ExecStart=\S+/m, `ExecStart=${foyerBin}`));
  writeFileSync(path.join(dir, 'foyer.service.d/foyer-cluster.conf'), example('foyer-cluster.conf'));
  const verify = spawnSync('systemd-analyze', ['verify', path.join(dir, 'foyer.service')],
    { env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` }, encoding: 'utf8' });
  assert.equal(verify.status, 0, verify.stderr);
  assert.equal(verify.stderr, '');
});
