// foyer backup under join load, and foyer restore into a new data dir that a server
// then serves: every join acknowledged before the backup began is there, with its place.
// A restore refuses a target that holds anything, and a backup whose files were changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { Foyer, foyerBin } from '../lib/foyer.js';

const run = promisify(execFile);
// Slow admission: every joined visitor is still waiting, so each keeps a place to check.
const config = { rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' }] };

async function foyerCommand(args) {
  try {
    const { stdout, stderr } = await run(foyerBin, args);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    return { code: error.code, output: `${error.stdout}${error.stderr}` };
  }
}

test('a backup taken under join load restores into a server that has every join acknowledged before it', async (t) => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'foyer-backup-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const source = new Foyer(config);
  t.after(() => source.cleanup());
  await source.start();

  const acknowledged = [];  // {ticket, place, at}
  let joining = true;
  const joiners = Array.from({ length: 4 }, async () => {
    for (let i = 0; joining && i < 5000; i++) {
      const res = await source.join();
      assert.equal(res.status, 201, res.text);
      acknowledged.push({ ticket: res.json.ticket, place: res.json.place, at: Date.now() });
    }
  });
  while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 10));

  const backupDir = path.join(scratch, 'backup');
  const began = Date.now();
  const backup = await foyerCommand(['backup', '--data-dir', source.dataDir, '--to', backupDir]);
  const beforeBackup = acknowledged.filter((j) => j.at < began);
  const duringBackup = acknowledged.length - beforeBackup.length;
  joining = false;
  await Promise.all(joiners);
  assert.equal(backup.code, 0, backup.output);
  assert.match(backup.output, /^foyer: backed up .+: the log up to event \d+, the pass keys and the secret\n$/);
  await source.stop();

  const restoredDir = path.join(scratch, 'restored');
  const restore = await foyerCommand(['restore', '--from', backupDir, '--data-dir', restoredDir]);
  assert.equal(restore.code, 0, restore.output);
  assert.match(restore.output, /restored .+ into .+: the log up to event \d+; serve it with --data-dir /);

  const restored = new Foyer(config, { dataDir: restoredDir });
  t.after(() => restored.cleanup());
  await restored.start();
  const room = (await restored.request('GET', '/api/v1/rooms/demo')).json;
  assert.ok(room.joined >= beforeBackup.length, `joined ${room.joined} < ${beforeBackup.length} acknowledged before the backup`);
  assert.ok(room.joined <= acknowledged.length);
  // Every ticket acknowledged before the backup is honoured (same secret) with its place.
  for (const j of beforeBackup) {
    const st = await restored.status(j.ticket);
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.place, j.place);
  }
  // The restored server takes new joins after the last one it holds.
  const next = await restored.join();
  assert.equal(next.status, 201);
  assert.equal(next.json.place, room.joined);
  t.diagnostic(`${beforeBackup.length} joins before the backup, ${duringBackup} during it, ${room.joined} in the copy`);
});

test('restore refuses a target that is not empty and a backup whose files changed', async (t) => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'foyer-backup-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const source = new Foyer(config);
  t.after(() => source.cleanup());
  await source.start();
  assert.equal((await source.join()).status, 201);
  const backupDir = path.join(scratch, 'backup');
  assert.equal((await foyerCommand(['backup', '--data-dir', source.dataDir, '--to', backupDir])).code, 0);

  const again = await foyerCommand(['backup', '--data-dir', source.dataDir, '--to', backupDir]);
  assert.equal(again.code, 1);
  assert.match(again.output, /backup target .+ is not empty/);

  const used = path.join(scratch, 'used');
  mkdirSync(used);
  writeFileSync(path.join(used, 'something'), 'x');
  const unclean = await foyerCommand(['restore', '--from', backupDir, '--data-dir', used]);
  assert.equal(unclean.code, 1);
  assert.match(unclean.output, /data dir .+ is not empty: give a new or empty directory/);

  writeFileSync(path.join(backupDir, 'secret'), `${'0'.repeat(64)}\n`);
  const target = path.join(scratch, 'target');
  const tampered = await foyerCommand(['restore', '--from', backupDir, '--data-dir', target]);
  assert.equal(tampered.code, 1);
  assert.match(tampered.output, /secret does not match its digest in backup\.json/);

  const nothing = await foyerCommand(['restore', '--from', scratch, '--data-dir', target]);
  assert.equal(nothing.code, 1);
  assert.match(nothing.output, /backup\.json cannot be read/);
});
