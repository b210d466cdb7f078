// drand quicknet, the public beacon a lottery key may mix in (docs/fairness.md, "The
// beacon: drand quicknet"): the chain's pinned parameters, round <-> time arithmetic, and
// the check of a round's BLS signature. Runs in the browser and in Node 18.
//
// The pairing is @noble/curves' (audited), never code of ours. The bare "@noble/…"
// imports resolve from web/node_modules in Node; the binary serves this file with them
// rewritten to the copies it embeds under /vendor/ (cmake/embed_files.cmake).

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { sha256 } from '@noble/hashes/sha2.js';

// From drand's published chain info, fetched from
// https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/info
// (the same values are in drand/drand common/chain/info_test.go). Mirrored in
// src/core/fairness/drand.hpp; keep the two alike.
export const quicknet = Object.freeze({
  chainHash: '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971',
  publicKey:
    '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a',
  period: 3, // seconds
  genesis: 1692803367, // Unix seconds, the time of round 1
  scheme: 'bls-unchained-g1-rfc9380',
  // The RFC 9380 hash-to-curve suite for signatures on G1 (draft-irtf-cfrg-bls-signature).
  dst: 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_',
});

const signaturePattern = /^[0-9a-f]{96}$/;

/** The round published last at `unixSeconds` (0 before genesis), as drand counts it. */
export function roundAt(unixSeconds) {
  if (unixSeconds < quicknet.genesis) return 0;
  return Math.floor((unixSeconds - quicknet.genesis) / quicknet.period) + 1;
}

/** When round `round` (>= 1) is published, in Unix seconds. */
export function timeOfRound(round) {
  return quicknet.genesis + (round - 1) * quicknet.period;
}

/** The first round published at or after `ms` (Unix milliseconds). */
export function firstRoundAtOrAfter(ms) {
  const since = ms - quicknet.genesis * 1000;
  if (since <= 0) return 1;
  return Math.ceil(since / (quicknet.period * 1000)) + 1;
}

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** What round `round` signs: SHA-256 of the round as a big-endian u64 (unchained scheme). */
function roundMessage(round) {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(round));
  return sha256(bytes);
}

/**
 * Whether `signatureHex` (96 lowercase hex, a compressed G1 point) is quicknet's BLS
 * signature of round `round`. Anything malformed is false, never an exception.
 */
export function verifyRound(round, signatureHex) {
  if (!Number.isSafeInteger(round) || round < 1) return false;
  if (typeof signatureHex !== 'string' || !signaturePattern.test(signatureHex)) return false;
  const bls = bls12_381.shortSignatures;
  try {
    const message = bls.hash(roundMessage(round), quicknet.dst);
    return bls.verify(hexToBytes(signatureHex), message, hexToBytes(quicknet.publicKey));
  } catch {
    return false;
  }
}

/** A round's randomness, the beacon bytes mixed into the key: SHA-256(signature), as hex. */
export function randomness(signatureHex) {
  return bytesToHex(sha256(hexToBytes(signatureHex)));
}
