// /healthz, /readyz on an idle server, and the log as JSON lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { Foyer, withFoyer } from '../lib/foyer.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('an idle server stays ready: it probes the storage when it has written nothing', async () => {
  // Ready needs a write within 2 s; nothing is joined or admitted (a lobby opening in an hour).
  const opensAt = new Date(Date.now() + 3600_000).toISOString();
  await withFoyer({ overload: { ready_write_ms: 2000 }, rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 60, target_url: '/welcome', opens_at: opensAt }] }, async (f) => {
    const deadline = Date.now() + 5000;
    let r = await f.request('GET', '/readyz');
    while (r.status !== 200) {
      assert.ok(Date.now() < deadline, `ready within 5 s of the start: ${r.text}`);
      await sleep(50);
      r = await f.request('GET', '/readyz');
    }
    assert.deepEqual(r.json, { status: 'ready' });
    for (let i = 0; i < 8; i++) {
      await sleep(500);
      assert.equal((await f.request('GET', '/readyz')).status, 200, `still ready after ${(i + 1) * 500} ms idle`);
    }
    assert.deepEqual((await f.request('GET', '/healthz')).json, { status: 'ok' });
    const metrics = (await f.request('GET', '/metrics')).text;
    assert.match(metrics, /^foyer_storage_batch_events_bucket\{le="1"\} [1-9]\d*$/m, 'the probes are synced writes without events');
  });
});

test('every log line is one JSON object with ts, level and msg', async () => {
  const f = new Foyer();
  try {
    await f.start();
    await f.stop();
    const lines = f.output.trim().split('\n');
    assert.ok(lines.length >= 3, f.output);
    for (const line of lines) {
      const event = JSON.parse(line);
      assert.match(event.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(['info', 'warn', 'error'].includes(event.level), line);
      assert.equal(typeof event.msg, 'string');
    }
    const serving = lines.map((l) => JSON.parse(l)).find((e) => e.msg.startsWith('serving'));
    assert.equal(serving.listen, `127.0.0.1:${f.port}`);
    assert.equal(serving.rooms, 1);
    assert.equal(JSON.parse(lines.at(-1)).msg, 'stopped');

    // A bad setting at start: the message a person reads, in the line's msg.
    writeFileSync(f.configPath, '[overload]\npoll_stretch = 0\n');
    const bad = await f.runOnce();
    assert.equal(bad.code, 1);
    const event = JSON.parse(bad.output.trim());
    assert.equal(event.level, 'error');
    assert.equal(event.msg, 'config: overload.poll_stretch: must be a whole number from 1 to 10');
  } finally {
    await f.cleanup();
  }
});
