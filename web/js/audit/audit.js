// The whole-draw audit (docs/fairness.md, "The public record of every draw"): fetches
// the ledger and the room's lobby log from a Foyer server and checks every signature,
// cosignature, tile, the order of the room's entries, the commitment, the beacon, the
// key and every place. Plain fetch and WebCrypto: it runs in the verify page and under
// Node 18+ (packaging/foyer-audit.mjs).

import { checkCommitment, deriveKey, fromHex, permutation, toHex } from '../lottery.js';
import { sha256 } from '../sha256.js';
import { parseEntry } from './entries.js';
import { openCheckpoint, parseVkey, renamedKey } from './note.js';
import { checkLog, equalBytes, leafHash, rootOf } from './tiles.js';

/** The checks, in the order they run and are reported. */
export const CHECKS = [
  'ledger key', 'ledger checkpoint', 'ledger tiles', 'entries order', 'witnessed commit', 'witnessed close',
  'commitment', 'lobby checkpoint', 'lobby tiles', 'distinct entrants', 'beacon', 'close before beacon', 'key',
  'places', 'reveal after quorum',
];

const ORDER_WITNESSED = /^(C(WC)?)*CWCXWXR$/;
const ORDER_UNWITNESSED = /^C+XR$/;
const TOKEN = { commit: 'C', close: 'X', reveal: 'R', witnessed: 'W' };
const ENTRANT_ID_SIZE = 16;
const PLACES_CHUNK = 8192;

/**
 * Audits room `room`'s draw as published by the server at `baseUrl`.
 * @param {string} baseUrl e.g. https://queue.example.com
 * @param {string} room
 * @param {object} [options]
 * @param {string} [options.vkey] the ledger's vkey, pinned: the published one must equal it
 * @param {(p: {phase: string, done: number, total: number}) => void} [options.onProgress]
 * @param {typeof fetch} [options.fetch]
 * @param {() => Promise<object>} [options.drand] loads web/js/drand.js
 * @returns {Promise<{ok: boolean, checks: Array<{name: string, ok: boolean, detail: string, ms?: number}>, fairness: object}>}
 *   `ms` is the time a check took; a check not run has none.
 */
export async function auditDraw(baseUrl, room, { vkey, onProgress, fetch = globalThis.fetch, drand = () => import('../drand.js') } = {}) {
  const base = new URL(baseUrl.replace(/\/*$/, '/'));
  const read = async (path) => {
    const res = await fetch(new URL(path, base));
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const readText = async (path) => {
    const bytes = await read(path);
    if (bytes == null) throw new Error(`${path}: not found`);
    return new TextDecoder().decode(bytes);
  };
  const progress = (phase) => (done, total) => onProgress?.({ phase, done, total });

  const results = new Map();
  const run = async (name, needs, body) => {
    const missing = needs.find((n) => !results.get(n)?.ok);
    if (missing) {
      results.set(name, { name, ok: false, detail: `not run: "${missing}" did not pass` });
      return;
    }
    const started = Date.now();
    try {
      results.set(name, { name, ok: true, detail: await body(), ms: Date.now() - started });
    } catch (error) {
      results.set(name, { name, ok: false, detail: error.message, ms: Date.now() - started });
    }
  };

  const s = {}; // what the checks learn, for the checks after them
  const fairness = { room, lobbySize: null, uniformity: null, timeline: {} };
  const timeline = fairness.timeline;

  await run('ledger key', [], async () => {
    s.ledger = JSON.parse(await readText('api/v1/ledger'));
    if (vkey != null && s.ledger.vkey !== vkey) throw new Error(`the published key ${s.ledger.vkey} is not the pinned ${vkey}`);
    s.key = parseVkey(vkey ?? s.ledger.vkey);
    if (s.key.type !== 0x01 || s.key.name !== s.ledger.origin) throw new Error('the ledger key is not an Ed25519 key named by the origin');
    s.witnesses = (s.ledger.witnesses ?? []).map((w) => parseVkey(w.vkey));
    if (s.witnesses.some((w) => w.type !== 0x04)) throw new Error('a witness key is not a cosignature key');
    s.quorum = s.ledger.quorum ?? 0;
    if (!Number.isInteger(s.quorum) || s.quorum < 0 || s.quorum > s.witnesses.length) throw new Error(`quorum ${s.quorum} of ${s.witnesses.length} witnesses`);
    return `${s.key.vkey}${vkey == null ? ' (as published; pin it with the vkey option)' : ' (pinned)'}, ` +
      `${s.witnesses.length} witnesses, quorum ${s.quorum}`;
  });

  await run('ledger checkpoint', ['ledger key'], async () => {
    s.checkpoint = await openCheckpoint(await readText('ledger/checkpoint'), s.key, { witnesses: s.witnesses });
    return `${s.checkpoint.size} entries, signed by ${s.key.name}, ${s.checkpoint.cosignatures.length} cosignatures`;
  });

  await run('ledger tiles', ['ledger checkpoint'], async () => {
    s.leaves = [];
    s.entries = [];
    let malformed = null;
    const problem = await checkLog(s.checkpoint.size, s.checkpoint.root, (p) => read(`ledger/${p}`), {
      progress: progress('ledger'),
      visit: (index, bytes) => {
        s.leaves.push(leafHash(bytes));
        try {
          s.entries.push({ index, ...parseEntry(bytes) });
        } catch (error) {
          malformed ??= `entry ${index}: ${error.message}`;
        }
      },
    });
    if (problem) throw new Error(`ledger/${problem.path} ${problem.what}`);
    if (malformed) throw new Error(malformed);
    return `${s.checkpoint.size} entries rebuild every tile and the checkpoint's root`;
  });

  await run('entries order', ['ledger tiles'], async () => {
    const mine = s.entries.filter((e) => e.room === room);
    const tokens = mine.map((e) => (e.kind === 'witnessed' ? `W${TOKEN[e.stage]}` : TOKEN[e.kind])).join('');
    const pattern = s.quorum > 0 ? ORDER_WITNESSED : ORDER_UNWITNESSED;
    if (!pattern.test(tokens)) {
      throw new Error(`room ${room}'s entries are ${mine.map((e) => e.kind === 'witnessed' ? `witnessed ${e.stage}` : e.kind).join(', ') || 'none'}, ` +
        `not commit → ${s.quorum > 0 ? 'witnessed commit → close → witnessed close' : 'close'} → reveal`);
    }
    const commits = mine.filter((e) => e.kind === 'commit');
    if (commits.some((c) => c.commitment !== commits[0].commitment)) throw new Error('the commits carry different commitments');
    const last = (kind, stage) => mine.findLast((e) => e.kind === kind && (stage === undefined || e.stage === stage));
    Object.assign(s, {
      commit: last('commit'), close: last('close'), reveal: last('reveal'),
      witnessedCommit: last('witnessed', 'commit'), witnessedClose: last('witnessed', 'close'),
    });
    timeline.closesAt = s.commit.closes_at;
    timeline.commit = s.commit.at;
    timeline.close = s.close.at;
    timeline.reveal = s.reveal.at;
    return `commit at ${s.commit.index}, close at ${s.close.index}, reveal at ${s.reveal.index}` +
      (s.quorum > 0 ? `, witnessed at ${s.witnessedCommit.index} and ${s.witnessedClose.index}` : '');
  });

  // A witnessed entry: its checkpoint is the ledger's, cosigned by a quorum, covers the
  // stage entry, and is a prefix of the ledger checked above (consistency).
  const witnessed = (stage) => async () => {
    if (s.quorum === 0) return 'no witnesses configured: nothing but the ledger key vouches for the time';
    const entry = stage === 'commit' ? s.witnessedCommit : s.witnessedClose;
    const target = stage === 'commit' ? s.commit : s.close;
    const cp = await openCheckpoint(entry.checkpoint, s.key, { witnesses: s.witnesses });
    const times = new Map();
    for (const c of cp.cosignatures) times.set(c.name, Math.min(c.time, times.get(c.name) ?? Infinity));
    if (times.size < s.quorum) throw new Error(`${times.size} of the listed witnesses cosigned, the quorum is ${s.quorum}`);
    if (!(target.index < cp.size && cp.size <= entry.index)) {
      throw new Error(`its checkpoint of ${cp.size} entries does not cover entry ${target.index} before entry ${entry.index}`);
    }
    if (!equalBytes(rootOf(s.leaves, cp.size), cp.root)) throw new Error(`its checkpoint is not the root of the ledger's first ${cp.size} entries`);
    const sorted = [...times.values()].sort((a, b) => a - b);
    const quorumAt = sorted[s.quorum - 1] * 1000;
    s[`${stage}QuorumAt`] = quorumAt;
    timeline[`witnessed${stage === 'commit' ? 'Commit' : 'Close'}`] = [...times].map(([name, time]) => ({ name, time: time * 1000 }));
    return `checkpoint of ${cp.size} entries cosigned by ${[...times.keys()].join(', ')}; quorum reached at ${new Date(quorumAt).toISOString()}`;
  };
  await run('witnessed commit', ['entries order'], witnessed('commit'));
  await run('witnessed close', ['entries order'], witnessed('close'));

  await run('commitment', ['entries order'], async () => {
    if (!(await checkCommitment(s.reveal.seed, s.commit.commitment))) throw new Error('SHA-256(seed) is not the commitment');
    return `SHA-256(${s.reveal.seed}) = ${s.commit.commitment}`;
  });

  await run('lobby checkpoint', ['entries order'], async () => {
    const note = await readText(`ledger/lobbies/${encodeURIComponent(room)}/checkpoint`);
    s.lobby = await openCheckpoint(note, renamedKey(s.key, `${s.key.name}/lobby/${room}`));
    if (s.lobby.size !== s.close.size || toHex(s.lobby.root) !== s.close.root) {
      throw new Error(`the lobby checkpoint (${s.lobby.size}, ${toHex(s.lobby.root)}) is not the close entry's (${s.close.size}, ${s.close.root})`);
    }
    fairness.lobbySize = s.lobby.size;
    return `${s.lobby.size} entrants, root ${s.close.root}`;
  });

  await run('lobby tiles', ['lobby checkpoint'], async () => {
    s.ids = new Set();
    s.duplicate = null;
    let wrongSize = null;
    const problem = await checkLog(s.lobby.size, s.lobby.root, (p) => read(`ledger/lobbies/${encodeURIComponent(room)}/${p}`), {
      progress: progress('lobby'),
      visit: (index, id) => {
        if (id.length !== ENTRANT_ID_SIZE) wrongSize ??= index;
        const text = String.fromCharCode(...id);
        if (s.ids.has(text)) s.duplicate ??= index;
        s.ids.add(text);
      },
    });
    if (problem) throw new Error(`lobby ${problem.path} ${problem.what}`);
    if (wrongSize != null) throw new Error(`entry ${wrongSize} is not a 16-byte entrant id`);
    return `${s.lobby.size} entrant ids rebuild every tile and the close's root`;
  });

  await run('distinct entrants', ['lobby tiles'], async () => {
    if (s.duplicate != null) throw new Error(`entrant ${s.duplicate} repeats an earlier entrant id`);
    return `${s.ids.size} different entrant ids`;
  });

  await run('beacon', ['entries order'], async () => {
    const rule = s.commit.beacon;
    const value = s.reveal.beacon;
    if (rule.kind !== value.kind) throw new Error(`the commit names ${rule.kind}, the reveal gives ${value.kind}`);
    if (rule.kind === 'none') {
      s.beaconBytes = null;
      return 'no beacon: the organiser knew the seed before the close and could add entrants to steer the draw';
    }
    if (rule.kind === 'operator') {
      s.beaconBytes = fromHex(value.value);
      return 'a value the operator typed in: weaker than a public beacon';
    }
    if (value.round !== rule.round) throw new Error(`the reveal uses round ${value.round}, the commit named ${rule.round}`);
    let beacon;
    try {
      beacon = await drand();
    } catch (error) {
      throw new Error(`the drand verifier could not be loaded: ${error.message}`);
    }
    if (!(await beacon.verifyRound(value.round, value.signature))) throw new Error(`round ${value.round}'s signature does not verify`);
    const randomness = await beacon.randomness(value.signature);
    s.beaconBytes = typeof randomness === 'string' ? fromHex(randomness) : randomness;
    s.beaconTime = beacon.timeOfRound(value.round) * 1000;
    timeline.beaconRound = value.round;
    timeline.beacon = s.beaconTime;
    return `drand quicknet round ${value.round}, published at ${new Date(s.beaconTime).toISOString()}`;
  });

  await run('close before beacon', ['beacon', 'witnessed close'], async () => {
    if (s.beaconTime == null) return 'nothing to check: the beacon is not a drand round';
    const closedAt = s.quorum > 0 ? s.closeQuorumAt : s.close.at;
    if (!(closedAt < s.beaconTime)) {
      throw new Error(`the close was ${s.quorum > 0 ? 'witnessed' : 'written'} at ${new Date(closedAt).toISOString()}, not before the round`);
    }
    return `the close was ${s.quorum > 0 ? 'witnessed' : 'written (no witnesses)'} ${(s.beaconTime - closedAt) / 1000} s before the round`;
  });

  await run('key', ['beacon', 'lobby checkpoint'], async () => {
    const key = toHex(await deriveKey(s.reveal.seed, s.close.root, s.beaconBytes));
    if (key !== s.reveal.key) throw new Error(`the key is ${key}, the reveal says ${s.reveal.key}`);
    return `HMAC-SHA256(seed, "foyer/lottery/v1/key" ‖ root${s.beaconBytes ? ' ‖ beacon' : ''}) = ${key}`;
  });

  await run('places', ['key'], async () => {
    const n = s.close.size;
    const pi = permutation(s.reveal.key, n);
    const places = new Uint8Array(8 * n);
    const view = new DataView(places.buffer);
    const uniformity = new Uniformity(n);
    for (let start = 0; start < n; start += PLACES_CHUNK) {
      for (let i = start; i < Math.min(n, start + PLACES_CHUNK); i++) {
        const p = pi.place(i);
        view.setUint32(8 * i, Math.floor(p / 2 ** 32));
        view.setUint32(8 * i + 4, p >>> 0);
        uniformity.add(i, p);
      }
      onProgress?.({ phase: 'places', done: Math.min(n, start + PLACES_CHUNK), total: n });
      await new Promise((resolve) => setTimeout(resolve, 0)); // lets a page paint its progress
    }
    fairness.uniformity = uniformity.result();
    const hash = toHex(sha256(places));
    if (hash !== s.reveal.places) throw new Error(`the ${n} places hash to ${hash}, the reveal says ${s.reveal.places}`);
    return `all ${n} places recomputed, SHA-256 ${hash}`;
  });

  await run('reveal after quorum', ['entries order', 'witnessed commit', 'witnessed close'], async () => {
    if (s.quorum === 0) return 'no witnesses configured: the reveal follows the close in the ledger';
    const quorumAt = Math.max(s.commitQuorumAt, s.closeQuorumAt);
    if (s.reveal.at < quorumAt) throw new Error(`the seed was revealed at ${new Date(s.reveal.at).toISOString()}, before the close's quorum`);
    return `revealed ${(s.reveal.at - quorumAt) / 1000} s after the close's quorum`;
  });

  const checks = CHECKS.map((name) => results.get(name));
  return { ok: checks.every((c) => c.ok), checks, fairness };
}

/**
 * A chi-square test of independence between join order and place: entrants in B
 * join-order bands against B place bands. A fair shuffle gives a p-value that is
 * uniform on [0, 1]; a tiny one says the places follow join order.
 */
class Uniformity {
  constructor(n) {
    this.n = n;
    this.bands = Math.min(10, Math.floor(Math.sqrt(n / 5))); // at least 5 expected per cell
    this.counts = new Float64Array(this.bands * this.bands);
  }

  add(index, place) {
    if (this.bands < 2) return;
    const b = this.bands;
    this.counts[Math.floor((index * b) / this.n) * b + Math.floor((place * b) / this.n)]++;
  }

  result() {
    const b = this.bands;
    if (b < 2) return { bands: b, chiSquare: null, df: 0, pValue: null };
    const rows = new Float64Array(b);
    const cols = new Float64Array(b);
    this.counts.forEach((c, k) => {
      rows[Math.floor(k / b)] += c;
      cols[k % b] += c;
    });
    let chiSquare = 0;
    this.counts.forEach((c, k) => {
      const expected = (rows[Math.floor(k / b)] * cols[k % b]) / this.n;
      chiSquare += (c - expected) ** 2 / expected;
    });
    const df = (b - 1) ** 2;
    return { bands: b, chiSquare, df, pValue: chiSquareSurvival(chiSquare, df) };
  }
}

// P(X ≥ x) for X ~ χ²(df), by the Wilson–Hilferty normal approximation.
function chiSquareSurvival(x, df) {
  const z = (Math.cbrt(x / df) - (1 - 2 / (9 * df))) / Math.sqrt(2 / (9 * df));
  return 0.5 * erfc(z / Math.SQRT2);
}

// Abramowitz and Stegun 7.1.26, |error| < 1.5e-7.
function erfc(x) {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const value = poly * Math.exp(-x * x);
  return x >= 0 ? value : 2 - value;
}
