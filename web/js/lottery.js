// The opening lottery, v1 (FAIRNESS.md), for the verify page and any script: seed
// commitment, key derivation, the permutation π and its inverse, RFC 6962 inclusion
// proofs and batch-signed lobby receipts. Runs in browsers and in Node 20.
//
// Hashes come from WebCrypto when the page has it (secure contexts) and from the
// pure-JS sha256.js otherwise (plain-HTTP pages); every function takes an optional
// `{ hashes }` to choose, but the permutation, which always runs sha256.js (it is
// hashed millions of times for a whole-draw audit, where awaiting WebCrypto per hash
// would take hours). Ed25519 receipt signatures can only be checked with
// WebCrypto; without it they are reported as "not checked".
//
// Byte arguments accept a Uint8Array or a lowercase hex string. Sizes, indexes and
// places are BigInts in results and BigInt or safe-integer Numbers in arguments:
// JS numbers are exact only to 2^53 and their bitwise operators are 32-bit.

import { IV, compress, sha256 as pureSha256, hmacSha256 as pureHmacSha256 } from './sha256.js';

const encoder = new TextEncoder();
const KEY_DOMAIN = encoder.encode('foyer/lottery/v1/key');
const ROUND_DOMAIN = encoder.encode('foyer/lottery/v1');
const RECEIPT_DOMAIN = encoder.encode('foyer/receipt/v1');
const LANE_RECEIPT_DOMAIN = encoder.encode('foyer/lane-receipt/v1');
const BATCH_DOMAIN = encoder.encode('foyer/receipt-batch/v1');
const ROUNDS = 10;
const LOBBY_SIZE_LIMIT = 1n << 48n;
const MAX_ROOM_LENGTH = 255;
const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/**
 * A source of SHA-256 and HMAC-SHA256, and of Ed25519 verification when it has one.
 * @typedef {object} Hashes
 * @property {string} name
 * @property {(bytes: Uint8Array) => Promise<Uint8Array>} sha256
 * @property {(key: Uint8Array) => Promise<(msg: Uint8Array) => Promise<Uint8Array>>} hmacKey
 *   Prepares a key once; the returned function MACs one message.
 * @property {SubtleCrypto | null} subtle For Ed25519; null when absent.
 */

/**
 * Hashes from WebCrypto.
 * @param {SubtleCrypto} subtle
 * @returns {Hashes}
 */
export function webCryptoHashes(subtle = globalThis.crypto.subtle) {
  return {
    name: 'webcrypto',
    subtle,
    sha256: async (bytes) => new Uint8Array(await subtle.digest('SHA-256', bytes)),
    hmacKey: async (key) => {
      const prepared = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return async (msg) => new Uint8Array(await subtle.sign('HMAC', prepared, msg));
    },
  };
}

/**
 * Hashes from the pure-JS sha256.js, for pages without WebCrypto. No Ed25519.
 * @type {Hashes}
 */
export const pureHashes = {
  name: 'pure-js',
  subtle: null,
  sha256: async (bytes) => pureSha256(bytes),
  hmacKey: async (key) => async (msg) => pureHmacSha256(key, msg),
};

/** WebCrypto when this context has it, the pure-JS hashes otherwise. */
export function defaultHashes() {
  return globalThis.crypto?.subtle ? webCryptoHashes(globalThis.crypto.subtle) : pureHashes;
}

/**
 * @param {string} hex lowercase hex
 * @returns {Uint8Array}
 */
export function fromHex(hex) {
  if (typeof hex !== 'string' || !/^([0-9a-f]{2})*$/.test(hex)) throw new TypeError('expected lowercase hex');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * @param {Uint8Array} bytes
 * @returns {string} lowercase hex
 */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function bytesOf(value, length) {
  const bytes = typeof value === 'string' ? fromHex(value) : value;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('expected bytes or hex');
  if (length !== undefined && bytes.length !== length) throw new RangeError(`expected ${length} bytes`);
  return bytes;
}

function bigOf(value) {
  if (typeof value === 'bigint') return value;
  if (Number.isSafeInteger(value)) return BigInt(value);
  throw new TypeError('expected a BigInt or a safe integer');
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function be64(value) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
}

function equalBytes(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

// ---- commitment and key ----

/**
 * SHA-256 of the 32 seed bytes: the commitment published before the lobby opens.
 * @param {Uint8Array|string} seed
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<Uint8Array>}
 */
export async function commitmentOf(seed, { hashes = defaultHashes() } = {}) {
  return hashes.sha256(bytesOf(seed, 32));
}

/**
 * Whether SHA-256(seed) equals the published commitment.
 * @param {Uint8Array|string} seed
 * @param {Uint8Array|string} commitment
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<boolean>}
 */
export async function checkCommitment(seed, commitment, options) {
  return equalBytes(await commitmentOf(seed, options), bytesOf(commitment, 32));
}

/**
 * The lottery key: HMAC-SHA256(seed, "foyer/lottery/v1/key" ‖ lobby root ‖ beacon).
 * @param {Uint8Array|string} seed
 * @param {Uint8Array|string} lobbyRoot
 * @param {Uint8Array|string|null} beacon null or empty when the room has none
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<Uint8Array>}
 */
export async function deriveKey(seed, lobbyRoot, beacon, { hashes = defaultHashes() } = {}) {
  const mac = await hashes.hmacKey(bytesOf(seed, 32));
  return mac(concat(KEY_DOMAIN, bytesOf(lobbyRoot, 32), beacon == null ? new Uint8Array(0) : bytesOf(beacon)));
}

// ---- the permutation ----

function bitLength(v) {
  return v === 0n ? 0 : v.toString(2).length;
}

/**
 * π and π⁻¹ for one key and lobby size, synchronous and fast enough to recompute every
 * place of a lobby of millions: the HMAC's padded key blocks are compressed once, and each
 * round is two SHA-256 compressions of sha256.js. Numbers throughout: n < 2^48, and the
 * halves of a value are at most 24 bits.
 * @param {Uint8Array|string} key the lottery key
 * @param {bigint|number} n lobby size, 1 ≤ n < 2^48
 * @returns {{place: (index: number) => number, holder: (place: number) => number}}
 */
export function permutation(key, n) {
  const size = bigOf(n);
  if (size < 1n || size >= LOBBY_SIZE_LIMIT) throw new RangeError('lobby size outside [1, 2^48)');
  const count = Number(size);
  let bits = Math.max(2, bitLength(size - 1n));
  bits += bits % 2;
  const half = 2 ** (bits / 2);
  const mask = half - 1;
  // HMAC-SHA256 = H(key ^ opad ‖ H(key ^ ipad ‖ msg)): both padded keys are one block.
  const keyBytes = bytesOf(key, 32);
  const w = new Int32Array(64);
  const padded = (pad) => {
    const state = IV.slice();
    for (let i = 0; i < 16; i++) {
      const b = (j) => (keyBytes[4 * i + j] ?? 0) ^ pad;
      w[i] = (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
    }
    compress(state, w);
    return state;
  };
  const inner = padded(0x36);
  const outer = padded(0x5c);
  // The round's message (33 bytes) and its padding, as one block after the inner key block.
  const block = new Uint8Array(64);
  const view = new DataView(block.buffer);
  block.set(ROUND_DOMAIN);
  view.setBigUint64(ROUND_DOMAIN.length + 1, size);
  block[33] = 0x80;
  view.setUint32(60, (64 + 33) * 8);
  const state = new Int32Array(8);
  const round = (r, v) => {
    block[16] = r;
    view.setUint32(25, Math.floor(v / 2 ** 32));
    view.setUint32(29, v >>> 0);
    for (let i = 0; i < 16; i++) w[i] = view.getInt32(4 * i);
    state.set(inner);
    compress(state, w);
    w.set(state);
    w[8] = 0x80000000 | 0;
    w.fill(0, 9, 15);
    w[15] = (64 + 32) * 8;
    state.set(outer);
    compress(state, w);
    // The first 8 bytes AND a mask of at most 24 bits: the low bits of word 1.
    return state[1] & mask;
  };
  const encrypt = (x) => {
    let left = Math.floor(x / half);
    let right = x % half;
    for (let r = 0; r < ROUNDS; r++) [left, right] = [right, left ^ round(r, right)];
    return left * half + right;
  };
  const decrypt = (y) => {
    let left = Math.floor(y / half);
    let right = y % half;
    for (let r = ROUNDS - 1; r >= 0; r--) [left, right] = [right ^ round(r, left), left];
    return left * half + right;
  };
  // Cycle walking: apply the Feistel network until the value lands inside [0, n).
  const walk = (step, start) => {
    const x = Number(bigOf(start));
    if (x < 0 || x >= count) throw new RangeError('index or place outside the lobby');
    if (count === 1) return 0;
    let y = step(x);
    while (y >= count) y = step(y);
    return y;
  };
  return { place: (index) => walk(encrypt, index), holder: (p) => walk(decrypt, p) };
}

/**
 * π(index): the place of lobby index `index` in a lobby of n.
 * @param {Uint8Array|string} key the lottery key
 * @param {bigint|number} n lobby size, 1 ≤ n < 2^48
 * @param {bigint|number} index 0 ≤ index < n
 * @returns {Promise<bigint>}
 */
export async function place(key, n, index) {
  return BigInt(permutation(key, n).place(index));
}

/**
 * π⁻¹(p): the lobby index that holds place p in a lobby of n.
 * @param {Uint8Array|string} key
 * @param {bigint|number} n
 * @param {bigint|number} p 0 ≤ p < n
 * @returns {Promise<bigint>}
 */
export async function holder(key, n, p) {
  return BigInt(permutation(key, n).holder(p));
}

// ---- Merkle trees (RFC 6962) ----

/**
 * SHA-256(0x00 ‖ data).
 * @param {Uint8Array|string} data
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<Uint8Array>}
 */
export async function leafHash(data, { hashes = defaultHashes() } = {}) {
  return hashes.sha256(concat(LEAF_PREFIX, bytesOf(data)));
}

/**
 * SHA-256(0x01 ‖ left ‖ right).
 * @param {Uint8Array|string} left
 * @param {Uint8Array|string} right
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<Uint8Array>}
 */
export async function nodeHash(left, right, { hashes = defaultHashes() } = {}) {
  return hashes.sha256(concat(NODE_PREFIX, bytesOf(left, 32), bytesOf(right, 32)));
}

/**
 * The root an audit path leads to (RFC 9162 §2.1.3.2), or null if the path cannot
 * belong to leaf `index` of a tree of `size` leaves.
 * @param {Uint8Array|string} leaf the leaf hash
 * @param {bigint|number} index
 * @param {bigint|number} size
 * @param {Array<Uint8Array|string>} path nearest sibling first
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<Uint8Array|null>}
 */
export async function rootFromPath(leaf, index, size, path, options) {
  let fn = bigOf(index);
  let sn = bigOf(size) - 1n;
  if (fn < 0n || fn > sn) return null;
  let hash = bytesOf(leaf, 32);
  for (const sibling of path) {
    if (sn === 0n) return null;
    if ((fn & 1n) === 1n || fn === sn) {
      hash = await nodeHash(sibling, hash, options);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      hash = await nodeHash(hash, sibling, options);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n ? hash : null;
}

/**
 * Whether `path` proves leaf hash `leaf` at `index` in the tree of `size` leaves with `root`.
 * @param {Uint8Array|string} leaf
 * @param {bigint|number} index
 * @param {bigint|number} size
 * @param {Array<Uint8Array|string>} path
 * @param {Uint8Array|string} root
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<boolean>}
 */
export async function verifyInclusion(leaf, index, size, path, root, options) {
  const computed = await rootFromPath(leaf, index, size, path, options);
  return computed !== null && equalBytes(computed, bytesOf(root, 32));
}

// ---- receipts ----

/**
 * The signed bytes of a receipt (see src/core/fairness/receipt.hpp): "foyer/receipt/v1" ‖ u8
 * room length ‖ room (UTF-8) ‖ u64be lobby_index ‖ entrant id (16) ‖ u64be joined_at
 * (unix ms) ‖ commitment (32). A receipt for a lane's lobby (it has `lane`) is
 * "foyer/lane-receipt/v1" ‖ u8 room length ‖ room ‖ u8 lane length ‖ lane ‖ the same rest.
 * @param {{room: string, lane?: string, lobby_index: number|bigint, entrant_id: string|Uint8Array,
 *          joined_at: number|bigint, commitment: string|Uint8Array}} receipt as the server returns it
 * @returns {Uint8Array}
 */
export function receiptMessage(receipt) {
  const lane = receipt.lane ?? '';
  if (typeof lane !== 'string') throw new TypeError('a lane is named by a string');
  const room = encoder.encode(receipt.room);
  const laneBytes = encoder.encode(lane);
  if (room.length > MAX_ROOM_LENGTH || laneBytes.length > MAX_ROOM_LENGTH) throw new RangeError('room or lane id longer than 255 bytes');
  const head = lane === ''
    ? [RECEIPT_DOMAIN, Uint8Array.of(room.length), room]
    : [LANE_RECEIPT_DOMAIN, Uint8Array.of(room.length), room, Uint8Array.of(laneBytes.length), laneBytes];
  return concat(...head, be64(bigOf(receipt.lobby_index)), bytesOf(receipt.entrant_id, 16),
    be64(bigOf(receipt.joined_at)), bytesOf(receipt.commitment, 32));
}

/**
 * Checks a receipt: its message under the batch root, and the Ed25519 signature of
 * "foyer/receipt-batch/v1" ‖ batch root by the room's public key.
 * "not checked" when this context has no WebCrypto Ed25519 (the batch root is still computed).
 * @param {object} receipt the receipt JSON object
 * @param {Uint8Array|string} publicKey 32 bytes
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<{status: 'valid'|'invalid'|'not checked', batchRoot: Uint8Array|null}>}
 */
export async function verifyReceipt(receipt, publicKey, { hashes = defaultHashes() } = {}) {
  let batchRoot = null;
  try {
    const leaf = await leafHash(receiptMessage(receipt), { hashes });
    batchRoot = await rootFromPath(leaf, receipt.batch_index, receipt.batch_size, receipt.batch_path, { hashes });
  } catch {
    return { status: 'invalid', batchRoot: null };
  }
  if (batchRoot === null || receipt.version !== 'v1') return { status: 'invalid', batchRoot };
  if (!hashes.subtle) return { status: 'not checked', batchRoot };
  let key;
  try {
    key = await hashes.subtle.importKey('raw', bytesOf(publicKey, 32), { name: 'Ed25519' }, false, ['verify']);
  } catch (error) {
    if (error?.name === 'NotSupportedError') return { status: 'not checked', batchRoot };
    return { status: 'invalid', batchRoot };
  }
  let signature;
  try {
    signature = bytesOf(receipt.signature, 64);
  } catch {
    return { status: 'invalid', batchRoot };
  }
  const valid = await hashes.subtle.verify({ name: 'Ed25519' }, key, signature, concat(BATCH_DOMAIN, batchRoot));
  return { status: valid ? 'valid' : 'invalid', batchRoot };
}

// ---- the whole check, as `foyer lottery verify` does it ----

/**
 * The published receipt key that `kid` names: from `receipt_keys`, which keeps the keys
 * retired by a rotation, or the current `receipt_key` under `receipt_kid`. Undefined if
 * the lottery publishes no key of that kid.
 * @param {object} lottery GET /api/v1/rooms/{room}/lottery
 * @param {string} kid the receipt's `kid`
 * @returns {string|undefined}
 */
export function receiptKeyFor(lottery, kid) {
  if (lottery.receipt_keys != null && Object.hasOwn(lottery.receipt_keys, kid)) return lottery.receipt_keys[kid];
  return kid === lottery.receipt_kid ? lottery.receipt_key : undefined;
}

/**
 * The draw a receipt's lobby belongs to: the room's own (its general lane's) for a receipt
 * without `lane`, else the lane's entry of `lottery.lanes`; null when the room publishes
 * no draw of that lane. Each has commitment, lobby_size, lobby_root and seed; the beacon
 * is the room's, for every lane.
 * @param {object} lottery GET /api/v1/rooms/{room}/lottery
 * @param {string} [lane]
 * @returns {{commitment: string, lobby_size: number|null, lobby_root: string|null, seed: string|null}|null}
 */
export function laneDraw(lottery, lane) {
  if (lane == null || lane === '') return lottery;
  return lottery.lanes != null && Object.hasOwn(lottery.lanes, lane) ? lottery.lanes[lane] : null;
}

/**
 * @typedef {object} Check
 * @property {string} name
 * @property {'pass'|'fail'|'skipped'} status
 * @property {string} detail
 */

/**
 * Checks one entrant's draw from what the server published and what they hold:
 * the seed against the commitment, the receipt's commitment and signature, the
 * inclusion proof of their entrant id under the lobby root, and the key; then
 * recomputes their place. A receipt with `lane` is checked against that lane's draw
 * (its own commitment, lobby, seed, key and places; the proof from ?lane=), and its
 * first check, "lane", says whether the room publishes that draw. `ok` is true when no
 * check failed; a check without its input (no public key, no proof, no Ed25519 here)
 * is "skipped".
 * @param {object} input
 * @param {object} input.lottery GET /api/v1/rooms/{room}/lottery
 * @param {object} input.receipt the join's receipt
 * @param {object} [input.proof] GET /api/v1/rooms/{room}/lottery/proof?index=I[&lane=L]
 * @param {string|Uint8Array} [input.publicKey] the room's receipt key; default the published key of the receipt's kid
 * @param {{hashes?: Hashes}} [options]
 * @returns {Promise<{ok: boolean, checks: Check[], key: Uint8Array|null, place: bigint|null}>}
 * @throws {TypeError|RangeError} when a published value is not hex of the right length
 */
export async function verifyEntry({ lottery, receipt, proof, publicKey }, { hashes = defaultHashes() } = {}) {
  const options = { hashes };
  const checks = [];
  const record = (name, status, detail) => checks.push({ name, status, detail });
  let key = null;
  let placeValue = null;

  const draw = laneDraw(lottery, receipt.lane);
  if (receipt.lane != null && receipt.lane !== '') {
    if (draw == null) {
      record('lane', 'fail', `the room publishes no draw of lane ${receipt.lane}`);
      return { ok: false, checks, key, place: placeValue };
    }
    record('lane', 'pass', `lane ${receipt.lane} draws on its own: its commitment, lobby, seed and places`);
  }

  if (draw.seed == null) {
    record('commitment', 'fail', 'the seed is not revealed yet');
  } else if (await checkCommitment(draw.seed, draw.commitment, options)) {
    record('commitment', 'pass', 'SHA-256(seed) equals the published commitment');
  } else {
    record('commitment', 'fail', 'SHA-256(seed) differs from the published commitment');
  }

  if (receipt.commitment === draw.commitment) {
    record('receipt commitment', 'pass', 'the receipt carries the published commitment');
  } else {
    record('receipt commitment', 'fail', 'the receipt carries another commitment');
  }

  const receiptKey = publicKey ?? receiptKeyFor(lottery, receipt.kid);
  if (receiptKey == null && lottery.receipt_key == null && lottery.receipt_keys == null) {
    record('receipt signature', 'skipped', 'no public key given');
  } else if (receiptKey == null) {
    record('receipt signature', 'fail', `the receipt names key ${receipt.kid}, which the room does not publish`);
  } else {
    const { status } = await verifyReceipt(receipt, receiptKey, options);
    if (status === 'valid') record('receipt signature', 'pass', `signed by key ${receipt.kid}`);
    else if (status === 'invalid') record('receipt signature', 'fail', 'the receipt does not match its signature');
    else record('receipt signature', 'skipped', 'Ed25519 needs WebCrypto, absent here');
  }

  if (proof == null) {
    record('inclusion', 'skipped', 'no proof given');
  } else if (proof.index !== receipt.lobby_index || proof.entrant_id !== receipt.entrant_id) {
    record('inclusion', 'fail', 'the proof is for another entrant');
  } else if (proof.lobby_size !== draw.lobby_size || proof.lobby_root !== draw.lobby_root) {
    record('inclusion', 'fail', 'the proof is for another lobby');
  } else if (await verifyInclusion(await leafHash(proof.entrant_id, options), proof.index, proof.lobby_size,
    proof.path, proof.lobby_root, options)) {
    record('inclusion', 'pass', `entrant ${proof.entrant_id} is leaf ${proof.index} of ${proof.lobby_size}`);
  } else {
    record('inclusion', 'fail', 'the proof does not lead to the lobby root');
  }

  if (draw.seed == null || draw.lobby_root == null || draw.lobby_size == null) {
    record('key derivation', 'fail', 'the lobby is not closed or the seed not revealed');
  } else if (!(receipt.lobby_index < draw.lobby_size)) {
    record('key derivation', 'fail', 'the lobby index is outside the lobby');
  } else {
    key = await deriveKey(draw.seed, draw.lobby_root, lottery.beacon, options);
    placeValue = await place(key, draw.lobby_size, receipt.lobby_index);
    record('key derivation', 'pass', `key ${toHex(key)}`);
  }
  return { ok: checks.every((c) => c.status !== 'fail'), checks, key, place: placeValue };
}
