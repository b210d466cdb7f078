// The whole-draw audit (docs/fairness.md, "The public record of every draw"): fetches
// the ledger and the room's lobby log (one per lane in a room with lanes) from a Foyer
// server and checks every signature, cosignature, tile, the order of the room's entries,
// each lane's commitment, lobby, key and places, and the room's beacon. Plain fetch and
// WebCrypto: it runs in the verify page and under Node 18+ (packaging/foyer-audit.mjs).
//
// Each check ends in one of three states: "pass" (checked and right), "fail" (checked and
// wrong, or not run because a check it needs failed), "absent" (the guarantee it stands for
// is not there to check: no beacon, no witnesses, keys taken from the audited server
// itself); an absent check's detail says what that absence allows.

import { checkCommitment, deriveKey, fromHex, permutation, toHex } from '../lottery.js';
import { sha256 } from '../sha256.js';
import { parseEntry } from './entries.js';
import { openCheckpoint, parseVkey, renamedKey } from './note.js';
import { checkLog, equalBytes, leafHash, rootOf } from './tiles.js';

/** The checks, in the order they run and are reported. */
export const CHECKS = [
  'ledger key', 'witness keys', 'ledger checkpoint', 'ledger tiles', 'entries order', 'witnessed commit', 'witnessed close',
  'commitment', 'lobby checkpoint', 'lobby tiles', 'distinct entrants', 'beacon', 'close before beacon', 'key',
  'places', 'reveal after quorum',
];

/**
 * The checks of one lane's draw: in a room with lanes each runs once per lane, the general
 * lane's first, and is reported with its `lane` (the general lane's with none).
 */
export const LANE_CHECKS = new Set(['commitment', 'lobby checkpoint', 'lobby tiles', 'distinct entrants', 'key', 'places']);

// The room's entries, whatever their lane: each lane's commit, close and reveal come in
// runs, the witnessed entries between them. Unambiguous, so that no run of entries makes
// the match backtrack.
const ORDER_WITNESSED = /^C+(WCC+)*WCX+WXR+$/;
const ORDER_UNWITNESSED = /^C+X+R+$/;
// One lane's own entries.
const LANE_ORDER = /^C+XR$/;
const TOKEN = { commit: 'C', close: 'X', reveal: 'R', witnessed: 'W' };
const ENTRANT_ID_SIZE = 16;
const PLACES_CHUNK = 8192;

/** The three states of a check. */
export const STATES = ['pass', 'fail', 'absent'];

// What a check's body returns when its guarantee is absent (a string is a pass).
const absent = (detail) => ({ absent: detail });

const kinds = (entries) => entries.map((e) => (e.kind === 'witnessed' ? `witnessed ${e.stage}` : e.kind)).join(', ') || 'none';

/**
 * Audits room `room`'s draw, and each of its lanes' draws, as published by the server at
 * `baseUrl`.
 * @param {string} baseUrl e.g. https://queue.example.com
 * @param {string} room
 * @param {object} [options]
 * @param {string} [options.vkey] the ledger's vkey, pinned: the published one must equal it
 * @param {string[]} [options.witnesses] the witnesses' vkeys, pinned: their cosignatures
 *   are checked instead of those of the witnesses the server lists
 * @param {number} [options.quorum] how many of the pinned witnesses must cosign (default: all)
 * @param {(p: {phase: string, done: number, total: number, lane?: string}) => void} [options.onProgress]
 * @param {typeof fetch} [options.fetch]
 * @param {() => Promise<object>} [options.drand] loads web/js/drand.js
 * @returns {Promise<{ok: boolean, passed: number, failed: number, absent: number,
 *   checks: Array<{name: string, lane?: string, status: 'pass'|'fail'|'absent', detail: string, ms?: number}>,
 *   fairness: object}>}
 *   `ok` only when every check passed; `ms` is the time a check took; a check not run has
 *   none. `fairness.lanes` has the lobby size and uniformity of each lane but the general
 *   one, whose are at the top.
 */
export async function auditDraw(baseUrl, room, {
  vkey, witnesses: pinnedWitnesses, quorum: pinnedQuorum, onProgress, fetch = globalThis.fetch,
  drand = () => import('../drand.js'),
} = {}) {
  const base = new URL(baseUrl.replace(/\/*$/, '/'));
  const read = async (path) => {
    const url = new URL(path, base);
    let res;
    try {
      res = await fetch(url);
    } catch (error) {
      // fetch says only "fetch failed": the cause names what went wrong.
      throw new Error(`${url.href}: ${error.cause?.message ?? error.message}`);
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`${url.href}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const readText = async (path) => {
    const bytes = await read(path);
    if (bytes == null) throw new Error(`${path}: not found`);
    return new TextDecoder().decode(bytes);
  };
  const progress = (phase, lane) => (done, total) => onProgress?.({ phase, done, total, ...(lane ? { lane } : {}) });

  const results = new Map();
  const keyOf = (name, lane) => (lane && LANE_CHECKS.has(name) ? `${name}\n${lane}` : name);
  // A lane's check needs the checks of its own lane and the room's.
  const run = async (name, needs, body, lane = '') => {
    const key = keyOf(name, lane);
    const named = lane ? { name, lane } : { name };
    // An absent guarantee does not stop the checks after it; a failed one does.
    const missing = needs.find((n) => (results.get(keyOf(n, lane))?.status ?? 'fail') === 'fail');
    if (missing) {
      results.set(key, { ...named, status: 'fail', detail: `not run: "${missing}" did not pass` });
      return;
    }
    const started = Date.now();
    try {
      const outcome = await body();
      const [status, detail] = typeof outcome === 'string' ? ['pass', outcome] : ['absent', outcome.absent];
      results.set(key, { ...named, status, detail, ms: Date.now() - started });
    } catch (error) {
      results.set(key, { ...named, status: 'fail', detail: error.message, ms: Date.now() - started });
    }
  };

  const s = {}; // what the checks learn, for the checks after them
  const fairness = { room, lobbySize: null, uniformity: null, timeline: {} };
  const timeline = fairness.timeline;
  // The draws, the general lane's first: {lane, commit, close, reveal} once the entries
  // are in order, and what each lane's checks learn.
  let draws = [{ lane: '' }];
  const report = (d) => (d.lane ? fairness.lanes.find((l) => l.lane === d.lane) : fairness);

  await run('ledger key', [], async () => {
    s.ledger = JSON.parse(await readText('api/v1/ledger'));
    if (vkey != null && s.ledger.vkey !== vkey) throw new Error(`the published key ${s.ledger.vkey} is not the pinned ${vkey}`);
    s.key = parseVkey(vkey ?? s.ledger.vkey);
    if (s.key.type !== 0x01 || s.key.name !== s.ledger.origin) throw new Error('the ledger key is not an Ed25519 key named by the origin');
    if (vkey != null) return `${s.key.vkey} (pinned)`;
    return absent(`${s.key.vkey}, as the audited server publishes it, not pinned: a server that rewrote its whole ` +
      'ledger under another key would pass the checks that follow');
  });

  await run('witness keys', ['ledger key'], async () => {
    const pinned = pinnedWitnesses?.length > 0;
    s.witnesses = (pinned ? pinnedWitnesses : (s.ledger.witnesses ?? []).map((w) => w.vkey)).map(parseVkey);
    if (s.witnesses.some((w) => w.type !== 0x04)) throw new Error('a witness key is not a cosignature key');
    s.quorum = pinned ? pinnedQuorum ?? s.witnesses.length : s.ledger.quorum ?? 0;
    if (!Number.isInteger(s.quorum) || s.quorum < 0 || s.quorum > s.witnesses.length) throw new Error(`quorum ${s.quorum} of ${s.witnesses.length} witnesses`);
    const names = s.witnesses.map((w) => w.name).join(', ');
    if (pinned) return `${s.witnesses.length} pinned witnesses (${names}), quorum ${s.quorum}`;
    if (s.quorum === 0) return absent('no witnesses: nothing but the ledger key vouches for when the commit and the close were written');
    return absent(`${s.witnesses.length} witnesses (${names}) and quorum ${s.quorum} as the audited server lists them, ` +
      'not pinned: a server could list witnesses of its own');
  });

  await run('ledger checkpoint', ['witness keys'], async () => {
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
    const expected = `commit → ${s.quorum > 0 ? 'witnessed commit → close → witnessed close' : 'close'} → reveal`;
    if (!pattern.test(tokens)) throw new Error(`room ${room}'s entries are ${kinds(mine)}, not ${expected}`);
    const lanes = new Map(); // lane → its entries, in ledger order: the general lane's commits first
    for (const e of mine) if (e.kind !== 'witnessed') lanes.set(e.lane ?? '', [...(lanes.get(e.lane ?? '') ?? []), e]);
    if (!lanes.has('')) throw new Error(`room ${room}'s general lane has no entries`);
    const found = [];
    for (const [lane, entries] of lanes) {
      const name = lane ? `lane ${lane}` : `room ${room}`;
      if (!LANE_ORDER.test(entries.map((e) => TOKEN[e.kind]).join(''))) {
        throw new Error(`${name}'s entries are ${kinds(entries)}, not commit → close → reveal`);
      }
      const commits = entries.filter((e) => e.kind === 'commit');
      if (commits.some((c) => c.commitment !== commits[0].commitment)) throw new Error(`${name}'s commits carry different commitments`);
      found.push({ lane, commit: commits.at(-1), close: entries.at(-2), reveal: entries.at(-1) });
    }
    draws = [found.find((d) => d.lane === ''), ...found.filter((d) => d.lane !== '')];
    const last = (kind, stage) => mine.findLast((e) => e.kind === kind && (stage === undefined || e.stage === stage));
    // The witnesses vouch for the room's last commit and close, whatever their lane.
    Object.assign(s, {
      commit: last('commit'), close: last('close'), firstReveal: mine.find((e) => e.kind === 'reveal'),
      witnessedCommit: last('witnessed', 'commit'), witnessedClose: last('witnessed', 'close'),
    });
    const [general, ...others] = draws;
    timeline.closesAt = general.commit.closes_at;
    timeline.commit = general.commit.at;
    timeline.close = general.close.at;
    timeline.reveal = general.reveal.at;
    if (others.length > 0) {
      timeline.lanes = others.map((d) => ({ lane: d.lane, commit: d.commit.at, close: d.close.at, reveal: d.reveal.at }));
      fairness.lanes = others.map((d) => ({ lane: d.lane, lobbySize: null, uniformity: null }));
    }
    const at = (d) => `commit at ${d.commit.index}, close at ${d.close.index}, reveal at ${d.reveal.index}`;
    return at(general) +
      (s.quorum > 0 ? `, witnessed at ${s.witnessedCommit.index} and ${s.witnessedClose.index}` : '') +
      others.map((d) => `; lane ${d.lane}: ${at(d)}`).join('');
  });

  // A witnessed entry: its checkpoint is the ledger's, cosigned by a quorum, covers the
  // stage entry, and is a prefix of the ledger checked above (consistency).
  const witnessed = (stage) => async () => {
    if (s.quorum === 0) return absent('no witnesses: nothing but the ledger key vouches for when it was written');
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

  // Each lane's lobby is a log of its own (docs/fairness.md, "Lanes").
  const lobbyPath = (d) => `ledger/lobbies/${encodeURIComponent(room)}${d.lane ? `/lanes/${encodeURIComponent(d.lane)}` : ''}`;
  const lobbyOrigin = (d) => `${s.key.name}/lobby/${room}${d.lane ? `/${d.lane}` : ''}`;
  const seen = new Set(); // every lane's entrant ids: one id in two lanes is one too many

  // The checks after the entries' order, in CHECKS order: [needs, body]; a lane's body takes its draw.
  const later = {
    'witnessed commit': [['entries order'], witnessed('commit')],
    'witnessed close': [['entries order'], witnessed('close')],

    commitment: [['entries order'], async (d) => {
      if (!(await checkCommitment(d.reveal.seed, d.commit.commitment))) throw new Error('SHA-256(seed) is not the commitment');
      return `SHA-256(${d.reveal.seed}) = ${d.commit.commitment}`;
    }],

    'lobby checkpoint': [['entries order'], async (d) => {
      const note = await readText(`${lobbyPath(d)}/checkpoint`);
      d.lobby = await openCheckpoint(note, renamedKey(s.key, lobbyOrigin(d)));
      if (d.lobby.size !== d.close.size || toHex(d.lobby.root) !== d.close.root) {
        throw new Error(`the lobby checkpoint (${d.lobby.size}, ${toHex(d.lobby.root)}) is not the close entry's (${d.close.size}, ${d.close.root})`);
      }
      report(d).lobbySize = d.lobby.size;
      return `${d.lobby.size} entrants, root ${d.close.root}`;
    }],

    'lobby tiles': [['lobby checkpoint'], async (d) => {
      d.distinct = 0;
      d.duplicate = null;
      let wrongSize = null;
      const problem = await checkLog(d.lobby.size, d.lobby.root, (p) => read(`${lobbyPath(d)}/${p}`), {
        progress: progress('lobby', d.lane),
        visit: (index, id) => {
          if (id.length !== ENTRANT_ID_SIZE) wrongSize ??= index;
          const text = String.fromCharCode(...id);
          if (seen.has(text)) d.duplicate ??= index;
          else d.distinct++;
          seen.add(text);
        },
      });
      if (problem) throw new Error(`lobby ${problem.path} ${problem.what}`);
      if (wrongSize != null) throw new Error(`entry ${wrongSize} is not a 16-byte entrant id`);
      return `${d.lobby.size} entrant ids rebuild every tile and the close's root`;
    }],

    'distinct entrants': [['lobby tiles'], async (d) => {
      if (d.duplicate != null) throw new Error(`entrant ${d.duplicate} repeats an earlier entrant id${draws.length > 1 ? ' of this lane or another' : ''}`);
      return `${d.distinct} different entrant ids${draws.length > 1 ? ', none in another lane' : ''}`;
    }],

    beacon: [['entries order'], async () => {
      const [general, ...others] = draws;
      const rule = general.commit.beacon;
      const value = general.reveal.beacon;
      // The room has one beacon: every lane's draw names and uses the same.
      const other = others.find((d) => JSON.stringify(d.commit.beacon) !== JSON.stringify(rule) ||
        JSON.stringify(d.reveal.beacon) !== JSON.stringify(value));
      if (other) throw new Error(`lane ${other.lane} names or uses another beacon than the room's`);
      if (rule.kind !== value.kind) throw new Error(`the commit names ${rule.kind}, the reveal gives ${value.kind}`);
      if (rule.kind === 'none') {
        s.beaconBytes = null;
        return absent('no beacon: the organiser knew the seed before the close and could add entrants to steer the draw');
      }
      if (rule.kind === 'operator') {
        s.beaconBytes = fromHex(value.value);
        return absent('a value the operator typed in, not a public beacon: the organiser could still steer the draw');
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
    }],

    'close before beacon': [['beacon', 'witnessed close'], async () => {
      if (s.beaconTime == null) return absent('no drand round: nothing shows the lobby was closed before the beacon was known');
      const closedAt = s.quorum > 0 ? s.closeQuorumAt : s.close.at;
      if (!(closedAt < s.beaconTime)) {
        throw new Error(`the close was ${s.quorum > 0 ? 'witnessed' : 'written'} at ${new Date(closedAt).toISOString()}, not before the round`);
      }
      return `the close was ${s.quorum > 0 ? 'witnessed' : 'written (no witnesses)'} ${(s.beaconTime - closedAt) / 1000} s before the round`;
    }],

    key: [['beacon', 'lobby checkpoint'], async (d) => {
      const key = toHex(await deriveKey(d.reveal.seed, d.close.root, s.beaconBytes));
      if (key !== d.reveal.key) throw new Error(`the key is ${key}, the reveal says ${d.reveal.key}`);
      return `HMAC-SHA256(seed, "foyer/lottery/v1/key" ‖ root${s.beaconBytes ? ' ‖ beacon' : ''}) = ${key}`;
    }],

    places: [['key'], async (d) => {
      const n = d.close.size;
      const pi = permutation(d.reveal.key, n);
      const places = new Uint8Array(8 * n);
      const view = new DataView(places.buffer);
      const uniformity = new Uniformity(n);
      const step = progress('places', d.lane);
      for (let start = 0; start < n; start += PLACES_CHUNK) {
        for (let i = start; i < Math.min(n, start + PLACES_CHUNK); i++) {
          const p = pi.place(i);
          view.setUint32(8 * i, Math.floor(p / 2 ** 32));
          view.setUint32(8 * i + 4, p >>> 0);
          uniformity.add(i, p);
        }
        step(Math.min(n, start + PLACES_CHUNK), n);
        await new Promise((resolve) => setTimeout(resolve, 0)); // lets a page paint its progress
      }
      report(d).uniformity = uniformity.result();
      const hash = toHex(sha256(places));
      if (hash !== d.reveal.places) throw new Error(`the ${n} places hash to ${hash}, the reveal says ${d.reveal.places}`);
      return `all ${n} places recomputed, SHA-256 ${hash}`;
    }],

    'reveal after quorum': [['entries order', 'witnessed commit', 'witnessed close'], async () => {
      if (s.quorum === 0) return absent('no witnesses: only the ledger\'s own order says the seed was revealed after the close');
      const quorumAt = Math.max(s.commitQuorumAt, s.closeQuorumAt);
      if (s.firstReveal.at < quorumAt) throw new Error(`the seed was revealed at ${new Date(s.firstReveal.at).toISOString()}, before the close's quorum`);
      return `revealed ${(s.firstReveal.at - quorumAt) / 1000} s after the close's quorum`;
    }],
  };

  for (const [name, [needs, body]] of Object.entries(later)) {
    if (!LANE_CHECKS.has(name)) await run(name, needs, body);
    else for (const d of draws) await run(name, needs, () => body(d), d.lane);
  }
  const all = CHECKS.flatMap((name) => (LANE_CHECKS.has(name) ? draws.map((d) => keyOf(name, d.lane)) : [name]))
    .map((key) => results.get(key));
  const count = (status) => all.filter((c) => c.status === status).length;
  return { ok: count('pass') === all.length, passed: count('pass'), failed: count('fail'), absent: count('absent'), checks: all, fairness };
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
