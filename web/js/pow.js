// The join challenge solver: finds the nonces for a Foyer proof-of-work challenge.
//
// What is hashed (src/core/pow.hpp has the token layout): the token is base64url
// of 113 bytes; bytes 81..112 are its MAC. For each puzzle i in [0, k), with k
// in byte 1, find a nonce such that
//
//   SHA-256(mac ‖ be32(i) ‖ be64(nonce))     44 bytes, one block
//
// read big-endian over its first 8 bytes, is <= the threshold (bytes 57..64).
// The proof is the k nonces as 16 lowercase hex digits each, concatenated.
//
// The message is one block: words 0..8 (mac, index) are constant and word 9 (the
// nonce's high half) changes once per 2^32 tries, so the state after rounds 0..9
// is computed once and each try runs rounds 10..63 only.
//
// solve() spreads the puzzles over same-origin module workers (strict CSPs forbid
// blob: workers) and never uses crypto.subtle (absent on plain-HTTP pages).

import { IV, expand, rounds } from './sha256.js';

const TOKEN_BYTES = 113;
const MAC_OFFSET = 81;
const THRESHOLD_OFFSET = 57;
const MESSAGE_BITS = 44 * 8;
const TWO_32 = 0x100000000;
// Tries between progress reports from a worker: a few milliseconds of hashing.
export const CHUNK = 1 << 15;
// More workers than this rarely help a phone and crowd out the page.
const MAX_WORKERS = 4;

function base64urlDecode(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new Error('malformed challenge');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(b64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * Reads what the solver needs from a challenge token. Throws on a malformed token.
 * Returns {puzzles, mac: Uint8Array(32), thresholdHi, thresholdLo, expectedHashes}.
 */
export function decodeChallenge(token) {
  const bytes = base64urlDecode(token);
  if (bytes.length !== TOKEN_BYTES || bytes[0] !== 1 || bytes[1] < 1) throw new Error('malformed challenge');
  const view = new DataView(bytes.buffer);
  const thresholdHi = view.getUint32(THRESHOLD_OFFSET);
  const thresholdLo = view.getUint32(THRESHOLD_OFFSET + 4);
  const puzzles = bytes[1];
  // A try passes with probability (threshold + 1) / 2^64.
  const passProbability = (thresholdHi * TWO_32 + thresholdLo + 1) / (TWO_32 * TWO_32);
  return {
    puzzles,
    mac: bytes.slice(MAC_OFFSET),
    thresholdHi,
    thresholdLo,
    expectedHashes: puzzles / Math.min(1, passProbability),
  };
}

/**
 * Tries nonces start, start + 1, ... (count of them, all below 2^53) on puzzle
 * `index` and returns the first that passes, or -1.
 */
export function searchPuzzle(mac, index, thresholdHi, thresholdLo, start, count) {
  const w = new Int32Array(64);
  const macView = new DataView(mac.buffer, mac.byteOffset, 32);
  for (let i = 0; i < 8; i++) w[i] = macView.getInt32(4 * i);
  w[8] = index;
  w[11] = 0x80000000 | 0;
  w[15] = MESSAGE_BITS;
  const mid = new Int32Array(8);
  const v = new Int32Array(8);
  const iv0 = IV[0];
  const iv1 = IV[1];
  let hi = -1;
  const end = start + count;
  for (let nonce = start; nonce < end; nonce++) {
    const nonceHi = Math.floor(nonce / TWO_32);
    if (nonceHi !== hi) {
      hi = nonceHi;
      w[9] = hi;
      mid.set(IV);
      rounds(mid, w, 0, 10);
    }
    w[10] = nonce | 0;
    expand(w);
    v.set(mid);
    rounds(v, w, 10, 64);
    const h0 = (v[0] + iv0) >>> 0;
    if (h0 < thresholdHi || (h0 === thresholdHi && ((v[1] + iv1) >>> 0) <= thresholdLo)) return nonce;
  }
  return -1;
}

function nonceHex(nonce) {
  const hi = Math.floor(nonce / TWO_32).toString(16).padStart(8, '0');
  const lo = (nonce >>> 0).toString(16).padStart(8, '0');
  return hi + lo;
}

/**
 * Solves puzzle after puzzle on a worker's behalf: posts {type: 'progress', hashes}
 * every CHUNK tries and {type: 'found', index, nonce, hashes} at the end.
 * pow-worker.js runs it; exported so that tests can drive it without a Worker.
 */
export function workOnPuzzle({ mac, index, thresholdHi, thresholdLo }, post) {
  for (let start = 0; ; start += CHUNK) {
    const nonce = searchPuzzle(mac, index, thresholdHi, thresholdLo, start, CHUNK);
    if (nonce >= 0) {
      post({ type: 'found', index, nonce, hashes: nonce - start + 1 });
      return;
    }
    post({ type: 'progress', hashes: CHUNK });
  }
}

/** Solves a challenge on the calling thread; for tests and tools. Returns {challenge, nonce}. */
export function solveSync(token) {
  const c = decodeChallenge(token);
  let proof = '';
  for (let index = 0; index < c.puzzles; index++) {
    let nonce = -1;
    for (let start = 0; nonce < 0; start += CHUNK) {
      nonce = searchPuzzle(c.mac, index, c.thresholdHi, c.thresholdLo, start, CHUNK);
    }
    proof += nonceHex(nonce);
  }
  return { challenge: token, nonce: proof };
}

/**
 * Solves a challenge in the background.
 *
 * challengeResponse: the JSON of POST .../challenge ({challenge, ...}) or the token.
 * onProgress({solved, puzzles, hashes, expectedHashes}): after every worker report;
 *   solved / puzzles is an honest progress fraction.
 * signal: an AbortSignal; aborting terminates the workers and rejects with its reason.
 * workers: how many to start (default: cores, at most 4, at most one per puzzle).
 * Resolves to {challenge, nonce}: the body of the join request.
 */
export function solve(challengeResponse, { onProgress, signal, workers } = {}) {
  const token = typeof challengeResponse === 'string' ? challengeResponse : challengeResponse.challenge;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const c = decodeChallenge(token);
    const nonces = new Array(c.puzzles);
    let next = 0;
    let solved = 0;
    let hashes = 0;
    const pool = [];
    const stop = () => {
      for (const worker of pool) worker.terminate();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      stop();
      reject(signal.reason);
    };
    const report = () => onProgress?.({ solved, puzzles: c.puzzles, hashes, expectedHashes: c.expectedHashes });
    const assign = (worker) => {
      if (next < c.puzzles) {
        worker.postMessage({ mac: c.mac, index: next++, thresholdHi: c.thresholdHi, thresholdLo: c.thresholdLo });
      }
    };
    signal?.addEventListener('abort', onAbort);

    const cores = globalThis.navigator?.hardwareConcurrency || 1;
    const count = Math.max(1, Math.min(c.puzzles, workers ?? Math.min(cores, MAX_WORKERS)));
    for (let i = 0; i < count; i++) {
      const worker = new Worker(new URL('./pow-worker.js', import.meta.url), { type: 'module' });
      pool.push(worker);
      worker.onmessage = ({ data }) => {
        hashes += data.hashes;
        if (data.type === 'found') {
          nonces[data.index] = nonceHex(data.nonce);
          solved++;
          assign(worker);
        }
        report();
        if (solved === c.puzzles) {
          stop();
          resolve({ challenge: token, nonce: nonces.join('') });
        }
      };
      worker.onerror = (event) => {
        stop();
        reject(new Error(`proof-of-work worker failed: ${event.message ?? 'unknown error'}`));
      };
      assign(worker);
    }
  });
}
