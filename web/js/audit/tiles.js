// RFC 6962 trees and C2SP tlog-tiles (c2sp.org/tlog-tiles), as docs/fairness.md pins
// them: the checker rebuilds every tile from the entry bundles and compares the
// published files byte for byte, as src/core/fairness/tlog_tiles.cpp's check does.
// Hashing is the synchronous sha256.js: a million leaves take seconds, where WebCrypto
// awaited per hash would take minutes.

import { IV, compress, sha256 } from '../sha256.js';

const WIDTH = 256;
const HEIGHT = 8; // log2(WIDTH)
const EMPTY_ROOT = sha256(new Uint8Array(0));
// Leaves and nodes are short: hash them in one or two blocks with no allocation but the result.
const pad = new Uint8Array(128);
const padView = new DataView(pad.buffer);
const schedule = new Int32Array(64);
const state = new Int32Array(8);

function hashPad(length) {
  const end = length < 56 ? 64 : 128;
  pad.fill(0, length, end);
  pad[length] = 0x80;
  padView.setUint32(end - 4, length * 8);
  state.set(IV);
  for (let offset = 0; offset < end; offset += 64) {
    for (let i = 0; i < 16; i++) schedule[i] = padView.getInt32(offset + 4 * i);
    compress(state, schedule);
  }
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) view.setInt32(4 * i, state[i]);
  return out;
}

export function leafHash(entry) {
  if (entry.length + 1 >= 120) {
    const buffer = new Uint8Array(entry.length + 1);
    buffer.set(entry, 1);
    return sha256(buffer);
  }
  pad[0] = 0x00;
  pad.set(entry, 1);
  return hashPad(entry.length + 1);
}

export function nodeHash(left, right) {
  pad[0] = 0x01;
  pad.set(left, 1);
  pad.set(right, 33);
  return hashPad(65);
}

export function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A Merkle tree kept as its frontier: O(log n) hashes, append and root. */
export class Frontier {
  constructor() {
    this.size = 0;
    this.stack = []; // {hash, level}, perfect subtrees from the left
  }

  /** Appends a leaf hash; returns the nodes it completes {hash, level, index}, the leaf first. */
  append(leaf) {
    let node = { hash: leaf, level: 0, index: this.size };
    const completed = [node];
    while (this.stack.length > 0 && this.stack.at(-1).level === node.level) {
      const left = this.stack.pop();
      node = { hash: nodeHash(left.hash, node.hash), level: node.level + 1, index: node.index >> 1 };
      completed.push(node);
    }
    this.stack.push(node);
    this.size++;
    return completed;
  }

  root() {
    if (this.stack.length === 0) return EMPTY_ROOT;
    let root = this.stack.at(-1).hash;
    for (let i = this.stack.length - 2; i >= 0; i--) root = nodeHash(this.stack[i].hash, root);
    return root;
  }
}

/** The RFC 6962 root of the first `size` of `leaves` (leaf hashes). */
export function rootOf(leaves, size = leaves.length) {
  const tree = new Frontier();
  for (let i = 0; i < size; i++) tree.append(leaves[i]);
  return tree.root();
}

/** "x001/x234/067" for 1234067. */
export function indexPath(n) {
  let out = String(n % 1000).padStart(3, '0');
  for (n = Math.floor(n / 1000); n > 0; n = Math.floor(n / 1000)) out = `x${String(n % 1000).padStart(3, '0')}/${out}`;
  return out;
}

const suffix = (width) => (width === WIDTH ? '' : `.p/${width}`);
export const tilePath = (level, n, width) => `tile/${level}/${indexPath(n)}${suffix(width)}`;
export const entriesPath = (n, width) => `tile/entries/${indexPath(n)}${suffix(width)}`;

/** Every file a log of `size` entries publishes, in the order the checker reads them. */
export function logFiles(size) {
  const files = [];
  for (let n = 0; n * WIDTH < size; n++) {
    const count = Math.min(WIDTH, size - n * WIDTH);
    files.push(entriesPath(n, count));
    if (count < WIDTH) break;
    // Full bundle n completes level-0 tile n and, every 256^L bundles, a tile at level L.
    for (let level = 0, span = 1; (n + 1) % span === 0; level++, span *= WIDTH) {
      files.push(tilePath(level, (n + 1) / span - 1, WIDTH));
    }
  }
  for (let level = 0, span = WIDTH; span <= size * WIDTH; level++, span *= WIDTH) {
    const width = Math.floor(size / (span / WIDTH)) % WIDTH;
    if (width > 0) files.push(tilePath(level, Math.floor(size / span), width));
  }
  return files;
}

function splitBundle(bundle, count) {
  const entries = [];
  let offset = 0;
  while (offset < bundle.length && entries.length < count) {
    if (bundle.length - offset < 2) return null;
    const length = (bundle[offset] << 8) | bundle[offset + 1];
    offset += 2;
    if (bundle.length - offset < length) return null;
    entries.push(bundle.subarray(offset, offset + length));
    offset += length;
  }
  return offset === bundle.length && entries.length === count ? entries : null;
}

/** Rebuilds the tiles of a log from its entries, as the server's writer does. */
class TileWriter {
  constructor() {
    this.tree = new Frontier();
    this.levels = []; // per level: the hashes of its partial tile
    this.full = [];
  }

  append(entry) {
    for (const node of this.tree.append(leafHash(entry))) {
      if (node.level % HEIGHT !== 0) continue;
      const level = node.level / HEIGHT;
      (this.levels[level] ??= []).push(node.hash);
      if (this.levels[level].length === WIDTH) {
        this.full.push({ path: tilePath(level, Math.floor(node.index / WIDTH), WIDTH), hashes: this.levels[level] });
        this.levels[level] = [];
      }
    }
  }

  takeFull() {
    const out = this.full;
    this.full = [];
    return out;
  }

  partials() {
    const out = [];
    this.levels.forEach((hashes, level) => {
      if (hashes.length > 0) out.push({ path: tilePath(level, Math.floor(this.tree.size / WIDTH ** (level + 1)), hashes.length), hashes });
    });
    return out;
  }
}

function joined(hashes) {
  const out = new Uint8Array(hashes.length * 32);
  hashes.forEach((h, i) => out.set(h, 32 * i));
  return out;
}

/**
 * Reads `paths` in order through `read` (path → Promise<Uint8Array|null>), keeping up to
 * `window` requests in flight ahead of the reader.
 */
function prefetcher(read, paths, window) {
  const pending = new Map();
  let next = 0;
  const fill = () => {
    while (next < paths.length && pending.size < window) {
      const path = paths[next++];
      const promise = read(path);
      promise.catch(() => {}); // awaited when its turn comes
      pending.set(path, promise);
    }
  };
  return (path) => {
    fill();
    const promise = pending.get(path) ?? read(path);
    pending.delete(path);
    fill();
    return promise;
  };
}

/**
 * Checks the log of `size` entries whose root is `root` (from a verified checkpoint):
 * every bundle and tile must be there, each bundle hold exactly its entries, each tile be
 * exactly what the entries give, and the entries give `root`. `visit(index, entry)` sees
 * each entry in order; `progress(done, size)` is called after each bundle.
 * @returns {Promise<{path: string, what: string} | null>} the first problem, or null
 */
export async function checkLog(size, root, read, { visit, progress, window = 32 } = {}) {
  const fetchNext = prefetcher(read, logFiles(size), window);
  const compare = async ({ path, hashes }) => {
    const actual = await fetchNext(path);
    if (actual == null) return { path, what: 'missing' };
    if (!equalBytes(actual, joined(hashes))) return { path, what: 'differs from what the entries give' };
    return null;
  };
  const rebuilt = new TileWriter();
  for (let n = 0; n * WIDTH < size; n++) {
    const count = Math.min(WIDTH, size - n * WIDTH);
    const path = entriesPath(n, count);
    const bundle = await fetchNext(path);
    if (bundle == null) return { path, what: 'missing' };
    const entries = splitBundle(bundle, count);
    if (!entries) return { path, what: `does not hold exactly ${count} entries` };
    for (const entry of entries) {
      visit?.(rebuilt.tree.size, entry);
      rebuilt.append(entry);
    }
    for (const file of rebuilt.takeFull()) {
      const problem = await compare(file);
      if (problem) return problem;
    }
    progress?.(rebuilt.tree.size, size);
  }
  for (const file of rebuilt.partials()) {
    const problem = await compare(file);
    if (problem) return problem;
  }
  if (!equalBytes(rebuilt.tree.root(), root)) return { path: 'checkpoint', what: 'the entries give another root' };
  return null;
}
