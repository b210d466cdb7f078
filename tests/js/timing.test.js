import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  backoffDelay, clockOffset, farPollDelay, pollDelay, retryAfterMs, retryDelay, startJitter,
} from '../../web/js/timing.js';
import { retrying } from '../../web/js/api.js';

test('polls follow poll_after_ms within ±10 %, inside sane bounds', () => {
  assert.equal(pollDelay(2000, 0), 1800);
  assert.equal(pollDelay(2000, 0.5), 2000);
  assert.equal(pollDelay(2000, 0.999999), 2200);
  assert.equal(pollDelay(10, 0.5), 500);
  assert.equal(pollDelay(10 * 60_000, 0.5), 60_000);
  assert.equal(pollDelay(undefined, 0.5), 500);
});

test('back-off doubles from a second up to thirty, with jitter in its upper half', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffDelay(n, 1)),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(backoffDelay(0, 0), 500);
  assert.equal(backoffDelay(5, 0), 15000);
});

test('Retry-After is read as seconds or as an HTTP date', () => {
  const now = Date.parse('Tue, 01 Dec 2026 10:00:00 GMT');
  assert.equal(retryAfterMs('2', now), 2000);
  assert.equal(retryAfterMs(' 120 ', now), 120000);
  assert.equal(retryAfterMs('Tue, 01 Dec 2026 10:00:30 GMT', now), 30000);
  assert.equal(retryAfterMs('Tue, 01 Dec 2026 09:00:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs(null, now), null);
});

test('a retry waits Retry-After (spread up to a fifth more), else backs off', () => {
  assert.equal(retryDelay(2000, 7, 0), 2000);
  assert.equal(retryDelay(2000, 7, 0.5), 2200);
  assert.equal(retryDelay(0, 3, 0.5), 0);
  assert.equal(retryDelay(null, 3, 1), 8000);
});

test('the server clock offset is the most it can be: a slow answer never adds time to a countdown', () => {
  assert.equal(clockOffset(1000, 5100), 4100);
  assert.equal(clockOffset(1000, 900), -100);
  // Same clocks; the server read 1000 at once but its answer reached the page at 3000. A hold
  // of 120 s placed at 3000 and shown at once has 120 s left, not the 121 s a midpoint gives.
  const expires = 3000 + 120_000;
  assert.equal((expires - clockOffset(1000, 1000) - 3000) / 1000, 120);
});

test('retrying waits out network drops and busy answers, then returns the first real answer', async () => {
  const answers = [
    () => { throw new TypeError('Failed to fetch'); },
    () => ({ status: 503, ok: false, retryAfter: 2000 }),
    () => ({ status: 502, ok: false, retryAfter: null }),
    () => ({ status: 410, ok: false, json: { error: 'closed' }, retryAfter: null }),
  ];
  const waits = [];
  const told = [];
  const res = await retrying(async () => answers.shift()(), {
    onWait: (kind, ms) => told.push([kind, ms]),
    wait: async (ms) => { waits.push(ms); },
    random: () => 0,
  });
  assert.equal(res.status, 410);
  assert.deepEqual(waits, [500, 2000, 2000]);
  assert.deepEqual(told, [['offline', 500], ['busy', 2000], ['busy', 2000], [null, undefined]]);
});

test('retrying returns a transient answer its caller settles for, without waiting', async () => {
  const waits = [];
  const res = await retrying(async () => ({ status: 429, ok: false, json: { error: 'too_many_requests' }, retryAfter: 6000 }), {
    wait: async (ms) => { waits.push(ms); },
    settled: (answer) => answer.json?.error === 'too_many_requests',
  });
  assert.equal(res.status, 429);
  assert.deepEqual(waits, []);
});

test('retrying does not swallow errors other than network failures', async () => {
  await assert.rejects(retrying(async () => { throw new RangeError('bug'); }, { wait: async () => {} }), RangeError);
});

test('far back, frontier polls come a tenth of the expected wait apart, from a second to thirty', () => {
  // 1,000 places at 60 a minute: 1,001 minutes to wait, polls at the 30 s cap.
  assert.equal(farPollDelay(1000, 60, 0.5), 30_000);
  // 99 places at 600 a minute: 10 s to wait, a poll a second.
  assert.equal(farPollDelay(99, 600, 0.5), 1000);
  // 499 places at 600 a minute: 50 s to wait, polls 5 s apart, ±10 %.
  assert.equal(farPollDelay(499, 600, 0.5), 5000);
  assert.equal(farPollDelay(499, 600, 0), 4500);
  assert.equal(farPollDelay(5, 0, 0.5), 30_000);
});

test('the first request after a draw or a reopening waits 0 to 200 ms more', () => {
  assert.deepEqual([0, 0.5, 0.999999].map(startJitter), [0, 100, 199]);
});
