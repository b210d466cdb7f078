// A leader cut off from etcd but not from its visitors, by nftables in a network namespace
// of the test's own (tests/lib/cluster.js): it takes no join past its lease's deadline,
// steps down, and the standby takes over within 5 s with every acknowledged join; its
// visitors' polls are still answered. etcd also listens on a second loopback address that
// only the leader is given, so that one rule drops only the leader's packets to etcd. Once
// the partition heals, it comes back as a standby. (The failover chaos test makes this
// fault among its others, under load through nginx.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ClusterNode, EtcdCluster, canMakeNetworkNamespace, clusterDir, cutOff, heal, inNetworkNamespace, runInNetworkNamespace,
} from '../lib/cluster.js';
import { until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

const leaderOnly = '127.0.0.2';
const ttlMs = 2000;
const takeoverLimitMs = 5000;

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
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1, addresses: [leaderOnly] }).start();
  const rooms = [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }];
  const a = new ClusterNode({ dir, id: 'a', etcd: etcd.endpointsAt(leaderOnly), secretsDir, port: await freePort(), rooms });
  const b = new ClusterNode({ dir, id: 'b', etcd: etcd.endpoints, secretsDir, port: await freePort(), rooms });
  try {
    await a.start().leading();
    b.start();
    await until('b to stand by', () => /standby: .* leads; copying its log/.test(b.output), 15000);
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await join(a));

    cutOff(leaderOnly);
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
    heal();
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

if (inNetworkNamespace) {
  test('inside the namespace: the partitioned leader steps down and the standby takes over', { timeout: 60000 }, async () => {
    const took = await partitionedLeader();
    console.log(`takeover after the partition: ${took} ms`);
  });
} else {
  test('a leader cut off from etcd but not from visitors takes nothing past its lease; the standby takes over within 5 s', { timeout: 90000 }, (t) => {
    if (!canMakeNetworkNamespace()) {
      t.skip('no network namespace here (unshare --net needs root)');
      return;
    }
    const { passed, said } = runInNetworkNamespace(fileURLToPath(import.meta.url), 80000);
    assert.ok(passed, said);
    console.log(`takeover after the partition: ${/takeover after the partition: (\d+) ms/.exec(said)?.[1]} ms`);
  });
}
