// etcd loses the cluster's log mid-sale (its data dir wiped). No node leads the empty log
// that follows while the old tickets live on: the leader steps down, the standby that
// holds entries refuses, and a new node with an empty data dir and the same secrets_dir
// refuses too, naming `foyer new-incarnation`. After it, an old ticket is never honoured
// for a place the new log did not give, and no place is given twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { runFoyer, until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

const run = promisify(execFile);
const rooms = [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }];

async function join(node) {
  try {
    const res = await fetch(`${node.url}/api/v1/rooms/demo/join`, { method: 'POST' });
    return res.status === 201 ? await res.json() : null;
  } catch {
    return null;
  }
}

async function status(node, ticket) {
  const res = await fetch(`${node.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${ticket}` } });
  return { status: res.status, json: await res.json() };
}

// The output of a node's run that ended, once it has: a node still running (leading) after
// 20 s did not refuse.
async function refusal(node) {
  const timeout = new Promise((resolve) => setTimeout(() => resolve({ code: 'still running' }), 20000));
  const { code } = await Promise.race([node.exited, timeout]);
  return { code, output: node.output.slice(node.mark) };
}

test('etcd wiped mid-sale: no node leads the empty log until a new incarnation, and no place is given twice', { timeout: 180000 }, async (t) => {
  const dir = clusterDir();
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1 }).start();
  const secretsDir = path.join(dir, 'shared');
  const node = async (id) => new ClusterNode({ dir, id, etcd: etcd.endpoints, secretsDir, port: await freePort(), rooms });
  const a = await node('a');
  const b = await node('b');
  const c = await node('c');
  t.after(async () => {
    for (const n of [a, b, c]) if (n.alive) await n.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await a.start().leading();
  b.start();
  const old = [];
  for (let i = 0; i < 20; i++) old.push(await join(a));
  assert.ok(old.every(Boolean));
  await until('b to copy the log', () => /standby: .* leads; copying its log/.test(b.output), 10000);

  // Joins go on while etcd loses its data.
  let selling = true;
  const sale = (async () => {
    while (selling) {
      const j = await join(a);
      if (j) old.push(j);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const member = etcd.members[0];
  await etcd.kill9(member);
  rmSync(path.join(etcd.dir, member.name), { recursive: true, force: true });
  member.started = false;
  etcd.restart(member);
  await until('etcd to be back, empty', () => etcd.healthy(), 20000);
  selling = false;
  await sale;

  // The leader's lease is gone with etcd's data: it steps down. The standby holds entries
  // etcd has lost, and refuses to lead them.
  const steppedDown = await refusal(a);
  assert.notEqual(steppedDown.code, 0, steppedDown.output);
  const standby = await refusal(b);
  assert.equal(standby.code, 1, standby.output);
  assert.match(standby.output, /etcd has no entry \d+ under '\/foyer-test'.*Refusing to lead.*foyer backup/);

  // A new node, an empty data dir, the same secrets: it would honour the old tickets.
  c.start();
  const fresh = await refusal(c);
  assert.equal(fresh.code, 1, fresh.output);
  assert.match(fresh.output, /the cluster's log under '\/foyer-test' is empty, and this node's secret was not made for it/);
  assert.match(fresh.output, /`foyer new-incarnation --config FILE`/);
  // So does the old leader, restarted.
  a.start();
  assert.equal((await refusal(a)).code, 1, a.output);

  const repair = await runFoyer(['new-incarnation', '--config', c.configPath]);
  assert.equal(repair.code, 0, repair.stdout + repair.stderr);
  assert.match(repair.stdout, /new incarnation.*under '\/foyer-test'.*ticket_lost_in_restore/);

  await c.start().leading();
  const given = [];
  for (let i = 0; i < 30; i++) given.push(await join(c));
  assert.ok(given.every(Boolean));
  const places = given.map((j) => j.place);
  assert.equal(new Set(places).size, places.length, 'no place is given twice');
  for (const j of old) {
    const st = await status(c, j.ticket);
    assert.equal(st.status, 401, JSON.stringify(st.json));
    assert.equal(st.json.error, 'ticket_lost_in_restore');
  }
  for (const j of given) assert.equal((await status(c, j.ticket)).json.place, j.place);

  // The standby that held the lost log cannot copy the new one onto its own.
  b.start();
  const stale = await refusal(b);
  assert.equal(stale.code, 1, stale.output);
  assert.match(stale.output, /entries of another cluster's log than the one under '\/foyer-test' \(an earlier one/);
  // With a new data dir it copies the new log and stands by.
  b.wipe();
  b.start();
  await until('b to stand by on the new log', () => /standby: .* leads; copying its log/.test(b.output.slice(b.mark)), 10000);
});

// `foyer new-incarnation` writes the new incarnation only once the log is marked as its
// own: when another mark comes first, the secrets still match the log's mark.
test('new-incarnation that loses the mark to another leaves the secrets as they were', { timeout: 60000 }, async (t) => {
  const dir = clusterDir();
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), { size: 1 }).start();
  const secretsDir = path.join(dir, 'shared');
  const a = new ClusterNode({ dir, id: 'a', etcd: etcd.endpoints, secretsDir, port: await freePort(), rooms });
  t.after(async () => {
    if (a.alive) await a.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await a.start().leading();
  await a.kill9();
  const incarnationFile = path.join(secretsDir, 'incarnation.json');
  const before = existsSync(incarnationFile) ? readFileSync(incarnationFile, 'utf8') : null;
  // etcd lost the log, and another run of new-incarnation marked the empty log first.
  const etcdctl = (...args) => run('etcdctl', [`--endpoints=${etcd.endpoints.join(',')}`, ...args]);
  await etcdctl('del', '--prefix', '/foyer-test');
  await etcdctl('put', '/foyer-test/incarnation', 'another-mark');

  const lost = await runFoyer(['new-incarnation', '--config', a.configPath]);
  assert.equal(lost.code, 1, lost.stdout + lost.stderr);
  assert.match(lost.stderr, /under '\/foyer-test' is not empty.*another mark came first/);
  assert.equal(existsSync(incarnationFile) ? readFileSync(incarnationFile, 'utf8') : null, before);

  // With the log unmarked, the command marks it and writes the incarnation that matches.
  await etcdctl('del', '/foyer-test/incarnation');
  const won = await runFoyer(['new-incarnation', '--config', a.configPath]);
  assert.equal(won.code, 0, won.stdout + won.stderr);
  assert.notEqual(readFileSync(incarnationFile, 'utf8'), before);
});
