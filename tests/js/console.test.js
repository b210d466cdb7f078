import { test } from 'node:test';
import assert from 'node:assert/strict';

import { addSample, admissionSeries, queueSeries, WINDOW_MS } from '../../web/js/samples.js';
import { areaPath, linePath, niceMax } from '../../web/js/chart.js';

const room = (id, waiting, served) => ({ id, waiting, served });

test('samples keep the last hour only', () => {
  let samples = [];
  samples = addSample(samples, 1000, [room('a', 5, 0)]);
  samples = addSample(samples, 2000, [room('a', 4, 1), room('b', 9, 0)]);
  assert.deepEqual(samples, [
    { at: 1000, rooms: { a: { w: 5, s: 0 } } },
    { at: 2000, rooms: { a: { w: 4, s: 1 }, b: { w: 9, s: 0 } } },
  ]);
  samples = addSample(samples, 1000 + WINDOW_MS, [room('a', 0, 5)]);
  assert.deepEqual(samples.map((s) => s.at), [2000, 1000 + WINDOW_MS]);
});

test('a sample taken at the same or an earlier server time replaces the later ones', () => {
  let samples = [];
  samples = addSample(samples, 5000, [room('a', 1, 0)]);
  samples = addSample(samples, 5000, [room('a', 2, 0)]);
  assert.deepEqual(samples, [{ at: 5000, rooms: { a: { w: 2, s: 0 } } }]);
});

test('queue depth is the waiting count per sample of that room', () => {
  let samples = [];
  samples = addSample(samples, 1000, [room('a', 5, 0)]);
  samples = addSample(samples, 2000, [room('b', 1, 0)]);
  samples = addSample(samples, 3000, [room('a', 3, 2), room('b', 0, 1)]);
  assert.deepEqual(queueSeries(samples, 'a'), [{ t: 1000, v: 5 }, { t: 3000, v: 3 }]);
  assert.deepEqual(queueSeries(samples, 'c'), []);
});

test('admissions per minute are measured over the last minute of samples', () => {
  let samples = [];
  // 10 admitted every 10 s: 60 per minute, whatever the span.
  for (let i = 0; i <= 12; i++) samples = addSample(samples, i * 10_000, [room('a', 100, i * 10)]);
  const series = admissionSeries(samples, 'a');
  assert.equal(series.length, 12);
  assert.ok(series.every((p) => p.v === 60), JSON.stringify(series));
  assert.deepEqual(series.map((p) => p.t), samples.slice(1).map((s) => s.at));
});

test('a minute-long span smooths a burst; a gap averages over the gap; a reset never goes negative', () => {
  let samples = [];
  const served = [0, 0, 0, 0, 0, 0, 30, 30];
  served.forEach((s, i) => { samples = addSample(samples, i * 10_000, [room('a', 0, s)]); });
  // At 60 s: 30 admitted since 0 s → 30/min; at 70 s: 30 since 10 s → 30/min.
  assert.deepEqual(admissionSeries(samples, 'a').slice(-2), [{ t: 60_000, v: 30 }, { t: 70_000, v: 30 }]);

  samples = addSample([{ at: 0, rooms: { a: { w: 0, s: 0 } } }], 600_000, [room('a', 0, 100)]);
  assert.deepEqual(admissionSeries(samples, 'a'), [{ t: 600_000, v: 10 }]);

  samples = addSample([{ at: 0, rooms: { a: { w: 0, s: 50 } } }], 10_000, [room('a', 0, 0)]);
  assert.deepEqual(admissionSeries(samples, 'a'), [{ t: 10_000, v: 0 }]);
});

test('axis tops are round numbers', () => {
  assert.deepEqual([0, 0.5, 1, 1.2, 2, 3, 7, 10, 11, 480, 1000, 1001].map(niceMax),
    [1, 1, 1, 2, 2, 5, 10, 10, 20, 500, 1000, 2000]);
});

test('paths map time to x and values to y, clipping at the top', () => {
  const box = { from: 0, to: 100, top: 10, width: 200, height: 50 };
  assert.equal(linePath([{ t: 0, v: 0 }, { t: 50, v: 5 }, { t: 100, v: 20 }], box), 'M0,50L100,25L200,0');
  assert.equal(linePath([], box), '');
  assert.equal(linePath([{ t: 33, v: 1 }], box), 'M66,45');
  assert.equal(areaPath([{ t: 50, v: 5 }, { t: 100, v: 10 }], box), 'M100,25L200,0L200,50L100,50Z');
  assert.equal(areaPath([], box), '');
});
