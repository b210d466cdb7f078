// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain JavaScript.
//
// Synchronous and free of crypto.subtle, which is absent on plain-HTTP pages and
// far too slow when awaited once per hash. The low-level pieces (IV, expand,
// rounds, compress) are exported for the proof-of-work solver, which keeps the
// state after the rounds over its constant words and reruns only the rest.
// Words are 32-bit signed integers in Int32Arrays; `| 0` keeps V8 on int32 paths.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The initial hash value H(0). Copy it; never write to it. */
export const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** Fills the message schedule w[16..63] from the block's words w[0..15]. */
export function expand(w) {
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15];
    const y = w[t - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = (s1 + w[t - 7] + s0 + w[t - 16]) | 0;
  }
}

/**
 * Runs rounds [from, to) over the working variables v = [a..h] (Int32Array(8), updated
 * in place) with the expanded schedule w. No feed-forward: that is compress's job.
 */
export function rounds(v, w, from, to) {
  let a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5], g = v[6], h = v[7];
  for (let t = from; t < to; t++) {
    const t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
      (g ^ (e & (f ^ g))) + K[t] + w[t]) | 0;
    const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
      ((a & b) | (c & (a | b)))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0;
    d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  v[0] = a; v[1] = b; v[2] = c; v[3] = d; v[4] = e; v[5] = f; v[6] = g; v[7] = h;
}

const scratchVars = new Int32Array(8);

/** One compression: state (Int32Array(8)) absorbs the block in w[0..15]; w[16..63] is scratch. */
export function compress(state, w) {
  expand(w);
  scratchVars.set(state);
  rounds(scratchVars, w, 0, 64);
  for (let i = 0; i < 8; i++) state[i] = (state[i] + scratchVars[i]) | 0;
}

function loadBlock(w, bytes, offset) {
  for (let i = 0; i < 16; i++, offset += 4) {
    w[i] = (bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3];
  }
}

/** SHA-256 of bytes (Uint8Array); returns 32 bytes. */
export function sha256(bytes) {
  const state = IV.slice();
  const w = new Int32Array(64);
  const full = bytes.length & ~63;
  for (let offset = 0; offset < full; offset += 64) {
    loadBlock(w, bytes, offset);
    compress(state, w);
  }
  // Padding: 0x80, zeros, then the bit length as a 64-bit big-endian integer.
  const rest = bytes.length - full;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(bytes.subarray(full));
  tail[rest] = 0x80;
  const bits = bytes.length * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(tail.length - 4, bits >>> 0);
  for (let offset = 0; offset < tail.length; offset += 64) {
    loadBlock(w, tail, offset);
    compress(state, w);
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setInt32(4 * i, state[i]);
  return out;
}

/** HMAC-SHA256 (RFC 2104); keys longer than a block are hashed first. Returns 32 bytes. */
export function hmacSha256(key, msg) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const inner = new Uint8Array(64 + msg.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(msg, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}
