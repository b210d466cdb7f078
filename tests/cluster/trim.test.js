// The cluster's log in etcd stays small: the leader deletes the entries every live node
// holds, less the window kept. A standby away longer than the window cannot catch up from
// etcd and says so; restored from a backup of the leader (`foyer restore --secrets-dir`),
// it copies the rest from etcd and takes over with every acknowledged join.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { runFoyer, until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

const prefix = '/foyer-test';
const retained = 5;
const b64 = (text) => Buffer.from(text).toString('base64');
const logKey = (entry) => `${prefix}/log/${String(entry).padStart(20, '0')}`;

// The entries of the cluster's log etcd holds, in order.
async function logEntries(etcd) {
  const res = await fetch(`${etcd.endpoints[0]}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(`${prefix}/log/`), range_end: b64(`${prefix}/log0`), keys_only: true }),
  });
  const kvs = (await res.json()).kvs ?? [];
  return kvs.map((kv) => Number(Buffer.from(kv.key, 'base64').toString().slice(-20)));
}

// What a node reported it holds (undefined once its lease is gone).
async function held(etcd, id) {
  const res = await fetch(`${etcd.endpoints[0]}/v3/kv/range`, {
    method: 'POST', body: JSON.stringify({ key: b64(`${prefix}/held/${id}`) }),
  });
  const kv = ((await res.json()).kvs ?? [])[0];
  return kv ? Number(Buffer.from(kv.value, 'base64').toString()) : undefined;
}

async function metric(node, name) {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : undefined;
}

// Joins one at a time, so each is an entry of its own.
async function join(node, count, acked) {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST' });
    assert.equal(res.status, 201);
    const body = await res.json();
    acked.push({ ticket: body.ticket, place: body.place });
  }
}

test('the log in etcd is trimmed below what every live node holds; a node away longer restores a backup and catches up', { timeout: 180000 }, async () => {
  const dir = clusterDir();
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1 }).start();
  const secretsDir = path.join(dir, 'shared');
  const rooms = [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }];
  const node = async (id) => new ClusterNode({
    dir, id, etcd: etcd.endpoints, secretsDir, port: await freePort(), rooms, cluster: { retained_entries: retained },
  });
  const a = await node('a');
  const b = await node('b');
  const acked = [];
  try {
    await a.start().leading();
    b.start();
    await join(a, 40, acked);
    // Trimmed while b copies: every entry b holds, less the window, is gone from etcd.
    // Trimmed while b copies. The leader writes an entry a second even when idle (its
    // storage probe), so each check reads etcd before what bounds it.
    await until('the log to be trimmed', async () => (await logEntries(etcd))[0] > 30, 15000);
    for (let i = 0; i < 5; i++) {
      const kept = await logEntries(etcd);
      const bHolds = await held(etcd, 'b');
      const last = await metric(a, 'foyer_cluster_log_last_entry');
      assert.deepEqual(kept, Array.from({ length: kept.length }, (_, k) => kept[0] + k), 'what is kept has no gap');
      assert.ok(kept[0] - 1 <= bHolds - retained, `trimmed through ${kept[0] - 1}, b holds ${bHolds}`);
      assert.ok(kept.length >= retained && kept.at(-1) <= last, `kept ${kept[0]}..${kept.at(-1)}, last ${last}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.ok(await metric(a, 'foyer_cluster_log_trimmed_through') > 30);
    assert.equal(await metric(a, 'foyer_cluster_standbys'), 1);
    assert.ok(await metric(a, 'foyer_cluster_standby_lag_entries') <= 3, 'b keeps up');
    // b away: the leader stops keeping the log for it once its lease lapses.
    await b.kill9();
    const bHeld = await metric(a, 'foyer_cluster_log_last_entry'); // at most what b holds
    await until("b's report to go with its lease", async () => (await held(etcd, 'b')) === undefined);
    await join(a, 20, acked);
    await until('the log to be trimmed past b', async () => (await logEntries(etcd))[0] > bHeld + 1);

    // Back, b cannot catch up from etcd, and says how to start it.
    b.start();
    const refused = await b.exited;
    assert.notEqual(refused.code, 0);
    assert.match(b.output, /this node holds \d+ entries of the cluster's log, but etcd's copy goes on only at '.*': the entries between were deleted while this node was away/);
    assert.match(b.output, /Start it from a backup of the leader: `foyer backup --secrets-dir` there/);

    // A backup of the leader, taken while it runs, with the keys from the shared secrets dir.
    const backupDir = path.join(dir, 'backup');
    const noKeys = await runFoyer(['backup', '--data-dir', a.dataDir, '--to', path.join(dir, 'no-keys')]);
    assert.equal(noKeys.code, 1);
    assert.match(noKeys.stderr, /give --secrets-dir/);
    const backup = await runFoyer(['backup', '--data-dir', a.dataDir, '--secrets-dir', secretsDir, '--to', backupDir]);
    assert.equal(backup.code, 0, backup.stderr);
    await join(a, 10, acked); // after the backup: b copies these from etcd

    // Restored only into a node of the same cluster, and only into an empty data dir.
    const otherCluster = path.join(dir, 'other');
    mkdirSync(otherCluster, { mode: 0o700 });
    writeFileSync(path.join(otherCluster, 'secret'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    b.wipe();
    const wrongCluster = await runFoyer(['restore', '--from', backupDir, '--data-dir', b.dataDir,
      '--secrets-dir', otherCluster]);
    assert.equal(wrongCluster.code, 1);
    assert.match(wrongCluster.stderr, /the backup's secret is not the one in .*: it is a backup of another cluster/);
    const restored = await runFoyer(['restore', '--from', backupDir, '--data-dir', b.dataDir, '--secrets-dir', secretsDir]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /entry \d+ of the cluster's log; start the node with its \[cluster\] config/);

    b.start();
    const now = await metric(a, 'foyer_cluster_log_last_entry');
    await until('the restored b to copy the rest from etcd', async () => (await held(etcd, 'b')) === now);

    // b takes over with every join acknowledged, before the backup and after it.
    await a.kill9();
    await b.leading();
    for (const { ticket, place } of acked) {
      const res = await fetch(`${b.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${ticket}` } });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).place, place);
    }
    await join(b, 1, acked);
    assert.equal(acked.at(-1).place, acked.at(-2).place + 1, 'places go on from the last one given');
  } finally {
    for (const n of [a, b]) if (n.alive) await n.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a standby copying a long log reports what it holds as it goes, so the leader keeps the rest for it', { timeout: 120000 }, async () => {
  const dir = clusterDir();
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1 }).start();
  const secretsDir = path.join(dir, 'shared');
  const rooms = [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }];
  const node = async (id) => new ClusterNode({ dir, id, etcd: etcd.endpoints, secretsDir, port: await freePort(), rooms });
  const a = await node('a');
  const b = await node('b');
  try {
    await a.start().leading();
    await join(a, 300, []);
    const last = await metric(a, 'foyer_cluster_log_last_entry');
    // b starts empty and copies the log from its first entry, a batch of 64 at a time.
    b.start();
    const reports = [];
    await until('b to copy the whole log', async () => {
      const h = await held(etcd, 'b');
      if (h !== undefined && h !== reports.at(-1)) reports.push(h);
      return h >= last;
    }, 30000);
    assert.ok(reports[0] < last, `b reports while it copies: its reports were ${reports.join(', ')} of ${last} entries`);
    assert.ok(b.alive && !b.serving, 'b stands by');
  } finally {
    for (const n of [a, b]) if (n.alive) await n.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
