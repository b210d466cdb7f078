// A leader's own disk full during a sale: it refuses joins with 503 before putting them in
// the cluster's log, so it goes on leading (an entry in etcd that it could not then write
// would make it step down), keeps every acknowledged join, and takes joins again once space
// is freed. Needs root to mount a tmpfs; CI runs as root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { fillDevice, mountTmpfs, rootOnly, sleep } from '../chaos/helpers.js';
import { freePort } from '../nginx/harness.js';

const join = async (node) => {
  const res = await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST' }).catch((e) => {
    throw new Error(`no answer (${e.message}); the node said:\n${node.output}`);
  });
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
};

test("a full disk on the leader fails joins with 503 and it goes on leading; joins resume once space is freed", { skip: rootOnly, timeout: 90000 }, async () => {
  const dir = clusterDir();
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1 }).start();
  const device = mountTmpfs(4 << 20);
  const node = new ClusterNode({
    dir: device.dir, id: 'a', etcd: etcd.endpoints, secretsDir: path.join(dir, 'shared'), port: await freePort(),
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 60, target_url: '/welcome' }],
  });
  try {
    await node.start().leading();
    const acked = [];
    for (let i = 0; i < 20; i++) {
      const r = await join(node);
      assert.equal(r.status, 201);
      acked.push(r.body);
    }
    const filler = fillDevice(device.dir);
    let refused = null;
    for (let i = 0; i < 5000 && !refused; i++) {
      const r = await join(node);
      if (r.status === 201) acked.push(r.body);
      else refused = r;
    }
    assert.ok(refused, 'a join was refused on a full disk');
    assert.equal(refused.status, 503, JSON.stringify(refused));
    assert.equal(refused.body.error, 'storage_unavailable');
    assert.ok(Number(refused.retryAfter) > 0, 'with Retry-After');
    // Its storage probe writes once a second: two of them pass on the full disk.
    await sleep(2500);
    for (let i = 0; i < 3; i++) assert.equal((await join(node)).status, 503, 'still full, still 503');
    assert.ok(node.alive && node.serving, `a still leads:\n${node.output}`);
    assert.doesNotMatch(node.output, /could not write/);
    for (const a of acked) {
      const res = await fetch(`${node.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${a.ticket}` } });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).place, a.place);
    }

    rmSync(filler);
    let resumed = null;
    for (let i = 0; i < 50 && !resumed; i++) {
      const r = await join(node);
      if (r.status === 201) resumed = r.body;
      else await sleep(100);
    }
    assert.ok(resumed, `joins succeed again once space is freed:\n${node.output}`);
    assert.ok(acked.every((a) => a.place !== resumed.place), 'no place given twice');
  } finally {
    if (node.alive) await node.kill9();
    device.unmount();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
