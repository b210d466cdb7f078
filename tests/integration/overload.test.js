// The degradation ladder driven by a loop that really falls behind: the test stops the
// server's process with SIGSTOP for 300 ms in every 400 (as a CPU quota that throttles
// a container does), so its timers run late. Each level's exact answers, admission
// unmoved throughout, and the way down one level at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFoyer } from '../lib/foyer.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rate = 60;
const token = 'overload-test-admin-token';
const config = {
  server: { admin_token: token },
  // Loop lag alone drives it: 50 ms late is hot; 2 s hot climbs, 5 s calm descends.
  overload: { loop_lag_ms: 50, commit_ms: 60000, rise_after_ms: 2000, fall_after_ms: 5000, poll_stretch: 3, far_seconds: 60 },
  rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: rate, target_url: '/welcome' }],
};

async function level(f) {
  const m = /^foyer_overload_level (\d+)$/m.exec((await f.request('GET', '/metrics')).text);
  return Number(m[1]);
}

// Stalls the process 300 ms at a time, reading the level between stalls, until the
// ladder reaches `target` (30 s at most). A step needs 2 s of hot readings (each covers
// a second), so the reading that still sees the last stall cannot climb another.
async function stallUntil(f, target) {
  const deadline = Date.now() + 30000;
  try {
    while ((await level(f)) < target) {
      assert.ok(Date.now() < deadline, `the ladder reached level ${target} within 30 s`);
      f.proc.kill('SIGSTOP');
      await sleep(300);
      f.proc.kill('SIGCONT');
    }
  } finally {
    f.proc.kill('SIGCONT');
  }
  assert.equal(await level(f), target, `level ${target}, not past it`);
}

function assertOverloaded(r, what) {
  assert.equal(r.status, 503, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json.error, 'overloaded');
  assert.equal(r.headers.get('retry-after'), '30');
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
}

test('the ladder: slower polls, then far polls shed, then joins refused; the frontier, passes and admin answer throughout', { timeout: 120000 }, async () => {
  await withFoyer(config, async (f) => {
    const t0 = Date.now();
    const tickets = [];
    for (let i = 0; i < 150; i++) {
      const j = await f.join();
      assert.equal(j.status, 201);
      tickets.push(j.json);
    }
    await sleep(1500);
    const admin = { authorization: `Bearer ${token}` };
    const served = async () => (await f.request('GET', '/api/v1/rooms/demo/frontier')).json.served;
    // Admission never runs ahead of rate × time, whatever the level.
    const checkFrontier = async () => {
      const r = await f.request('GET', '/api/v1/rooms/demo/frontier');
      assert.equal(r.status, 200);
      assert.ok(r.json.served <= (rate * (Date.now() - t0)) / 60000 + 1, `served ${r.json.served} within the rate`);
      return r.json.served;
    };
    // The first visitor is admitted; one a few places from the front; the last, minutes away.
    const admitted = tickets[0].ticket;
    const near = async () => tickets[(await served()) + 2].ticket;
    const far = tickets.at(-1).ticket;
    const assertAdmittedHasPass = async () => {
      const r = await f.status(admitted);
      assert.equal(r.status, 200);
      assert.equal(r.json.state, 'admitted');
      assert.ok(r.json.pass, 'an admitted visitor gets the pass at every level');
    };
    const assertAdminAnswers = async (expected) => {
      const r = await f.request('GET', '/api/v1/admin/ops', { headers: admin });
      assert.equal(r.status, 200);
      assert.equal(r.json.overload_level, expected);
      assert.equal((await f.request('GET', '/api/v1/admin/rooms', { headers: admin })).status, 200);
    };

    assert.equal(await level(f), 0);
    const calm = await f.status(await near());
    assert.ok(calm.json.poll_after_ms <= 1200, `a near visitor polls about every second: ${calm.json.poll_after_ms}`);

    await stallUntil(f, 1);
    let r = await f.status(await near());
    assert.equal(r.status, 200);
    assert.ok(r.json.poll_after_ms >= 2400, `level 1 stretches the poll three times: ${r.json.poll_after_ms}`);
    assert.equal((await f.status(far)).status, 200, 'level 1 sheds no poll');
    assert.equal((await f.join()).status, 201, 'level 1 takes joins');
    assert.equal((await f.request('GET', '/readyz')).status, 200);
    await assertAdmittedHasPass();
    await assertAdminAnswers(1);
    await checkFrontier();

    await stallUntil(f, 2);
    assertOverloaded(await f.status(far), 'a far poll at level 2');
    r = await f.status(await near());
    assert.equal(r.status, 200, 'a near poll is answered at level 2');
    assert.ok(r.json.poll_after_ms >= 2400);
    assert.equal((await f.join()).status, 201, 'level 2 takes joins');
    assert.equal((await f.request('POST', '/api/v1/rooms/demo/challenge')).status, 200);
    assert.equal((await f.request('GET', '/readyz')).status, 200);
    await assertAdmittedHasPass();
    await assertAdminAnswers(2);
    await checkFrontier();

    await stallUntil(f, 3);
    assertOverloaded(await f.join(), 'a join at level 3');
    assertOverloaded(await f.request('POST', '/api/v1/rooms/demo/challenge'), 'a challenge at level 3');
    assertOverloaded(await f.status(far), 'a far poll at level 3');
    assert.equal((await f.status(await near())).status, 200, 'a near poll is answered at level 3');
    r = await f.request('GET', '/readyz');
    assert.equal(r.status, 503);
    assert.equal(r.json.error, 'not_ready');
    assert.equal(r.json.reason, 'shedding');
    await assertAdmittedHasPass();
    await assertAdminAnswers(3);
    await checkFrontier();

    const metrics = (await f.request('GET', '/metrics')).text;
    for (const l of [1, 2, 3]) {
      const m = new RegExp(`^foyer_shed_total\\{level="${l}"\\} (\\d+)$`, 'm').exec(metrics);
      assert.ok(m && Number(m[1]) > 0, `level ${l} counted what it shed:\n${metrics}`);
    }
    assert.match(f.output, /"msg":"overload: level 1 \(slow_polls\), was 0: loop lag \d+ ms/);
    assert.match(f.output, /"msg":"overload: level 3 \(refuse_joins\), was 2/);

    // Calm: one level down every 5 s, and ready again below the top.
    const down = [];
    const deadline = Date.now() + 30000;
    for (let l = await level(f); l > 0; l = await level(f)) {
      assert.ok(Date.now() < deadline, 'the ladder came down within 30 s');
      if (down.at(-1)?.level !== l) down.push({ level: l, at: Date.now() });
      await sleep(100);
    }
    down.push({ level: 0, at: Date.now() });
    assert.deepEqual(down.map((d) => d.level), [3, 2, 1, 0], 'one level at a time');
    for (let i = 2; i < down.length; i++) {
      assert.ok(down[i].at - down[i - 1].at >= 4500, `each step down waits out the calm period: ${JSON.stringify(down)}`);
    }
    assert.equal((await f.request('GET', '/readyz')).status, 200);
    assert.equal((await f.join()).status, 201);
    r = await f.status(await near());
    assert.ok(r.json.poll_after_ms <= 1200, 'polls are back to their pace');
    await checkFrontier();
  });
});
