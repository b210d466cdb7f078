import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  checkCommitment, commitmentOf, deriveKey, fromHex, holder, leafHash, nodeHash, place, pureHashes,
  receiptMessage, rootFromPath, toHex, verifyEntry, verifyInclusion, verifyReceipt, webCryptoHashes,
} from '../../web/js/lottery.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const vectors = JSON.parse(readFileSync(path.resolve(here, '../data/fairness-vectors.json'), 'utf8'));
const foyerBin = process.env.FOYER_BIN ?? path.resolve(here, '../../build/foyer');

// Both hash sources: WebCrypto (secure pages) and the pure-JS fallback (plain HTTP).
const providers = [webCryptoHashes(globalThis.crypto.subtle), pureHashes];

// A fixed-seed generator (xorshift64*), so every run draws the same "random" inputs.
function prng(seed) {
  let s = BigInt.asUintN(64, seed);
  return () => {
    s ^= s >> 12n;
    s = BigInt.asUintN(64, s ^ (s << 25n));
    s ^= s >> 27n;
    return BigInt.asUintN(64, s * 0x2545f4914f6cdd1dn);
  };
}

// Ed25519 keys from a 32-byte seed, as libsodium's crypto_sign_seed_keypair makes them.
function ed25519FromSeed(seed) {
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12);
  return { privateKey, publicKey: new Uint8Array(publicKey) };
}

const sequenceSeed = Uint8Array.from({ length: 32 }, (_, i) => i);

// Signed by the C++ receipt code (tests/unit/core/receipt_test.cpp): key seed 00 01 .. 1f,
// receipt 1 of a batch of 3.
const cppReceipt = {
  version: 'v1', room: 'spring-sale', lobby_index: 1001, entrant_id: '101112131415161718191a1b1c1d1e1f',
  joined_at: 1767225600001, commitment: '19b25856e1c150ca834cffc8b59b23adbd0ec0389e58eb22b3b64768098d002b',
  kid: 'room-key-1', batch_size: 3, batch_index: 1,
  batch_path: ['a1655e44313a989c7cd3f1eedef2af379f25ffef9e523395299be58d3992674b',
    'a4f74fab4c8af980e71d0ed162d9d19e9de17ba408de2d285f04cf68e4aacf8d'],
  signature: '10aaae49525d403152a5124ba5dbee79279d8c8ec98beebaff5ea7efa7a38513'
    + '443410b47cafb65eea285f5974daae07fd8b26f44e111ba3cb22f1dd3530a605',
};

for (const hashes of providers) {
  const options = { hashes };

  test(`${hashes.name}: commitment and key reproduce the vectors`, async () => {
    for (const v of vectors.key) {
      assert.equal(toHex(await commitmentOf(v.seed, options)), v.commitment);
      assert.equal(await checkCommitment(v.seed, v.commitment, options), true);
      assert.equal(await checkCommitment(v.seed, v.lobby_root, options), false);
      assert.equal(toHex(await deriveKey(v.seed, v.lobby_root, v.beacon, options)), v.key);
      if (v.beacon === '') assert.equal(toHex(await deriveKey(v.seed, v.lobby_root, null, options)), v.key);
    }
  });

  test(`${hashes.name}: places and holders reproduce the vectors`, async () => {
    for (const v of vectors.places) {
      assert.equal(await place(v.key, v.n, v.index, options), BigInt(v.place), `n=${v.n} index=${v.index}`);
      assert.equal(await holder(v.key, BigInt(v.n), BigInt(v.place), options), BigInt(v.index));
    }
    const full = vectors.full_permutation;
    const places = [];
    for (let i = 0; i < full.n; i++) places.push(Number(await place(full.key, full.n, i, options)));
    assert.deepEqual(places, full.places);
  });

  test(`${hashes.name}: place refuses sizes and indexes outside the lobby`, async () => {
    const key = vectors.places[0].key;
    await assert.rejects(place(key, 0, 0, options), RangeError);
    await assert.rejects(place(key, 2n ** 48n, 0, options), RangeError);
    await assert.rejects(place(key, 5, 5, options), RangeError);
    await assert.rejects(holder(key, 5, -1, options), RangeError);
    await assert.rejects(place(key, 2 ** 53, 0, options), TypeError);
  });

  test(`${hashes.name}: Merkle roots and inclusion reproduce the vectors`, async () => {
    for (const v of vectors.merkle) {
      const leaves = await Promise.all(v.entrants.map((e) => leafHash(e, options)));
      assert.equal(toHex(await merkleRoot(leaves, options)), v.root);
    }
    const v = vectors.inclusion;
    const leaf = await leafHash(v.entrants[v.index], options);
    const size = v.entrants.length;
    assert.equal(await verifyInclusion(leaf, v.index, size, v.path, v.root, options), true);
    assert.equal(toHex(await rootFromPath(leaf, v.index, size, v.path, options)), v.root);
    const other = await leafHash(v.entrants[v.index - 1], options);
    assert.equal(await verifyInclusion(other, v.index, size, v.path, v.root, options), false);
    assert.equal(await verifyInclusion(leaf, v.index + 1, size, v.path, v.root, options), false);
    assert.equal(await verifyInclusion(leaf, v.index, 4, v.path, v.root, options), false);
    assert.equal(await rootFromPath(leaf, v.index, size, v.path.slice(1), options), null);
    assert.equal(await rootFromPath(leaf, v.index, size, [...v.path, v.root], options), null);
    assert.equal(await rootFromPath(leaf, size, size, v.path, options), null);
  });

  test(`${hashes.name}: a receipt signed in C++ checks out, a tampered one does not`, async () => {
    const { publicKey } = ed25519FromSeed(sequenceSeed);
    const genuine = await verifyReceipt(cppReceipt, publicKey, options);
    assert.equal(genuine.status, hashes.subtle ? 'valid' : 'not checked');
    // Malformed: no batch root at all. Forged: another root, so the signature fails.
    const malformed = [
      { batch_index: 2 }, { batch_path: cppReceipt.batch_path.slice(1) }, { version: 'v2' },
      { room: 'r'.repeat(256) }, { commitment: 'zz' },
    ];
    for (const change of malformed) {
      assert.equal((await verifyReceipt({ ...cppReceipt, ...change }, publicKey, options)).status, 'invalid',
        JSON.stringify(change));
    }
    const forged = [
      { lobby_index: 1002 }, { room: 'spring-salf' }, { joined_at: 1767225600002 },
      { entrant_id: '001112131415161718191a1b1c1d1e1f' }, { batch_index: 0 },
    ];
    for (const change of forged) {
      const result = await verifyReceipt({ ...cppReceipt, ...change }, publicKey, options);
      assert.equal(result.status, hashes.subtle ? 'invalid' : 'not checked', JSON.stringify(change));
      assert.notEqual(toHex(result.batchRoot), toHex(genuine.batchRoot), JSON.stringify(change));
    }
    if (hashes.subtle) {
      const badSignature = cppReceipt.signature.replace(/^10/, '11');
      assert.equal((await verifyReceipt({ ...cppReceipt, signature: badSignature }, publicKey, options)).status,
        'invalid');
      const otherKey = publicKey.slice();
      otherKey[0] ^= 1;
      assert.equal((await verifyReceipt(cppReceipt, otherKey, options)).status, 'invalid');
    }
  });
}

// RFC 6962 MTH over leaf hashes; the module itself needs only paths.
async function merkleRoot(leaves, options) {
  if (leaves.length === 1) return leaves[0];
  let split = 1;
  while (split * 2 < leaves.length) split *= 2;
  return nodeHash(await merkleRoot(leaves.slice(0, split), options), await merkleRoot(leaves.slice(split), options),
    options);
}

test('receipt message has the documented bytes', () => {
  const message = receiptMessage({
    room: 'ab', lobby_index: 0x0102030405060708n, entrant_id: 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf',
    joined_at: 0x19b00000001, commitment: 'cc'.repeat(32),
  });
  assert.equal(toHex(message), '666f7965722f726563656970742f7631' + '02' + '6162' + '0102030405060708'
    + 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf' + '0000019b00000001' + 'cc'.repeat(32));
});

test('a lane receipt message has the documented bytes', () => {
  const message = receiptMessage({
    room: 'ab', lane: 'members', lobby_index: 0x0102030405060708n, entrant_id: 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf',
    joined_at: 0x19b00000001, commitment: 'cc'.repeat(32),
  });
  assert.equal(toHex(message), Buffer.from('foyer/lane-receipt/v1').toString('hex') + '02' + '6162'
    + '07' + Buffer.from('members').toString('hex') + '0102030405060708'
    + 'a0a1a2a3a4a5a6a7a8a9aaabacadaeaf' + '0000019b00000001' + 'cc'.repeat(32));
  assert.throws(() => receiptMessage({ room: 'ab', lane: 7, lobby_index: 0, entrant_id: '00'.repeat(16), joined_at: 0, commitment: '00'.repeat(32) }),
    TypeError);
});

function runFoyer(args, input) {
  assert.ok(existsSync(foyerBin), `${foyerBin} is missing: build the foyer target or set FOYER_BIN`);
  const result = spawnSync(foyerBin, args, { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(result.error, undefined);
  return result;
}

test('C++ and JS agree on places and holders of random lobbies', async () => {
  const next = prng(0x5eed0001n);
  const cases = [];
  for (let c = 0; c < 3000; c++) {
    const key = new Uint8Array(32);
    const view = new DataView(key.buffer);
    for (let w = 0; w < 4; w++) view.setBigUint64(8 * w, next());
    const bits = 1n + next() % 48n;  // lobby sizes of every magnitude up to 2^48 - 1
    const n = 1n + next() % ((1n << bits) - 1n);
    const index = next() % n;
    cases.push({ key: toHex(key), n, index });
  }
  const result = runFoyer(['lottery', 'batch'], cases.map((c) => `${c.key} ${c.n} ${c.index}\n`).join(''));
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.equal(lines.length, cases.length);
  for (const [i, c] of cases.entries()) {
    // Every case with the fallback, one in ten with WebCrypto too (it awaits per hash).
    for (const hashes of i % 10 === 0 ? providers : [pureHashes]) {
      const got = `${await place(c.key, c.n, c.index, { hashes })} ${await holder(c.key, c.n, c.index, { hashes })}`;
      assert.equal(got, lines[i], `${hashes.name}: key=${c.key} n=${c.n} index=${c.index}`);
    }
  }
});

// A closed lobby as the server would publish it, with a receipt signed here in the
// documented format, so the CLI also checks JS-made signatures. With `lane`, the lobby is
// that lane's (docs/fairness.md "Lanes": its seed derived from the room's, here with
// node:crypto), under the lottery's `lanes`, and the room's own lobby is another.
async function publishedDraw({ lane } = {}) {
  const v = vectors.inclusion;
  const sha = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest('hex');
  const roomSeed = vectors.key[0].seed;
  const seed = lane ? sha(Buffer.from('foyer/lane-seed/v1'), Buffer.of(0), Buffer.from(roomSeed, 'hex'), Buffer.from(lane)) : roomSeed;
  const commitment = lane ? sha(Buffer.from(seed, 'hex')) : vectors.key[0].commitment;
  const { privateKey, publicKey } = ed25519FromSeed(sequenceSeed);
  const joins = [4, 5, 6].map((i) => ({
    room: 'spring-sale', ...(lane ? { lane } : {}), lobby_index: i, entrant_id: v.entrants[i], joined_at: 1767225600000 + i, commitment,
  }));
  const leaves = await Promise.all(joins.map((j) => leafHash(receiptMessage(j))));
  const batchRoot = await merkleRoot(leaves);
  const signed = concatBytes(new TextEncoder().encode('foyer/receipt-batch/v1'), batchRoot);
  const signature = toHex(sign(null, signed, privateKey));
  const receipt = {
    version: 'v1', ...joins[1], kid: 'k1', batch_size: 3, batch_index: 1,
    batch_path: [toHex(leaves[0]), toHex(leaves[2])], signature,
  };
  const draw = { commitment, lobby_size: v.entrants.length, lobby_root: v.root, seed };
  const keys = { receipt_key: toHex(publicKey), receipt_kid: 'k1', receipt_keys: { k1: toHex(publicKey) } };
  const lottery = lane
    ? {
      version: 'v1', state: 'open', beacon: null, ...keys, commitment: vectors.key[0].commitment, lobby_size: 2,
      lobby_root: 'ee'.repeat(32), seed: roomSeed,
      lanes: { [lane]: { ...draw, lobby_vkey: 'x', lobby: `/ledger/lobbies/spring-sale/lanes/${lane}` } },
    }
    : { version: 'v1', state: 'open', ...draw, beacon: null, ...keys };
  const proof = { index: 5, entrant_id: v.entrants[5], lobby_size: v.entrants.length, lobby_root: v.root, path: v.path };
  return { lottery, receipt, proof };
}

function concatBytes(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

test('verifyEntry passes a sound draw and fails a forged one', async () => {
  const draw = await publishedDraw();
  const expectedPlace = await place(vectors.key[0].key, draw.lottery.lobby_size, 5);
  for (const hashes of providers) {
    const result = await verifyEntry(draw, { hashes });
    assert.equal(result.ok, true, JSON.stringify(result.checks));
    assert.equal(result.place, expectedPlace);
    assert.equal(toHex(result.key), vectors.key[0].key);
    const signature = result.checks.find((c) => c.name === 'receipt signature').status;
    assert.equal(signature, hashes.subtle ? 'pass' : 'skipped');
  }
  const forgeries = [
    { lottery: { ...draw.lottery, seed: vectors.key[0].key } },
    { lottery: { ...draw.lottery, seed: null } },
    { lottery: { ...draw.lottery, lobby_size: 8 } },
    { receipt: { ...draw.receipt, joined_at: draw.receipt.joined_at + 1 } },
    { proof: { ...draw.proof, path: [...draw.proof.path].reverse() } },
    { proof: { ...draw.proof, index: 4 } },
  ];
  for (const forgery of forgeries) {
    const result = await verifyEntry({ ...draw, ...forgery });
    assert.equal(result.ok, false, JSON.stringify(forgery));
  }
  const withoutProof = await verifyEntry({ ...draw, proof: undefined });
  assert.equal(withoutProof.ok, true);
  assert.equal(withoutProof.checks.find((c) => c.name === 'inclusion').status, 'skipped');
});

test('verifyEntry checks a lane\'s receipt against the lane\'s own draw', async () => {
  const draw = await publishedDraw({ lane: 'members' });
  const lane = draw.lottery.lanes.members;
  const key = await deriveKey(lane.seed, lane.lobby_root, null);
  for (const hashes of providers) {
    const result = await verifyEntry(draw, { hashes });
    assert.equal(result.ok, true, JSON.stringify(result.checks));
    assert.deepEqual(result.checks.map((c) => c.name), ['lane', 'commitment', 'receipt commitment', 'receipt signature', 'inclusion', 'key derivation']);
    assert.equal(result.place, await place(key, lane.lobby_size, 5));
    assert.equal(result.checks.find((c) => c.name === 'receipt signature').status, hashes.subtle ? 'pass' : 'skipped');
  }
  // Another lane, no lane (the room's own draw), or the room's lobby's proof: each fails.
  const unknown = await verifyEntry({ ...draw, receipt: { ...draw.receipt, lane: 'vip' } });
  assert.deepEqual(unknown.checks, [{ name: 'lane', status: 'fail', detail: 'the room publishes no draw of lane vip' }]);
  const { lane: _, ...general } = draw.receipt;
  const asGeneral = await verifyEntry({ ...draw, receipt: general });
  assert.deepEqual(asGeneral.checks.filter((c) => c.status === 'fail').map((c) => c.name), ['receipt commitment', 'receipt signature', 'inclusion', 'key derivation']);
  const roomProof = await verifyEntry({ ...draw, proof: { ...draw.proof, lobby_size: 2, lobby_root: 'ee'.repeat(32) } });
  assert.equal(roomProof.checks.find((c) => c.name === 'inclusion').detail, 'the proof is for another lobby');
});

// The draw after `foyer keygen` and a restart: a new key signs receipts, the old one is
// still published under its kid, and the receipt in hand was signed with the old one.
async function rotatedDraw() {
  const draw = await publishedDraw();
  const newKey = toHex(ed25519FromSeed(new Uint8Array(32).fill(9)).publicKey);
  const lottery = {
    ...draw.lottery, receipt_key: newKey, receipt_kid: 'k2', receipt_keys: { k1: draw.lottery.receipt_key, k2: newKey },
  };
  return { ...draw, lottery };
}

test('a receipt is checked with the key its kid names, also after a key rotation', async () => {
  const draw = await rotatedDraw();
  const signatureCheck = async (input) => (await verifyEntry(input)).checks.find((c) => c.name === 'receipt signature');
  assert.deepEqual(await signatureCheck(draw), { name: 'receipt signature', status: 'pass', detail: 'signed by key k1' });
  const unknown = await signatureCheck({ ...draw, receipt: { ...draw.receipt, kid: 'k9' } });
  assert.equal(unknown.status, 'fail');
  assert.equal(unknown.detail, 'the receipt names key k9, which the room does not publish');
  // The kid is looked up as an own key only.
  assert.equal((await signatureCheck({ ...draw, receipt: { ...draw.receipt, kid: '__proto__' } })).status, 'fail');
  // Claiming the new key's kid does not help a receipt the old key signed.
  assert.equal((await signatureCheck({ ...draw, receipt: { ...draw.receipt, kid: 'k2' } })).status, 'fail');
});

test('foyer lottery verify agrees with verifyEntry', async () => {
  const draw = await publishedDraw();
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-lottery-'));
  try {
    const write = (name, value) => {
      const file = path.join(dir, name);
      writeFileSync(file, JSON.stringify(value));
      return file;
    };
    const run = (lottery, receipt, proof) => runFoyer(['lottery', 'verify', '--lottery', write('lottery.json', lottery),
      '--receipt', write('receipt.json', receipt), '--proof', write('proof.json', proof)]);

    const sound = run(draw.lottery, draw.receipt, draw.proof);
    assert.equal(sound.status, 0, sound.stdout + sound.stderr);
    const { place: expected } = await verifyEntry(draw);
    assert.match(sound.stdout, new RegExp(`^place\\s+${expected} `, 'm'));
    for (const name of ['commitment', 'receipt commitment', 'receipt signature', 'inclusion', 'key derivation']) {
      assert.match(sound.stdout, new RegExp(`^${name}\\s+pass`, 'm'));
    }

    const forged = run({ ...draw.lottery, seed: vectors.key[0].key }, draw.receipt, draw.proof);
    assert.equal(forged.status, 1);
    assert.match(forged.stdout, /^commitment\s+FAIL/m);
    const badSignature = run(draw.lottery, { ...draw.receipt, lobby_index: 6 }, draw.proof);
    assert.equal(badSignature.status, 1);
    assert.match(badSignature.stdout, /^receipt signature\s+FAIL/m);
    const badProof = run(draw.lottery, draw.receipt, { ...draw.proof, path: draw.proof.path.slice(1) });
    assert.equal(badProof.status, 1);
    assert.match(badProof.stdout, /^inclusion\s+FAIL/m);

    const rotated = await rotatedDraw();
    const afterRotation = run(rotated.lottery, rotated.receipt, rotated.proof);
    assert.equal(afterRotation.status, 0, afterRotation.stdout + afterRotation.stderr);
    assert.match(afterRotation.stdout, /^receipt signature\s+pass\s+signed by key k1$/m);
    const unknownKid = run(rotated.lottery, { ...rotated.receipt, kid: 'k9' }, rotated.proof);
    assert.equal(unknownKid.status, 1);
    assert.match(unknownKid.stdout, /^receipt signature\s+FAIL\s+the receipt names key k9, which the room does not publish$/m);

    // A lane's receipt, checked against the lane's draw.
    const laneDraw = await publishedDraw({ lane: 'members' });
    const laneRun = run(laneDraw.lottery, laneDraw.receipt, laneDraw.proof);
    assert.equal(laneRun.status, 0, laneRun.stdout + laneRun.stderr);
    assert.match(laneRun.stdout, /^lane\s+pass\s+lane members draws on its own/m);
    assert.match(laneRun.stdout, new RegExp(`^place\\s+${(await verifyEntry(laneDraw)).place} \\(lobby index 5 of 7\\)$`, 'm'));
    const otherLane = run(laneDraw.lottery, { ...laneDraw.receipt, lane: 'vip' }, laneDraw.proof);
    assert.equal(otherLane.status, 1);
    assert.match(otherLane.stdout, /^lane\s+FAIL\s+the room publishes no draw of lane vip$/m);
    const { lane: _, ...asGeneral } = laneDraw.receipt;
    const generalRun = run(laneDraw.lottery, asGeneral, laneDraw.proof);
    assert.equal(generalRun.status, 1);
    assert.match(generalRun.stdout, /^receipt signature\s+FAIL/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
