// kill -9 at the worst moments: while joins are in flight and while the ticker admits.
// Invariants: no acknowledged join lost (its ticket polls with the same place), no place
// issued twice, served monotonic across restarts, admitted in place order, and
// admitted <= rate × time + 1, a restart's downtime included (capped at 15 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FrontierWatch, assertAckedHold, assertInOrder, assertNoPlaceTwice, chaosConfig, crowd, roomInfo, sleep, withFoyer,
} from './helpers.js';

const admissionCapMs = 15000;

test('kill -9 during joins: every acknowledged join survives and no place is issued twice', { timeout: 90000 }, async () => {
  const rate = 600;
  const watch = new FrontierWatch(rate, Date.now());
  await withFoyer(chaosConfig({ rate }), {}, async (f) => {
    const acked = [];
    let cutOff = 0;
    for (let cycle = 0; cycle < 3; cycle++) {
      let stop = false;
      const statuses = new Map();
      const joining = crowd(f, { concurrency: 16, until: () => stop, acked, statuses });
      await sleep(300 + 150 * cycle);
      await watch.sample(f);
      await f.kill9();
      stop = true;
      await joining;
      cutOff += statuses.get(0) ?? 0;
      assert.deepEqual([...statuses.keys()].filter((s) => s !== 201 && s !== 0), [], 'joins either succeed or meet the dead server');

      await f.start();
      await watch.sample(f);
      assertNoPlaceTwice(acked);
      await assertAckedHold(f, acked);
      const info = await roomInfo(f);
      assert.ok(info.joined >= acked.length, `joined ${info.joined} counts all ${acked.length} acknowledged joins`);
    }
    assert.ok(cutOff > 0, 'the kills landed while joins were in flight');
    assert.ok(acked.length >= 100, `enough joins to mean something (${acked.length})`);

    // Joins made durable but never answered keep their places: new ones get fresh places.
    const fresh = [];
    await crowd(f, { concurrency: 4, until: () => fresh.length >= 40, acked: fresh });
    assertNoPlaceTwice([...acked, ...fresh]);
    await watch.sample(f);
  });
});

test('kill -9 during admissions: served stays monotonic, in place order and within the rate', { timeout: 90000 }, async () => {
  const rate = 6000; // 100 a second, rate × time at every poll; a durable step each second
  const watch = new FrontierWatch(rate, Date.now());
  await withFoyer(chaosConfig({ rate }), {}, async (f) => {
    const acked = [];
    await crowd(f, { concurrency: 16, until: () => acked.length >= 3000, acked });
    acked.sort((a, b) => a.place - b.place);
    // A spread of visitors whose polls must agree with admission in place order.
    const probes = acked.filter((_, i) => i % 40 === 0);
    let nextProbe = 0;

    for (let cycle = 0; cycle < 3; cycle++) {
      const until = Date.now() + 500 + 100 * cycle;
      while (Date.now() < until) {
        await watch.sample(f);
        const probe = probes[nextProbe++ % probes.length];
        const st = (await f.status(probe.ticket)).json;
        assert.equal(st.place, probe.place);
        assertInOrder(st);
        await sleep(20);
      }
      const beforeKill = watch.last.served;
      await f.kill9();
      await sleep(200);
      await f.start();
      const after = await watch.sample(f);
      assert.ok(after.served >= beforeKill, 'no admission is undone by the crash');
      for (const p of probes) {
        const st = (await f.status(p.ticket)).json;
        assert.equal(st.place, p.place);
        assertInOrder(st);
      }
    }
    assertNoPlaceTwice(acked);
    await assertAckedHold(f, acked);
    const last = await watch.sample(f);
    assert.ok(last.served > 0 && last.served < acked.length, `admission ran and the queue never emptied (${last.served})`);
  });
});

test('a restart after a long outage admits at most the 15 s cap at once', { timeout: 90000 }, async () => {
  const rate = 6000;
  const watch = new FrontierWatch(rate, Date.now());
  await withFoyer(chaosConfig({ rate }), {}, async (f) => {
    const acked = [];
    await crowd(f, { concurrency: 16, until: () => acked.length >= 3000, acked });
    await sleep(500);
    const before = await watch.sample(f);
    const killedAt = Date.now();
    await f.kill9();
    await sleep(admissionCapMs + 2000);
    const restartedAt = Date.now();
    await f.start();
    // Catch-up is capped: at most 15 s of admissions for the outage, plus what the rate
    // allowed between the last sample and the kill, and since the restart.
    for (let i = 0; i < 10; i++) {
      const s = await watch.sample(f);
      const sinceRestartMs = s.at - restartedAt;
      const allowed = before.served + (rate * (admissionCapMs + (killedAt - before.at) + sinceRestartMs)) / 60000 + 2;
      assert.ok(s.served <= allowed,
        `served ${s.served} after the outage; the cap allows ${allowed.toFixed(1)} (uncapped would be ${(before.served + (rate * (s.at - before.at)) / 60000).toFixed(0)})`);
      await sleep(100);
    }
    assert.ok(watch.last.served < acked.length, 'the queue never emptied, so the cap was what limited admission');
    await assertAckedHold(f, acked);
  });
});
