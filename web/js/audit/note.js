// Signed notes (c2sp.org/signed-note), checkpoints (c2sp.org/tlog-checkpoint) and
// witness cosignatures (c2sp.org/tlog-cosignature), as docs/fairness.md pins them.
// Ed25519 comes from WebCrypto, which Node 18+ and Chromium have; a page without
// crypto.subtle (plain HTTP) cannot check signatures and every note is refused.

import { sha256 } from '../sha256.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const MAX_NOTE = 1 << 20;
const MAX_SIGNATURES = 100;
const ED25519 = 0x01;
const COSIGNATURE = 0x04;
// Go's unicode.IsSpace, and '+', may not appear in a key name.
const BAD_NAME = /[\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000+]/;

export function toBase64(bytes) {
  return btoa(String.fromCharCode(...bytes));
}

/** Strict RFC 4648 §4 base64 with padding; null when it is not. */
export function fromBase64(text) {
  if (!/^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return null;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return toBase64(bytes) === text ? bytes : null; // refuses non-zero padding bits
}

function keyId(name, type, key) {
  const digest = sha256(new Uint8Array([...encoder.encode(name), 0x0a, type, ...key]));
  return new DataView(digest.buffer).getUint32(0);
}

const hex8 = (n) => n.toString(16).padStart(8, '0');

/** The same key under another name (a closed lobby's checkpoint: the ledger's key named by the lobby's origin). */
export function renamedKey({ type, key }, name) {
  const id = keyId(name, type, key);
  return { name, id, type, key, vkey: `${name}+${hex8(id)}+${toBase64(new Uint8Array([type, ...key]))}` };
}

/**
 * A verifier key `name+hex id+base64(type ‖ key)`: type 0x01 signs notes, 0x04 cosigns
 * checkpoints. Throws when the id does not match the name and key.
 * @returns {{name: string, id: number, type: number, key: Uint8Array, vkey: string}}
 */
export function parseVkey(vkey) {
  // The name has no '+'; the key's base64 may.
  const [, name, idHex, keyB64] = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(String(vkey)) ?? [];
  const raw = keyB64 === undefined ? null : fromBase64(keyB64);
  if (!name || BAD_NAME.test(name) || !/^[0-9a-f]{8}$/.test(idHex) || raw?.length !== 33) {
    throw new Error(`malformed vkey ${vkey}`);
  }
  const type = raw[0];
  if (type !== ED25519 && type !== COSIGNATURE) throw new Error(`vkey ${name}: unknown key type ${type}`);
  const key = raw.subarray(1);
  const id = keyId(name, type, key);
  if (hex8(id) !== idHex) throw new Error(`vkey ${name}: its id does not match its name and key`);
  return { name, id, type, key, vkey };
}

async function ed25519Verify(key, signature, message) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Ed25519 needs WebCrypto, absent here (not a secure context)');
  const imported = await subtle.importKey('raw', key, { name: 'Ed25519' }, false, ['verify']);
  return subtle.verify({ name: 'Ed25519' }, imported, signature, message);
}

/**
 * Opens a note with the known keys. Returns its text, the verified signatures
 * ({name, type, time?} with time in Unix seconds for a cosignature) and the number of
 * signatures from unknown keys. Throws when the note is malformed, a known key's
 * signature does not verify, or nothing verified.
 * @param {string} note
 * @param {Array<ReturnType<typeof parseVkey>>} keys
 */
export async function openNote(note, keys) {
  const bytes = encoder.encode(note);
  if (bytes.length > MAX_NOTE) throw new Error('note larger than 1 MiB');
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(note)) throw new Error('note has a control character');
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new Error('note has no signature block');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new Error('note has more than 100 signatures');
  const verified = [];
  const seen = new Set();
  let unknown = 0;
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    const payload = m && fromBase64(m[2]);
    if (!m || BAD_NAME.test(m[1]) || !payload || payload.length <= 4) throw new Error(`malformed signature line: ${line}`);
    const [, name] = m;
    const id = new DataView(payload.buffer).getUint32(0);
    const key = keys.find((k) => k.name === name && k.id === id);
    if (!key) {
      unknown++;
      continue;
    }
    if (seen.has(line)) continue;
    seen.add(line);
    let time;
    let message = encoder.encode(text);
    let signature = payload.subarray(4);
    if (key.type === COSIGNATURE) {
      if (payload.length !== 4 + 8 + 64) throw new Error(`cosignature by ${name} is not 76 bytes`);
      time = Number(new DataView(payload.buffer).getBigUint64(4));
      message = encoder.encode(`cosignature/v1\ntime ${time}\n${text}`);
      signature = payload.subarray(12);
    }
    if (signature.length !== 64 || !(await ed25519Verify(key.key, signature, message))) {
      throw new Error(`the signature by ${name} does not verify`);
    }
    verified.push({ name, type: key.type, time });
  }
  if (verified.length === 0) throw new Error('no known key signed this note');
  return { text, verified, unknown };
}

/**
 * The checkpoint a note's text holds: origin, tree size (a Number, at most 2^53) and root.
 * Extension lines are skipped; any other shape throws.
 */
export function parseCheckpoint(text) {
  const lines = text.split('\n');
  if (lines.length < 4 || lines.at(-1) !== '' || lines.slice(3, -1).some((l) => l === '')) {
    throw new Error('a checkpoint is origin, size, root and non-empty extension lines');
  }
  const [origin, sizeText, rootText] = lines;
  const root = fromBase64(rootText);
  if (origin === '' || !/^(0|[1-9][0-9]*)$/.test(sizeText) || root?.length !== 32) {
    throw new Error('malformed checkpoint');
  }
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) throw new Error('checkpoint size beyond 2^53');
  return { origin, size, root };
}

/**
 * Opens a checkpoint of `origin` (by default the key's name) signed by `logKey` and
 * cosigned by some of `witnesses`. Returns the checkpoint and the cosignatures
 * {name, time} that verified.
 */
export async function openCheckpoint(note, logKey, { witnesses = [], origin = logKey.name } = {}) {
  const { text, verified } = await openNote(note, [logKey, ...witnesses]);
  if (!verified.some((v) => v.name === logKey.name && v.type === ED25519)) {
    throw new Error(`not signed by ${logKey.name}`);
  }
  const checkpoint = parseCheckpoint(text);
  if (checkpoint.origin !== origin) throw new Error(`origin ${checkpoint.origin} is not ${origin}`);
  const cosignatures = verified.filter((v) => v.type === COSIGNATURE).map(({ name, time }) => ({ name, time }));
  return { ...checkpoint, text, cosignatures };
}
