// A leader cut off from etcd but not from its visitors, by nftables in a network namespace
// of the test's own: it takes no join past its lease's deadline, steps down, and the
// standby takes over within 5 s with every acknowledged join. etcd also listens on a
// second loopback address that only the leader is given, so that one rule drops only the
// leader's packets to etcd; visitors still reach it. Once the partition heals, it comes
// back as a standby.
//
// The file runs itself again inside `unshare --net` (as root): a namespace's loopback and
// nftables are its own, so nothing on the machine is touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

const leaderOnly = '127.0.0.2';
const ttlMs = 2000;
const takeoverLimitMs = 5000;

function nft(...args) {
  const r = spawnSync('nft', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `nft ${args.join(' ')}: ${r.stderr}`);
}

async function join(node) {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST', signal: AbortSignal.timeout(1000) });
    const body = await res.json().catch(() => ({}));
    return { node: node.id, sentAt, status: res.status, ticket: body.ticket, place: body.place };
  } catch {
    return { node: node.id, sentAt, status: 0 }; // refused (a standby) or no answer
  }
}

// A poll of a visitor's place: what a leader answers from memory, without etcd.
async function poll(node, ticket) {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${node.url}/api/v1/rooms/demo/status`, {
      headers: { authorization: `Bearer ${ticket}` }, signal: AbortSignal.timeout(1000),
    });
    return { node: node.id, sentAt, status: res.status };
  } catch {
    return { node: node.id, sentAt, status: 0 };
  }
}

async function partitionedLeader() {
  const dir = clusterDir();
  const secretsDir = path.join(dir, 'shared');
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1, secondAddress: leaderOnly }).start();
  const rooms = [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }];
  const a = new ClusterNode({ dir, id: 'a', etcd: etcd.secondEndpoints, secretsDir, port: await freePort(), rooms });
  const b = new ClusterNode({ dir, id: 'b', etcd: etcd.endpoints, secretsDir, port: await freePort(), rooms });
  try {
    await a.start().leading();
    b.start();
    await until('b to stand by', () => /standby: .* leads; copying its log/.test(b.output), 15000);
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await join(a));

    nft('add', 'table', 'inet', 'partition');
    nft('add', 'chain', 'inet', 'partition', 'out', '{ type filter hook output priority 0 ; }');
    nft('add', 'rule', 'inet', 'partition', 'out', 'ip', 'daddr', leaderOnly, 'tcp', 'dport',
      String(etcd.members[0].secondClient), 'drop');
    const cutAt = Date.now();
    // Visitors keep coming to both, as a proxy would send them, until b has taken over;
    // those in line keep polling a. A join on a waits on etcd until a's lease is over.
    const polls = [];
    while (!answers.some((x) => x.node === 'b' && x.status === 201)) {
      assert.ok(Date.now() - cutAt < 15000, 'b never took over');
      polls.push(await poll(a, answers[0].ticket));
      answers.push(await join(a), await join(b));
    }
    const took = answers.find((x) => x.node === 'b' && x.status === 201).sentAt - cutAt;
    for (let i = 0; i < 10; i++) answers.push(await join(b));

    // a answered visitors during the partition, and took nothing past its lease.
    const fromA = answers.filter((x) => x.node === 'a' && x.sentAt >= cutAt);
    assert.ok(polls.some((x) => x.status === 200), 'a still answered visitors after the cut');
    const late = fromA.filter((x) => x.status === 201 && x.sentAt >= cutAt + ttlMs);
    assert.deepEqual(late, [], 'no join acknowledged by a past its lease');
    assert.ok(took <= takeoverLimitMs, `b took over ${took} ms after the cut`);
    const stopped = await a.exited;
    assert.equal(stopped.code, 75);
    assert.match(a.output, /stepping down: the lease could not be renewed before its deadline/);

    // Every acknowledged join is on b, each place once.
    const acked = answers.filter((x) => x.status === 201);
    assert.equal(new Set(acked.map((x) => x.place)).size, acked.length, 'places are unique');
    for (const { ticket, place } of acked) {
      const res = await fetch(`${b.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${ticket}` } });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).place, place);
    }

    // Healed, a comes back as b's standby.
    nft('delete', 'table', 'inet', 'partition');
    a.start();
    await until('a to stand by behind b', () => /standby: \{\\"node\\":\\"b\\".* leads; copying its log/.test(a.output.slice(a.mark)), 15000)
      .catch((e) => { throw new Error(`${e.message}:\n${a.output.slice(a.mark)}`); });
    return took;
  } finally {
    for (const n of [a, b]) if (n.alive) await n.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.FOYER_IN_NETNS) {
  test('inside the namespace: the partitioned leader steps down and the standby takes over', { timeout: 60000 }, async () => {
    const took = await partitionedLeader();
    console.log(`takeover after the partition: ${took} ms`);
  });
} else {
  test('a leader cut off from etcd but not from visitors takes nothing past its lease; the standby takes over within 5 s', { timeout: 90000 }, (t) => {
    if (spawnSync('unshare', ['--net', 'true']).status !== 0) {
      t.skip('no network namespace here (unshare --net needs root)');
      return;
    }
    const self = fileURLToPath(import.meta.url);
    const r = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && exec "$0" --test "$1"', process.execPath, self], {
      // Not as a child of this runner: its own exit status says how it went.
      env: { ...process.env, FOYER_IN_NETNS: '1', NODE_TEST_CONTEXT: undefined }, encoding: 'utf8', timeout: 80000,
    });
    const said = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, said);
    console.log(`takeover after the partition: ${/takeover after the partition: (\d+) ms/.exec(said)?.[1]} ms`);
  });
}
