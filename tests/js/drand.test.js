import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { firstRoundAtOrAfter, quicknet, randomness, roundAt, timeOfRound, verifyRound } from '../../web/js/drand.js';

const recorded = JSON.parse(readFileSync(new URL('../data/drand-quicknet-rounds.json', import.meta.url)));

function flipBit(hex, bit) {
  const i = Math.floor(bit / 4);
  return hex.slice(0, i) + (parseInt(hex[i], 16) ^ (1 << (bit % 4))).toString(16) + hex.slice(i + 1);
}

test('the pinned chain is quicknet as drand publishes it', () => {
  const { info } = recorded;
  assert.equal(quicknet.chainHash, info.chain_hash);
  assert.equal(quicknet.publicKey, info.public_key);
  assert.equal(quicknet.period, info.period);
  assert.equal(quicknet.genesis, info.genesis_time);
  assert.equal(quicknet.scheme, info.scheme);
  assert.equal(quicknet.dst, 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_');
});

test('every recorded quicknet round verifies, and its randomness is SHA-256(signature)', () => {
  assert.ok(recorded.rounds.length >= 5);
  for (const { round, signature, randomness: expected } of recorded.rounds) {
    assert.equal(verifyRound(round, signature), true, `round ${round}`);
    assert.equal(randomness(signature), expected, `round ${round}`);
  }
});

test('a flipped bit anywhere in a signature is refused', () => {
  const { round, signature } = recorded.rounds[3];
  // The compression flags (the top three bits), the x coordinate's first and last bits.
  for (const bit of [0, 1, 2, 3, 8, 200, 383]) {
    assert.equal(verifyRound(round, flipBit(signature, bit)), false, `bit ${bit}`);
  }
});

test("a round with another round's signature is refused", () => {
  const [a, b] = recorded.rounds;
  assert.equal(verifyRound(a.round, b.signature), false);
  assert.equal(verifyRound(b.round, a.signature), false);
  assert.equal(verifyRound(a.round + 1, a.signature), false);
});

test('malformed input is refused, not thrown', () => {
  const { round, signature } = recorded.rounds[0];
  for (const bad of ['', signature.slice(2), `${signature}00`, signature.toUpperCase(), `zz${signature.slice(2)}`, null, 7]) {
    assert.equal(verifyRound(round, bad), false);
  }
  for (const bad of [0, -1, 1.5, 2 ** 53, '1']) assert.equal(verifyRound(bad, signature), false);
  // The point at infinity (compressed, infinity flag set) is no signature.
  assert.equal(verifyRound(round, `c0${'0'.repeat(94)}`), false);
});

test('round times follow genesis and period', () => {
  const { genesis } = quicknet;
  assert.equal(timeOfRound(1), 1692803367);
  assert.equal(timeOfRound(2), 1692803370);
  // Worked by hand: 1692803367 + (r - 1) * 3.
  assert.equal(timeOfRound(12040883), 1728926013);
  assert.equal(timeOfRound(30662982), 1784792310);

  assert.equal(roundAt(genesis - 1), 0);
  assert.equal(roundAt(genesis), 1);
  assert.equal(roundAt(genesis + 2), 1);
  assert.equal(roundAt(genesis + 3), 2);
  assert.equal(roundAt(1784792310), 30662982);
  assert.equal(roundAt(1784792312), 30662982);

  assert.equal(firstRoundAtOrAfter(0), 1);
  assert.equal(firstRoundAtOrAfter(genesis * 1000), 1);
  assert.equal(firstRoundAtOrAfter(genesis * 1000 + 1), 2);
  assert.equal(firstRoundAtOrAfter(1784792310000), 30662982);
  assert.equal(firstRoundAtOrAfter(1784792310001), 30662983);
  assert.equal(firstRoundAtOrAfter(1784792307001), 30662982);
  for (let ms = genesis * 1000 - 7000; ms < genesis * 1000 + 20000; ms += 250) {
    const r = firstRoundAtOrAfter(ms);
    assert.ok(timeOfRound(r) * 1000 >= ms, `${ms}`);
    assert.ok(r === 1 || timeOfRound(r - 1) * 1000 < ms, `${ms}`);
  }
});
