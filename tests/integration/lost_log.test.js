// A log that starts empty while its secret lives on (here: a single node's log deleted
// beside its secret) is not served: the old tickets would be honoured for places the new
// log gives again. The node refuses and names `foyer new-incarnation`, after which every
// old ticket gets ticket_lost_in_restore and no place is given twice.
// A log restored from an older copy keeps its mark but lacks the joins after the copy: the
// tickets of those joins are refused (ticket_lost_in_restore) and their places given anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Foyer, runFoyer } from '../lib/foyer.js';

const config = { rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' }] };

test('a node whose log was deleted beside its secret refuses to serve until a new incarnation', async (t) => {
  const f = new Foyer(config);
  t.after(() => f.cleanup());
  await f.start();
  const old = [];
  for (let i = 0; i < 3; i++) old.push((await f.join()).json);
  assert.deepEqual(old.map((j) => j.place), [0, 1, 2]);
  await f.stop();
  // Restarted on its own log, it serves as before.
  await f.start();
  assert.equal((await f.status(old[2].ticket)).json.place, 2);
  await f.stop();

  rmSync(path.join(f.dataDir, 'log'), { recursive: true, force: true });
  // Refused: it exits instead of serving.
  const mark = f.output.length;
  await assert.rejects(f.start(), /foyer exited \(1\)/);
  const refused = f.output.slice(mark);
  assert.match(refused, /the log in .*log is empty, and this node's secret was not made for it/);
  assert.match(refused, new RegExp(`\`foyer new-incarnation --data-dir ${f.dataDir}\``));

  const repair = await runFoyer(['new-incarnation', '--config', f.configPath, '--data-dir', f.dataDir]);
  assert.equal(repair.code, 0, repair.stdout + repair.stderr);
  assert.match(repair.stdout, /holds a new incarnation.*ticket_lost_in_restore/);
  // Once: the log is now the new incarnation's, and a log that is not empty is never repaired.
  const again = await runFoyer(['new-incarnation', '--data-dir', f.dataDir]);
  assert.equal(again.code, 1, again.stdout);
  assert.match(again.stderr, /log is not empty: it is served as it is/);

  await f.start();
  const fresh = [];
  for (let i = 0; i < 3; i++) fresh.push((await f.join()).json);
  assert.deepEqual(fresh.map((j) => j.place), [0, 1, 2]);
  for (const j of old) {
    const st = await f.status(j.ticket);
    assert.equal(st.status, 401, st.text);
    assert.equal(st.json.error, 'ticket_lost_in_restore', st.text);
  }
  for (const j of fresh) assert.equal((await f.status(j.ticket)).json.place, j.place);
  await f.stop();
});

test('a data dir copied mid-sale and served refuses the tickets given after the copy, and gives their places once', async (t) => {
  const f = new Foyer(config);
  t.after(() => f.cleanup());
  await f.start();
  const before = [];
  for (let i = 0; i < 3; i++) before.push((await f.join()).json);
  await f.stop();
  const copy = path.join(f.dir, 'copy');
  cpSync(f.dataDir, copy, { recursive: true });
  await f.start();
  // Enough that some wait far back, where the poll path answers off the owner's loop.
  const after = [];
  for (let i = 0; i < 40; i++) after.push((await f.join()).json);
  assert.deepEqual(after.map((j) => j.place), Array.from({ length: 40 }, (_, i) => i + 3));
  await f.stop();

  const restored = new Foyer(config, { dataDir: copy });
  t.after(() => restored.cleanup());
  await restored.start();
  for (const j of before) assert.equal((await restored.status(j.ticket)).json.place, j.place);
  for (const j of after) {
    const st = await restored.status(j.ticket);
    assert.equal(st.status, 401, st.text);
    assert.equal(st.json.error, 'ticket_lost_in_restore', st.text);
  }
  // A lost ticket presented at the join is no entry: the visitor joins afresh, and no
  // place is given twice.
  const rejoined = await restored.request('POST', '/api/v1/rooms/demo/join', { ticket: after[0].ticket });
  assert.equal(rejoined.status, 201, rejoined.text);
  const fresh = [rejoined.json];
  for (let i = 0; i < 2; i++) fresh.push((await restored.join()).json);
  assert.deepEqual(fresh.map((j) => j.place), [3, 4, 5]);
  for (const j of fresh) assert.equal((await restored.status(j.ticket)).json.place, j.place);
  await restored.stop();
});
