// etcd's space quota reached during a sale: the leader acknowledges nothing it could not
// replicate. Joins get 503 with Retry-After, every join acknowledged before still polls
// with its place, and the node goes on leading and answering polls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { freePort } from '../nginx/harness.js';

test('a full etcd fails joins closed with 503, and loses nothing acknowledged', { timeout: 120000 }, async () => {
  const dir = clusterDir();
  // A quota a few hundred joins fill.
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1, flags: ['--quota-backend-bytes', '262144'] }).start();
  const node = new ClusterNode({
    dir, id: 'a', etcd: etcd.endpoints, secretsDir: path.join(dir, 'shared'), port: await freePort(),
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 60, target_url: '/welcome' }],
  });
  try {
    await node.start().leading();
    const acked = [];
    let refused = null;
    for (let i = 0; i < 50000 && !refused; i++) {
      const res = await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST' });
      const body = await res.json();
      if (res.status === 201) acked.push({ ticket: body.ticket, place: body.place });
      else refused = { status: res.status, body, retryAfter: res.headers.get('retry-after') };
    }
    assert.ok(refused, `etcd's quota was never reached (${acked.length} joins)`);
    assert.equal(refused.status, 503, JSON.stringify(refused));
    assert.equal(refused.body.error, 'storage_unavailable');
    assert.ok(Number(refused.retryAfter) > 0, 'with Retry-After');
    assert.ok(acked.length > 0, 'joins were acknowledged before the quota');
    assert.match(node.output, /the cluster's log refused entry \d+: etcd answered \d+: etcdserver: mvcc: database space exceeded/);
    // Still refused: nothing is acknowledged while etcd cannot take it.
    assert.equal((await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST' })).status, 503);
    for (const a of acked) {
      const res = await fetch(`${node.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${a.ticket}` } });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).place, a.place);
    }
    assert.ok(node.alive, 'the leader goes on leading');
  } finally {
    if (node.alive) await node.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
