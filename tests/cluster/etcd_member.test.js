// An etcd member's machine lost during a sale, and replaced by the commands of
// docs/operations.md ("An etcd member is lost"): the leader goes on acknowledging joins
// through the two members left, and the new member, added with `etcdctl member add` and
// started with an empty data dir, holds the whole log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

const b64 = (text) => Buffer.from(text).toString('base64');

function etcdctl(endpoints, ...args) {
  const r = spawnSync('etcdctl', ['--endpoints', endpoints.join(','), ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, `etcdctl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// etcd adds a member only once the others have all been connected for 5 s ("unhealthy
// cluster" before): the runbook says to try again.
async function addMember(endpoints, ...args) {
  for (let tries = 0; ; tries++) {
    const r = spawnSync('etcdctl', ['--endpoints', endpoints.join(','), 'member', 'add', ...args], { encoding: 'utf8' });
    if (r.status === 0) return r.stdout;
    assert.ok(/unhealthy cluster/.test(r.stderr) && tries < 40, `etcdctl member add: ${r.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// The keys of the cluster's log as this member alone holds them (a serializable read).
async function logKeys(member) {
  const res = await fetch(`http://127.0.0.1:${member.client}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64('/foyer-test/log/'), range_end: b64('/foyer-test/log0'), count_only: true, serializable: true }),
  });
  return res.ok ? Number((await res.json()).count ?? 0) : -1;
}

test('a lost etcd member is replaced during joins: nothing acknowledged is lost, and the new member holds the log', { timeout: 120000 }, async () => {
  const dir = clusterDir();
  const etcd = await new EtcdCluster(path.join(dir, 'etcd')).start();
  const node = new ClusterNode({
    dir, id: 'a', etcd: etcd.endpoints, secretsDir: path.join(dir, 'shared'), port: await freePort(),
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 60, target_url: '/welcome' }],
  });
  const acked = [];
  const unanswered = [];
  let joining = true;
  let joins = null;
  try {
    await node.start().leading();
    joins = (async () => {
      for (let i = 0; i < 100000 && joining; i++) {
        try {
          const res = await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST' });
          const body = await res.json();
          if (res.status === 201) acked.push({ ticket: body.ticket, place: body.place });
        } catch (e) {
          unanswered.push(e.cause?.code ?? e.message);
        }
      }
    })();
    await until('joins before the loss', () => acked.length >= 50, 20000);

    // The machine of member e2 is lost, with its disk.
    const [lost] = etcd.members.splice(2, 1);
    await etcd.kill9(lost);
    rmSync(path.join(etcd.dir, lost.name), { recursive: true, force: true });
    const atLoss = acked.length;
    await until('joins through the two members left', () => acked.length >= atLoss + 50, 20000);

    // The runbook: find its ID, remove it, add the new member, start it with what `member add` printed.
    // `member list` prints `ID, status, name, peer URLs, client URLs, learner`, the ID in hex.
    const left = etcd.endpoints;
    const row = etcdctl(left, 'member', 'list').split('\n').find((line) => line.split(', ')[2] === lost.name);
    etcdctl(left, 'member', 'remove', row.split(', ')[0]);
    const fresh = { name: 'e3', client: await freePort(), peer: await freePort(), output: '', started: true };
    const added = await addMember(left, fresh.name, `--peer-urls=http://127.0.0.1:${fresh.peer}`);
    const initial = /ETCD_INITIAL_CLUSTER="([^"]+)"/.exec(added)[1];
    assert.match(added, /ETCD_INITIAL_CLUSTER_STATE="existing"/);
    etcd.members.push(fresh);
    etcd.launch(fresh, initial);

    const atJoin = acked.length;
    await until('joins with the new member in', () => acked.length >= atJoin + 50, 20000);
    joining = false;
    await joins;
    assert.deepEqual(unanswered, [], 'every join was answered');
    // The new member holds every entry the others hold.
    const expected = await logKeys(etcd.members[0]);
    assert.ok(expected > 0);
    await until('the new member to hold the log', async () => (await logKeys(fresh)) === expected, 20000);
    assert.equal(etcdctl(etcd.endpoints, 'member', 'list').trim().split('\n').length, 3);

    assert.ok(node.serving, `the leader went on leading:\n${node.output}`);
    for (const a of acked) {
      const res = await fetch(`${node.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${a.ticket}` } });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).place, a.place);
    }
  } finally {
    joining = false;
    await joins;
    if (node.alive) await node.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
