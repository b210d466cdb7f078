// Storage faults on real devices: a full disk (a tiny tmpfs) and a storage that stalls
// (an ext4 on a loop device, frozen with fsfreeze, so that every write and fsync
// blocks). Needs root for mount; CI runs as root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { accountHint, until } from '../lib/foyer.js';
import {
  FrontierWatch, assertAckedHold, assertNoPlaceTwice, chaosConfig, crowd, fillDevice, mountLoopExt4, mountTmpfs,
  rootOnly, sleep, tryJoin, withFoyer,
} from './helpers.js';

const tmpfsBytes = 4 << 20;
const maxJoinsUntilFull = 5000;

test('a full disk: joins fail cleanly with 503, nothing acknowledged is lost, joins resume once space is freed', { skip: rootOnly, timeout: 90000 }, async () => {
  const rate = 60;
  const watch = new FrontierWatch(rate, Date.now());
  const device = mountTmpfs(tmpfsBytes);
  try {
    await withFoyer(chaosConfig({ rate }), { dataDir: path.join(device.dir, 'data') }, async (f) => {
      const acked = [];
      await crowd(f, { concurrency: 4, until: () => acked.length >= 20, acked });
      const filler = fillDevice(device.dir);

      // The WAL's last page still has room for a few joins; then the device is full.
      let refused = null;
      for (let i = 0; i < maxJoinsUntilFull && !refused; i++) {
        const r = await tryJoin(f);
        if (r.status === 201) acked.push({ ticket: r.json.ticket, place: r.json.place });
        else refused = r;
      }
      assert.ok(refused, `a join was refused within ${maxJoinsUntilFull} joins on a full disk`);
      assert.equal(refused.status, 503, `a full disk answers 503, not ${refused.status}:\n${f.output}`);
      assert.equal(refused.json.error, 'storage_unavailable');
      assert.ok(refused.headers.get('retry-after'), 'with a Retry-After');
      for (let i = 0; i < 3; i++) assert.equal((await tryJoin(f)).status, 503, 'still full, still 503');

      // Polls need no storage: everyone already in the queue keeps their place.
      await assertAckedHold(f, acked);
      await watch.sample(f);
      // The admission step fails at every tick (50 a second) while the disk is full: it
      // is logged once, then once per 10 s with a count.
      await sleep(1000);
      const failures = f.output.match(/^\{.*"msg":"room 'demo': admission step not durable: .*\}$/gm) ?? [];
      assert.equal(failures.length, 1, `one line for a second of failing steps:\n${f.output}`);
      assert.equal(JSON.parse(failures[0]).room, 'demo');

      rmSync(filler);
      let resumed = null;
      for (let i = 0; i < 50 && !resumed; i++) {
        const r = await tryJoin(f);
        if (r.status === 201) resumed = r;
        else await sleep(100);
      }
      assert.ok(resumed, `joins succeed again once space is freed:\n${f.output}`);
      acked.push({ ticket: resumed.json.ticket, place: resumed.json.place });
      await crowd(f, { concurrency: 4, until: () => acked.length >= 60, acked });
      assertNoPlaceTwice(acked);
      await watch.sample(f);

      await f.kill9();
      await f.start();
      await watch.sample(f);
      await assertAckedHold(f, acked);
      assertNoPlaceTwice(acked);
    });
  } finally {
    device.unmount();
  }
});

// Visitors who opted in to be told of their turn (/metrics).
async function contactsHeld(f) {
  const text = (await f.request('GET', '/metrics')).text;
  return Number(text.split('\n').find((l) => l.startsWith('foyer_notification_contacts ')).split(' ').at(-1));
}
const optIn = (f, ticket, email) => f.request('POST', '/api/v1/rooms/demo/notifications', { ticket, body: { email } });

test('a full disk: an opt-in to be told of the turn answers 503 and is not kept; once space is freed it is, through a kill -9', { skip: rootOnly, timeout: 60000 }, async () => {
  const device = mountTmpfs(tmpfsBytes);
  try {
    // One visitor a minute: the visitors here stay waiting. No relay listens: no notice is
    // due while they wait, and an opt-in only keeps the address.
    const config = {
      ...chaosConfig({ rate: 1 }),
      notifications: { email: { host: '127.0.0.1', port: 9, from: 'rooms@shop.example.com', starttls: false } },
    };
    await withFoyer(config, { dataDir: path.join(device.dir, 'data') }, async (f) => {
      const tickets = [];
      for (let i = 0; i < 4; i++) {
        const r = await tryJoin(f);
        assert.equal(r.status, 201, r.text);
        tickets.push(r.json.ticket);
      }
      assert.equal((await optIn(f, tickets[2], 'early@example.com')).status, 201);
      assert.equal(await contactsHeld(f), 1);

      const filler = fillDevice(device.dir);
      let full = false;
      for (let i = 0; i < maxJoinsUntilFull && !full; i++) full = (await tryJoin(f)).status === 503;
      assert.ok(full, 'joins are refused on the full disk');
      const refused = await optIn(f, tickets[3], 'late@example.com');
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json.error, 'storage_unavailable');
      assert.equal(await contactsHeld(f), 1, 'an opt-in that was not written is not kept');

      rmSync(filler);
      let accepted = null;
      for (let i = 0; i < 50 && !accepted; i++) {
        const r = await optIn(f, tickets[3], 'late@example.com');
        if (r.status === 201) accepted = r;
        else await sleep(100);
      }
      assert.ok(accepted, `the opt-in succeeds once space is freed:\n${f.output}`);
      assert.equal(await contactsHeld(f), 2);

      await f.kill9();
      await f.start();
      assert.equal(await contactsHeld(f), 2, `both opt-ins answered 201 are there after a kill -9:\n${f.output}`);
    });
  } finally {
    device.unmount();
  }
});

test('a full disk under a file sink: a batch cut short is taken back, and every line is whole once space is freed', { skip: rootOnly, timeout: 60000 }, async () => {
  const device = mountTmpfs(tmpfsBytes);
  const file = path.join(device.dir, 'events.ndjson');
  const token = 'disk-test-admin-token';
  try {
    const config = { ...chaosConfig({ server: { admin_token: token } }), sinks: [{ type: 'file', name: 'log', path: file }] };
    // The data dir on the machine's disk: only the sink's file meets the full device.
    await withFoyer(config, {}, async (f) => {
      const auth = { headers: { authorization: `Bearer ${token}` } };
      const failed = async () => Number(/^foyer_sink_failed_total\{sink="log"\} (\d+)$/m.exec((await f.request('GET', '/metrics')).text)?.[1] ?? 0);
      const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
      await until('the first lines', () => lines().length > 0);
      // What is left is the slack of the file's last page: the batches after it are cut short.
      const filler = fillDevice(device.dir);
      for (let i = 0; i < 100; i++) {
        for (const action of ['pause', 'resume']) {
          assert.equal((await f.request('POST', `/api/v1/admin/rooms/demo/${action}`, auth)).status, 200);
        }
      }
      await until('writes to fail', async () => (await failed()) > 0);
      rmSync(filler);
      const trail = (await f.request('GET', '/api/v1/admin/rooms/demo/audit?limit=100000', auth)).text.trimEnd().split('\n');
      const last = String(JSON.parse(trail.at(-1)).seq);
      await until('the backlog written', () => lines().some((l) => l.includes(`"id":"${last}"`)));
      for (const line of lines()) {
        assert.doesNotThrow(() => JSON.parse(line), `a whole line: ${line.slice(0, 200)}`);
      }
    });
  } finally {
    device.unmount();
  }
});

test('a storage that stalls: polls are answered at once, admission keeps the rate, joins wait for durability, then succeed', { skip: rootOnly, timeout: 90000 }, async () => {
  const stallMs = 1500;
  const hintSecret = 'shared-with-the-shop-0123456789';
  const carol = { account: 'carol@example', account_hint: accountHint(hintSecret, 'demo', 'carol@example') };
  const rate = 600;
  const watch = new FrontierWatch(rate, Date.now());
  const device = mountLoopExt4(64);
  try {
    await withFoyer(chaosConfig({ rate, server: { account_hint_secret: hintSecret } }), { dataDir: path.join(device.dir, 'data') }, async (f) => {
      const acked = [];
      // Enough that the queue outlasts the stall at 10 admissions a second.
      await crowd(f, { concurrency: 4, until: () => acked.length >= 200, acked });
      const beforeStall = await watch.sample(f);

      device.freeze();
      let answered = 0;
      let waiting;
      // A process blocked on a frozen device cannot even be killed: always thaw first.
      try {
        waiting = Array.from({ length: 8 }, () => tryJoin(f).then((r) => { answered++; return r; }));
        // While the first join of an account waits on the storage, more joins of that
        // account are told to retry: they must not each take a place.
        const first = f.join('demo', carol);
        await sleep(100);
        const again = await Promise.race([
          Promise.all(Array.from({ length: 4 }, () => f.join('demo', carol))),
          sleep(1000).then(() => []),
        ]);
        assert.deepEqual(again.map((r) => r.status), [409, 409, 409, 409], 'answered at once, while the storage stalls');
        waiting.push(first.then((r) => { answered++; return { status: r.status, json: r.json }; }));
        const t0 = Date.now();
        while (Date.now() - t0 < stallMs) {
          const polled = Date.now();
          await assertAckedHold(f, acked.slice(0, 5));
          assert.ok(Date.now() - polled < 500, 'polls do not wait for the stalled storage');
          await watch.sample(f);
          await sleep(100);
        }
        assert.equal(answered, 0, 'no join is acknowledged before it is durable');
        // Admission is rate × time from the last durable step: it does not wait for the
        // storage, and a restart admits at least as much again (checked below).
        const duringStall = watch.last;
        const due = (rate * (duringStall.at - beforeStall.at)) / 60000;
        assert.ok(duringStall.served < acked.length, 'the queue outlasted the stall');
        assert.ok(duringStall.served - beforeStall.served >= due - 1,
          `admitted ${duringStall.served - beforeStall.served} while the storage stalled for ${duringStall.at - beforeStall.at} ms; the rate allows ${due.toFixed(1)}`);
      } finally {
        device.thaw();
      }

      for (const r of await Promise.all(waiting)) {
        assert.equal(r.status, 201, `a join that waited for the storage succeeds: ${r.status}`);
        acked.push({ ticket: r.json.ticket, place: r.json.place });
      }
      assertNoPlaceTwice(acked);
      await watch.sample(f);

      await f.kill9();
      await f.start();
      await watch.sample(f);
      await assertAckedHold(f, acked);
    });
  } finally {
    device.unmount();
  }
});

test('a frozen storage climbs the ladder and /readyz turns 503; polls, passes, the frontier and the admin API answer; all comes back after the thaw', { skip: rootOnly, timeout: 90000 }, async () => {
  const rate = 600;
  const adminToken = 'chaos-admin-token-0123456789';
  const admin = { authorization: `Bearer ${adminToken}` };
  const watch = new FrontierWatch(rate, Date.now());
  const config = {
    ...chaosConfig({ rate, server: { admin_token: adminToken } }),
    // A write pending 200 ms is hot; 1 s hot climbs, 2 s calm descends; ready needs a write within 2 s.
    overload: { commit_ms: 200, rise_after_ms: 1000, fall_after_ms: 2000, ready_write_ms: 2000 },
  };
  const level = async (f) => Number(/^foyer_overload_level (\d+)$/m.exec((await f.request('GET', '/metrics')).text)[1]);
  const until = async (what, check, ms) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await check();
      if (value) return value;
      assert.ok(Date.now() < deadline, `${what} within ${ms} ms`);
      await sleep(100);
    }
  };
  const device = mountLoopExt4(64);
  try {
    await withFoyer(config, { dataDir: path.join(device.dir, 'data') }, async (f) => {
      const acked = [];
      await crowd(f, { concurrency: 4, until: () => acked.length >= 200, acked });
      await until('ready', async () => (await f.request('GET', '/readyz')).status === 200, 5000);
      await watch.sample(f);

      device.freeze();
      // A process blocked on a frozen device cannot even be killed: always thaw first.
      try {
        const notReady = await until('/readyz 503', async () => {
          const r = await f.request('GET', '/readyz');
          return r.status === 503 && r;
        }, 10000);
        assert.equal(notReady.json.error, 'not_ready');
        assert.equal(notReady.json.reason, 'storage_stalled');
        assert.equal(notReady.headers.get('content-type'), 'application/problem+json');
        await until('the ladder at its top', async () => (await level(f)) === 3, 15000);

        // Joins are refused at once, not queued behind the stalled storage.
        const started = Date.now();
        const join = await f.join();
        assert.equal(join.status, 503);
        assert.equal(join.json.error, 'overloaded');
        assert.equal(join.headers.get('retry-after'), '30');
        assert.ok(Date.now() - started < 500, 'refused without waiting for the storage');
        // Admitted visitors keep their passes; the frontier, the metrics and the admin API answer.
        await assertAckedHold(f, acked.slice(0, 5));
        await watch.sample(f);
        const ops = await f.request('GET', '/api/v1/admin/ops', { headers: admin });
        assert.equal(ops.status, 200);
        assert.equal(ops.json.overload_level, 3);
        assert.match(f.output, /"msg":"overload: level 3 \(refuse_joins\), was 2: loop lag \d+ ms, commit latency \d+ ms"/);
      } finally {
        device.thaw();
      }

      await until('/readyz 200 after the thaw', async () => (await f.request('GET', '/readyz')).status === 200, 20000);
      await until('the ladder back at 0', async () => (await level(f)) === 0, 20000);
      const again = await tryJoin(f);
      assert.equal(again.status, 201, 'joins are taken again');
      acked.push({ ticket: again.json.ticket, place: again.json.place });
      await watch.sample(f);
      await assertAckedHold(f, acked);
      assertNoPlaceTwice(acked);
    });
  } finally {
    device.unmount();
  }
});
