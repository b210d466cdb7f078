// With an I/O thread, the cacheable frontier and a status poll from farther back than the
// room's frontier_above are answered on the I/O thread, from the fronts the loop
// publishes, so the loop's own CPU does not grow with such polls; nearer the front the
// loop answers. Read from each
// thread's CPU time in /proc (ticks of 10 ms), which counts work, not waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { withFoyer } from '../lib/foyer.js';

const polls = 12000;

// CPU ticks (user and system) of the process's threads, by thread name.
function threadTicks(pid) {
  const ticks = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks[name] = (ticks[name] ?? 0) + Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

// The loop's and the I/O thread's ticks over `polls` calls of `poll`, eight at a time.
async function ticksOver(f, poll) {
  const before = threadTicks(f.proc.pid);
  for (let sent = 0; sent < polls; sent += 8) {
    const answers = await Promise.all(Array.from({ length: 8 }, poll));
    for (const a of answers) assert.equal(a.status, 200, a.text);
  }
  const after = threadTicks(f.proc.pid);
  return { loop: after.foyer - before.foyer, io: after['foyer-io-1'] - before['foyer-io-1'] };
}

// The count of answers 200 on `route` in /metrics.
async function answered(f, route) {
  const metrics = (await f.request('GET', '/metrics')).text;
  const line = metrics.split('\n').find((l) => l.startsWith(`foyer_http_requests_total{route="${route}",code="200"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

test('with an I/O thread, the frontier and far-back polls are answered without the loop, nearer ones by it', async () => {
  const config = {
    // Within 2 places of the front (or 1 s of admission), the loop answers.
    server: { io_threads: 1, status_within_places: 2, status_within_seconds: 1 },
    rooms: [{ id: 'r', name: 'R', rate_per_minute: 1, target_url: '/welcome' }],
  };
  await withFoyer(config, async (f) => {
    const tickets = [];
    for (let i = 0; i < 6; i++) {
      const joined = await f.join('r');
      assert.equal(joined.status, 201, joined.text);
      tickets.push(joined.json.ticket);
    }
    const far = await f.status(tickets[5], 'r');
    const near = await f.status(tickets[1], 'r');
    // The same answer either way: the I/O thread's is the loop's as of its last front.
    assert.deepEqual(Object.keys(far.json), Object.keys(near.json));
    assert.equal(far.json.state, 'waiting');
    assert.equal(far.json.position, 5);
    assert.equal(far.json.frontier_above, 2);
    assert.equal(near.json.position, 1);

    const frontier = await f.request('GET', '/api/v1/rooms/r/frontier');
    assert.equal(frontier.json.state, 'open');
    assert.equal(frontier.headers.get('cache-control'), 'public, max-age=1');

    const fromFar = await ticksOver(f, () => f.status(tickets[5], 'r'));
    const fromFrontier = await ticksOver(f, () => f.request('GET', '/api/v1/rooms/r/frontier'));
    const fromNear = await ticksOver(f, () => f.status(tickets[1], 'r'));
    const seen = `far: ${JSON.stringify(fromFar)}, frontier: ${JSON.stringify(fromFrontier)}, near: ${JSON.stringify(fromNear)} (ticks)`;
    // The loop's share of far-back polls is its publishing, every 20 ms, whatever the polls.
    assert.ok(fromFar.loop * 2 < fromNear.loop, `the loop did a fraction of the work for far-back polls; ${seen}`);
    assert.ok(fromFrontier.loop * 2 < fromNear.loop, `the loop did a fraction of the work for the frontier; ${seen}`);
    assert.ok(fromFar.io >= 3 && fromFrontier.io >= 3, `the I/O thread answered them; ${seen}`);

    // Every poll is counted in its route's metrics, wherever it was answered: the desk's
    // counts reach the loop with the next front.
    const statusRoute = '/api/v1/rooms/{room}/status';
    const frontierRoute = '/api/v1/rooms/{room}/frontier';
    const counted = async () => (await answered(f, statusRoute)) === 2 * polls + 2 && (await answered(f, frontierRoute)) === polls + 1;
    for (let i = 0; i < 100 && !(await counted()); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await answered(f, statusRoute), 2 * polls + 2);
    assert.equal(await answered(f, frontierRoute), polls + 1);
  });
});
