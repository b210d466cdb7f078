import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';

import { CHUNK, decodeChallenge, searchPuzzle, solve, solveSync, workOnPuzzle } from '../../web/js/pow.js';

// The fixed challenge of tests/unit/core/pow_test.cpp ("a fixed challenge and its
// solution"): minted by the C++ authority, solved by the C++ solver.
const VECTOR_TOKEN =
  'AQRLmi8gD43HWyyCw-4ni9-S8A_icquNVMefaYmVApxsEwTGM2QAAAAAAAGLz-VoAAAAAYvP5zzAAD________8HCAkKCwwNDg8QERIT' +
  'FBUWSc7E1iw5QuVY_j7Ai8bh53a_HElD_tUx1lO3y9zOmo4';
const VECTOR_PROOF = '00000000000001f500000000000000a10000000000000801000000000000049e';
const START = 1700000000000n;

// A token built from the layout in src/core/pow.hpp with node:crypto, independently of pow.js.
function buildToken({ puzzles, threshold, room = 'vector-room', network = [4, 198, 51, 100, 0, 0, 0],
  issuedAt = START, ttl = 120000n, salt = Buffer.from([...Array(16).keys()].map((i) => 7 + i)) }) {
  const body = Buffer.alloc(81);
  body[0] = 1;
  body[1] = puzzles;
  createHash('sha256').update(room).digest().copy(body, 2);
  Buffer.from(network).copy(body, 34);
  body.writeBigUInt64BE(issuedAt, 41);
  body.writeBigUInt64BE(issuedAt + ttl, 49);
  body.writeBigUInt64BE(threshold, 57);
  salt.copy(body, 65);
  const key = createHmac('sha256', Buffer.alloc(32, 0x42)).update('foyer/pow/v1/key').digest();
  const mac = createHmac('sha256', key).update(body).digest();
  return Buffer.concat([body, mac]).toString('base64url');
}

// The rule, straight from the documented layout: SHA-256(mac ‖ be32(i) ‖ be64(nonce))[0..8] <= threshold.
function passes(token, index, nonce) {
  const bytes = Buffer.from(token, 'base64url');
  const tail = Buffer.alloc(12);
  tail.writeUInt32BE(index, 0);
  tail.writeBigUInt64BE(BigInt(nonce), 4);
  const hash = createHash('sha256').update(bytes.subarray(81)).update(tail).digest();
  return hash.readBigUInt64BE(0) <= bytes.readBigUInt64BE(57);
}

function verifyProof(token, proof) {
  const puzzles = Buffer.from(token, 'base64url')[1];
  if (proof.length !== 16 * puzzles || !/^[0-9a-f]*$/.test(proof)) return false;
  for (let i = 0; i < puzzles; i++) {
    if (!passes(token, i, BigInt('0x' + proof.slice(16 * i, 16 * i + 16)))) return false;
  }
  return true;
}

test('the token layout built with node:crypto reproduces the C++ vector', () => {
  const threshold = (4n << 64n) / 4096n - 1n;  // 12 bits over 4 puzzles
  assert.equal(buildToken({ puzzles: 4, threshold }), VECTOR_TOKEN);
});

test('decodeChallenge reads puzzles, MAC and threshold', () => {
  const c = decodeChallenge(VECTOR_TOKEN);
  assert.equal(c.puzzles, 4);
  assert.equal(c.thresholdHi, 0x003fffff);
  assert.equal(c.thresholdLo, 0xffffffff);
  assert.equal(c.expectedHashes, 4096);
  assert.deepEqual(Buffer.from(c.mac), Buffer.from(VECTOR_TOKEN, 'base64url').subarray(81));
});

test('decodeChallenge refuses malformed tokens', () => {
  const bytes = Buffer.from(VECTOR_TOKEN, 'base64url');
  const variant = (at, value) => {
    const copy = Buffer.from(bytes);
    copy[at] = value;
    return copy.toString('base64url');
  };
  for (const bad of ['', VECTOR_TOKEN.slice(1), VECTOR_TOKEN + 'AA', '*' + VECTOR_TOKEN.slice(1),
    VECTOR_TOKEN.replace('-', '+'), variant(0, 2), variant(1, 0)]) {
    assert.throws(() => decodeChallenge(bad), /malformed challenge/, bad);
  }
});

test('the JS solver finds the same nonces as the C++ solver', () => {
  assert.deepEqual(solveSync(VECTOR_TOKEN), { challenge: VECTOR_TOKEN, nonce: VECTOR_PROOF });
});

test('the fast inner loop hashes exactly the documented layout', () => {
  // Each nonce found is the first that passes by node:crypto's reckoning: every smaller one fails.
  const token = buildToken({ puzzles: 8, threshold: (1n << 56n) - 1n, salt: Buffer.alloc(16, 9) });
  const { nonce } = solveSync(token);
  for (let i = 0; i < 8; i++) {
    const found = Number(BigInt('0x' + nonce.slice(16 * i, 16 * i + 16)));
    assert.ok(passes(token, i, found), `puzzle ${i}`);
    for (let n = 0; n < found; n++) assert.ok(!passes(token, i, n), `puzzle ${i} nonce ${n}`);
  }
});

test('searchPuzzle is right across the 2^32 boundary of the nonce', () => {
  const token = buildToken({ puzzles: 2, threshold: (1n << 57n) - 1n, salt: Buffer.alloc(16, 3) });
  const c = decodeChallenge(token);
  for (const start of [2 ** 32 - 300, 2 ** 40 + 5]) {
    let expected = -1;
    for (let n = start; expected < 0; n++) if (passes(token, 1, n)) expected = n;
    assert.equal(searchPuzzle(c.mac, 1, c.thresholdHi, c.thresholdLo, start, 100000), expected, `from ${start}`);
    assert.equal(searchPuzzle(c.mac, 1, c.thresholdHi, c.thresholdLo, start, expected - start), -1);
  }
});

test('solver output is accepted by the rules, and a wrong nonce is not', () => {
  const token = buildToken({ puzzles: 8, threshold: (8n << 64n) / (1n << 14n) - 1n, salt: Buffer.alloc(16, 5) });
  const { nonce } = solveSync(token);
  assert.ok(verifyProof(token, nonce));
  // Wrong by construction: the first nonce of puzzle 0 that fails.
  let failing = 0;
  while (passes(token, 0, failing)) failing++;
  const wrong = failing.toString(16).padStart(16, '0') + nonce.slice(16);
  assert.ok(!verifyProof(token, wrong));
});

test('difficulty 0 is solved by zero nonces at once', () => {
  const token = buildToken({ puzzles: 8, threshold: (1n << 64n) - 1n });
  assert.equal(decodeChallenge(token).expectedHashes, 8);
  assert.equal(solveSync(token).nonce, '0'.repeat(128));
});

// Stands in for the browser's Worker: runs the worker's handler in-process, asynchronously.
class FakeWorker {
  static created = [];

  constructor(url, options) {
    this.url = String(url);
    this.options = options;
    this.terminated = false;
    FakeWorker.created.push(this);
  }

  postMessage(data) {
    setImmediate(() => {
      if (this.terminated) return;
      workOnPuzzle(structuredClone(data), (message) => {
        if (!this.terminated) this.onmessage({ data: structuredClone(message) });
      });
    });
  }

  terminate() {
    this.terminated = true;
  }
}

async function withFakeWorker(body) {
  const saved = globalThis.Worker;
  globalThis.Worker = FakeWorker;
  FakeWorker.created = [];
  try {
    await body();
  } finally {
    globalThis.Worker = saved;
  }
}

test('solve() runs same-origin module workers, reports progress and agrees with solveSync', async () => {
  await withFakeWorker(async () => {
    // 2^17 expected tries per puzzle, so workers report progress chunks along the way.
    const token = buildToken({ puzzles: 3, threshold: (1n << 47n) - 1n, salt: Buffer.alloc(16, 1) });
    const reports = [];
    const result = await solve({ challenge: token, difficulty_bits: 18.58 }, {
      workers: 2,
      onProgress: (p) => reports.push(p),
    });
    assert.deepEqual(result, solveSync(token));
    assert.equal(FakeWorker.created.length, 2);
    for (const worker of FakeWorker.created) {
      assert.match(worker.url, /\/web\/js\/pow-worker\.js$/);
      assert.deepEqual(worker.options, { type: 'module' });
      assert.ok(worker.terminated);
    }
    assert.ok(reports.some((p) => p.solved === 0 && p.hashes >= CHUNK), 'progress before the first solution');
    const last = reports.at(-1);
    assert.equal(last.solved, 3);
    assert.equal(last.puzzles, 3);
    assert.equal(last.expectedHashes, 3 * 2 ** 17);
    const tries = result.nonce.match(/.{16}/g).reduce((sum, hex) => sum + parseInt(hex, 16) + 1, 0);
    assert.equal(last.hashes, tries);
    for (let i = 1; i < reports.length; i++) {
      assert.ok(reports[i].solved >= reports[i - 1].solved && reports[i].hashes > reports[i - 1].hashes);
    }
  });
});

test('solve() stops its workers and rejects when aborted', async () => {
  await withFakeWorker(async () => {
    const token = buildToken({ puzzles: 4, threshold: (1n << 50n) - 1n, salt: Buffer.alloc(16, 2) });
    const controller = new AbortController();
    const solving = solve(token, {
      workers: 2,
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await assert.rejects(solving, { name: 'AbortError' });
    assert.ok(FakeWorker.created.every((worker) => worker.terminated));
  });
});

test('solve() with an already aborted signal starts no worker', async () => {
  await withFakeWorker(async () => {
    await assert.rejects(solve(VECTOR_TOKEN, { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(FakeWorker.created.length, 0);
  });
});
