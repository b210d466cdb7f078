// The audit's cosignature check against a witness that is neither Foyer's nor the test
// writer's: tests/go/witness, written with Go's golang.org/x/mod/sumdb/note, cosigns a
// checkpoint and web/js/audit/note.js verifies the cosignature and its timestamp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openCheckpoint, parseVkey } from '../../web/js/audit/note.js';
import { spawnOwned } from '../lib/foyer.js';
import { checkpointNote, noteKey } from '../lib/ledger-writer.js';

const witnessSource = fileURLToPath(new URL('../go/witness', import.meta.url));
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function witnessVkey(name, seed) {
  const key = createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }));
  const pub = Buffer.from(key.export({ format: 'jwk' }).x, 'base64url');
  const id = createHash('sha256').update(Buffer.concat([Buffer.from(name), Buffer.of(0x0a, 0x04), pub])).digest().subarray(0, 4);
  return `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(0x04), pub]).toString('base64')}`;
}

test("a Go witness's cosignature verifies with its timestamp; a changed one does not", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-audit-witness-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Offline: GOPATH mode on Debian's Go sources (packaging/deps.sh), no module proxy.
  execFileSync('go', ['build', '-o', path.join(dir, 'witness'), '.'], {
    cwd: witnessSource,
    env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '', GOPROXY: 'off', GOCACHE: path.join(tmpdir(), 'foyer-go-cache') },
  });
  const log = noteKey('foyer.test/ledger');
  const seed = randomBytes(32);
  const name = 'witness.example/go';
  const witness = spawnOwned(path.join(dir, 'witness'), ['serve', '-name', name, '-seed', seed.toString('hex'), '-log-vkey', log.vkey]);
  t.after(() => witness.kill('SIGKILL'));
  const address = await new Promise((resolve, reject) => {
    witness.stdout.on('data', (chunk) => {
      const m = /listening on (\S+)/.exec(chunk.toString());
      if (m) resolve(m[1]);
    });
    witness.on('exit', (code) => reject(new Error(`witness exited with ${code}`)));
  });

  const note = checkpointNote(log.name, 3, createHash('sha256').update('three').digest(), log);
  const before = Math.floor(Date.now() / 1000);
  const res = await fetch(`http://${address}/add-checkpoint`, { method: 'POST', body: `old 0\n\n${note}` });
  assert.equal(res.status, 200);
  const cosigned = note + (await res.text());

  const keys = [parseVkey(log.vkey), { witnesses: [parseVkey(witnessVkey(name, seed))] }];
  const checkpoint = await openCheckpoint(cosigned, ...keys);
  assert.equal(checkpoint.size, 3);
  assert.equal(checkpoint.cosignatures.length, 1);
  assert.equal(checkpoint.cosignatures[0].name, name);
  assert.ok(Math.abs(checkpoint.cosignatures[0].time - before) <= 5, `${checkpoint.cosignatures[0].time} vs ${before}`);

  // The timestamp is signed: a cosignature line whose time moved no longer verifies.
  const line = cosigned.split('\n').at(-2);
  const payload = Buffer.from(line.split(' ').at(-1), 'base64');
  payload.writeBigUInt64BE(payload.readBigUInt64BE(4) - 60n, 4);
  const moved = cosigned.replace(line, `— ${name} ${payload.toString('base64')}`);
  await assert.rejects(openCheckpoint(moved, ...keys), /signature by witness\.example\/go does not verify/);
  // Without the witness's key, the line is not counted.
  assert.deepEqual((await openCheckpoint(cosigned, parseVkey(log.vkey))).cosignatures, []);
});
