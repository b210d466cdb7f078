// foyer backup under join load, and foyer restore into a new data dir that a server
// then serves: every join acknowledged before the backup began is there, with its place.
// A restore refuses a target that holds anything, and a backup whose files were changed,
// cut short or joined by a planted link. The restored server is a new incarnation: tickets
// the old server issued after the backup are refused, so no place is given twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync,
} from 'node:fs';
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
  assert.match(tampered.output, /backup\.json: its signature does not match the backup's secret/);

  const nothing = await foyerCommand(['restore', '--from', scratch, '--data-dir', target]);
  assert.equal(nothing.code, 1);
  assert.match(nothing.output, /backup\.json is missing/);
});

// A fresh backup of a server with a few joins, in its own scratch dir.
async function backedUp(t) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'foyer-backup-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const source = new Foyer(config);
  t.after(() => source.cleanup());
  await source.start();
  for (let i = 0; i < 20; i++) assert.equal((await source.join()).status, 201);
  const backupDir = path.join(scratch, 'backup');
  const made = await foyerCommand(['backup', '--data-dir', source.dataDir, '--to', backupDir]);
  assert.equal(made.code, 0, made.output);
  await source.stop();
  return { scratch, backupDir, logDir: path.join(backupDir, 'log') };
}

// Restores into a new dir and expects a refusal matching `pattern`, with nothing left behind.
async function refused(scratch, backupDir, pattern) {
  const target = mkdtempSync(path.join(scratch, 'target-'));
  const res = await foyerCommand(['restore', '--from', backupDir, '--data-dir', target]);
  assert.equal(res.code, 1, res.output);
  assert.match(res.output, pattern);
  assert.deepEqual(readdirSync(target), []);
}

test('restore copies no link planted in the log and nothing that is not a regular file', async (t) => {
  const { scratch, backupDir, logDir } = await backedUp(t);
  const outside = path.join(scratch, 'elsewhere.txt');
  writeFileSync(outside, 'not part of the backup\n');

  const planted = path.join(logDir, 'OPTIONS-999999');
  symlinkSync(outside, planted);
  await refused(scratch, backupDir, /log\/OPTIONS-999999 is a symbolic link: refused/);
  rmSync(planted);

  // A listed file replaced by a link to a copy of itself: same bytes, still refused.
  const listed = readdirSync(logDir).find((f) => f.endsWith('.log') || f.endsWith('.sst'));
  const copy = path.join(scratch, 'copy-of-log');
  writeFileSync(copy, readFileSync(path.join(logDir, listed)));
  rmSync(path.join(logDir, listed));
  symlinkSync(copy, path.join(logDir, listed));
  await refused(scratch, backupDir, new RegExp(`log/${listed} is a symbolic link: refused`));
  rmSync(path.join(logDir, listed));
  writeFileSync(path.join(logDir, listed), readFileSync(copy));

  mkdirSync(path.join(logDir, 'subdir'));
  await refused(scratch, backupDir, /log\/subdir is not a regular file: refused/);
  rmSync(path.join(logDir, 'subdir'), { recursive: true });

  const extra = path.join(logDir, 'extra.sst');
  writeFileSync(extra, 'x');
  await refused(scratch, backupDir, /log\/extra\.sst is not in backup\.json: refused/);
  rmSync(extra);

  // Put back as it was, the backup restores.
  const ok = await foyerCommand(['restore', '--from', backupDir, '--data-dir', path.join(scratch, 'restored')]);
  assert.equal(ok.code, 0, ok.output);
});

test('restore refuses a log cut short, even with last_seq edited to match, naming the file', async (t) => {
  const { scratch, backupDir, logDir } = await backedUp(t);
  const manifestPath = path.join(backupDir, 'backup.json');
  const original = readFileSync(manifestPath, 'utf8');
  const manifest = JSON.parse(original);
  assert.equal(manifest.format, 'foyer-backup/2');
  assert.match(manifest.mac, /^[0-9a-f]{64}$/);
  // Every file has its SHA-256.
  const listed = Object.keys(manifest.files).sort();
  assert.deepEqual(listed, ['pass-keys.json', 'secret', ...readdirSync(logDir).map((f) => `log/${f}`)].sort());

  // The joins are in the WAL or a table: cut the largest of those in half.
  const size = (f) => statSync(path.join(logDir, f)).size;
  const largest = readdirSync(logDir).filter((f) => /\.(log|sst)$/.test(f)).sort((a, b) => size(b) - size(a))[0];
  const file = path.join(logDir, largest);
  const bytes = readFileSync(file);
  truncateSync(file, Math.floor(bytes.length / 2));
  await refused(scratch, backupDir, new RegExp(`log/${largest} does not match its digest in backup\\.json: the backup was changed or cut short`));

  // Editing the manifest to match (the digest, last_seq) breaks its signature.
  const digest = (await import('node:crypto')).createHash('sha256').update(readFileSync(file)).digest('hex');
  const edited = original.replace(manifest.files[`log/${largest}`], digest).replace(/"last_seq":\d+/, '"last_seq":3');
  writeFileSync(manifestPath, edited);
  await refused(scratch, backupDir, /backup\.json: its signature does not match the backup's secret: the manifest or the secret was changed/);
  writeFileSync(manifestPath, original.replace(/"last_seq":\d+/, `"last_seq":${manifest.last_seq + 1}`));
  await refused(scratch, backupDir, /backup\.json: its signature does not match/);
});

test('a restored server refuses the tickets issued after its backup, and gives no place twice', async (t) => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'foyer-backup-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const source = new Foyer(config);
  t.after(() => source.cleanup());
  await source.start();
  const before = [];
  for (let i = 0; i < 5; i++) before.push((await source.join()).json);
  const backupDir = path.join(scratch, 'backup');
  assert.equal((await foyerCommand(['backup', '--data-dir', source.dataDir, '--to', backupDir])).code, 0);
  const after = [];
  for (let i = 0; i < 3; i++) after.push((await source.join()).json);
  assert.deepEqual(after.map((j) => j.place), [5, 6, 7]);
  await source.stop();

  const restoredDir = path.join(scratch, 'restored');
  const restore = await foyerCommand(['restore', '--from', backupDir, '--data-dir', restoredDir]);
  assert.equal(restore.code, 0, restore.output);
  const restored = new Foyer(config, { dataDir: restoredDir });
  t.after(() => restored.cleanup());
  await restored.start();

  for (const j of before) {
    const st = await restored.status(j.ticket);
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.place, j.place);
  }
  for (const j of after) {
    const st = await restored.status(j.ticket);
    assert.equal(st.status, 401, st.text);
    assert.equal(st.json.error, 'ticket_lost_in_restore', st.text);
    assert.match(st.json.detail, /restored from a backup taken before your ticket was issued.*join again/);
  }
  // A new join, even one presenting a lost ticket, gets place 5: which nobody else now holds.
  const fresh = await restored.request('POST', '/api/v1/rooms/demo/join', { ticket: after[0].ticket });
  assert.equal(fresh.status, 201, fresh.text);
  assert.equal(fresh.json.place, 5);
  assert.notEqual(fresh.json.ticket, after[0].ticket);
  assert.equal((await restored.status(fresh.json.ticket)).json.place, 5);
  assert.equal((await restored.status(after[0].ticket)).status, 401);

  // A second restore, from a backup of the restored server: both earlier incarnations keep
  // what their backups held, and lose what came after.
  const second = path.join(scratch, 'backup2');
  assert.equal((await foyerCommand(['backup', '--data-dir', restoredDir, '--to', second])).code, 0);
  const late = (await restored.join()).json;
  assert.equal(late.place, 6);
  await restored.stop();
  const againDir = path.join(scratch, 'again');
  assert.equal((await foyerCommand(['restore', '--from', second, '--data-dir', againDir])).code, 0);
  const again = new Foyer(config, { dataDir: againDir });
  t.after(() => again.cleanup());
  await again.start();
  assert.equal((await again.status(before[4].ticket)).json.place, 4);
  assert.equal((await again.status(fresh.json.ticket)).json.place, 5);
  for (const ticket of [after[1].ticket, late.ticket]) {
    assert.equal((await again.status(ticket)).json.error, 'ticket_lost_in_restore');
  }
  assert.equal((await again.join()).json.place, 6);
});

test('a restore keeps each lane\'s tickets from before its backup and refuses the lane\'s later ones', async (t) => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'foyer-backup-lanes-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  // A members' lane entered with codes beside the general lane.
  const lanes = { server: { admin_token: 'backup-lanes-admin-token-0123' },
                  rooms: [{ ...config.rooms[0], lanes: { members: { share: 0.5 } } }] };
  const source = new Foyer(lanes);
  t.after(() => source.cleanup());
  await source.start();
  const batch = (await source.request('POST', '/api/v1/admin/rooms/demo/codes', {
    headers: { authorization: 'Bearer backup-lanes-admin-token-0123' }, body: { batch: 'b', lane: 'members', count: 4 } })).json;
  const member = async (i) => (await source.join('demo', { code: batch.generated[i] })).json;
  // Ten general places first: a cut on the room's joined count would let lane places through.
  for (let i = 0; i < 10; i++) await source.join();
  const kept = await member(0);
  assert.equal(kept.lane, 'members');
  const backupDir = path.join(scratch, 'backup');
  assert.equal((await foyerCommand(['backup', '--data-dir', source.dataDir, '--to', backupDir])).code, 0);
  const lost = await member(1);
  assert.equal(lost.place, 1);
  await source.stop();

  const restoredDir = path.join(scratch, 'restored');
  assert.equal((await foyerCommand(['restore', '--from', backupDir, '--data-dir', restoredDir])).code, 0);
  const restored = new Foyer(lanes, { dataDir: restoredDir });
  t.after(() => restored.cleanup());
  await restored.start();
  const st = await restored.status(kept.ticket);
  assert.equal(st.status, 200, st.text);
  assert.equal(st.json.lane, 'members');
  assert.equal(st.json.place, 0);
  assert.equal((await restored.status(lost.ticket)).json.error, 'ticket_lost_in_restore');
});
