// A test-only writer of the public record of draws (docs/fairness.md, "The public record
// of every draw"), written from the spec with node:crypto and nothing from web/: the
// ledger and lobby logs as tiles, signed checkpoints, witness cosignatures, and a
// loopback server for the files. The audit's tests check web/js/audit against it.
import { createHash, createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';

const sha256 = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();
const u64be = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(v));
  return b;
};

/** An Ed25519 key as a signed-note signer (type 1) or a witness's cosigner (type 4). */
export function noteKey(name, type = 0x01) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return namedKey(name, type, Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url'), privateKey);
}

/** The same key under another name: the ledger's key signs a closed lobby under the lobby's origin. */
export function renamedKey(key, name) {
  return namedKey(name, key.type, key.pub, key.privateKey);
}

function namedKey(name, type, pub, privateKey) {
  const id = sha256(Buffer.from(name), Buffer.of(0x0a, type), pub).subarray(0, 4);
  return {
    name, id, type, pub, privateKey,
    vkey: `${name}+${id.toString('hex')}+${Buffer.concat([Buffer.of(type), pub]).toString('base64')}`,
    sign: (message) => sign(null, Buffer.from(message), privateKey),
  };
}

/** A signature line of a note. */
export function signatureLine(key, text, time) {
  if (key.type === 0x04) {
    const sig = key.sign(`cosignature/v1\ntime ${time}\n${text}`);
    return `— ${key.name} ${Buffer.concat([key.id, u64be(time), sig]).toString('base64')}\n`;
  }
  return `— ${key.name} ${Buffer.concat([key.id, key.sign(text)]).toString('base64')}\n`;
}

// RFC 6962 tree hash over leaf hashes [lo, hi).
function treeHash(leaves, lo = 0, hi = leaves.length) {
  if (hi - lo === 0) return sha256(Buffer.alloc(0));
  if (hi - lo === 1) return leaves[lo];
  let k = 1;
  while (k * 2 < hi - lo) k *= 2;
  return sha256(Buffer.of(1), treeHash(leaves, lo, lo + k), treeHash(leaves, lo + k, hi));
}

function indexPath(n) {
  const groups = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join('/');
}

const withWidth = (path, width) => (width === 256 ? path : `${path}.p/${width}`);

/** The tiles and bundles of a log of `entries` (Buffers), as a Map path → Buffer, and its root. */
export function tileLog(entries) {
  const files = new Map();
  for (let n = 0; n * 256 < entries.length; n++) {
    const group = entries.slice(n * 256, n * 256 + 256);
    const bundle = Buffer.concat(group.flatMap((e) => [Buffer.of(e.length >> 8, e.length & 0xff), e]));
    files.set(withWidth(`tile/entries/${indexPath(n)}`, group.length), bundle);
  }
  const leaves = entries.map((e) => sha256(Buffer.of(0), e));
  // Level L holds one hash per complete subtree of 256^L entries.
  for (let level = 0, hashes = leaves; hashes.length > 0; level++) {
    const above = [];
    for (let n = 0; n * 256 < hashes.length; n++) {
      const group = hashes.slice(n * 256, n * 256 + 256);
      files.set(withWidth(`tile/${level}/${indexPath(n)}`, group.length), Buffer.concat(group));
      if (group.length === 256) above.push(treeHash(group));
    }
    hashes = above;
  }
  return { files, root: treeHash(leaves) };
}

/** A checkpoint note of `origin` signed by `key` and cosigned by each of `cosigners` ({key, time}). */
export function checkpointNote(origin, size, root, key, cosigners = []) {
  const text = `${origin}\n${size}\n${root.toString('base64')}\n`;
  return `${text}\n${signatureLine(key, text)}${cosigners.map(({ key: k, time }) => signatureLine(k, text, time)).join('')}`;
}

/** π(i) for every i of a lobby of n, as lottery v1 defines it, with node:crypto's HMAC. */
export function placesOf(key, n) {
  let bits = Math.max(2, (n - 1).toString(2).length);
  bits += bits % 2;
  const half = 2 ** (bits / 2);
  const domain = Buffer.from('foyer/lottery/v1');
  const f = (r, v) => Number(createHmac('sha256', key).update(Buffer.concat([domain, Buffer.of(r), u64be(n), u64be(v)]))
    .digest().readBigUInt64BE(0) & BigInt(half - 1));
  const encrypt = (x) => {
    let [left, right] = [Math.floor(x / half), x % half];
    for (let r = 0; r < 10; r++) [left, right] = [right, left ^ f(r, right)];
    return left * half + right;
  };
  return Array.from({ length: n }, (_, i) => {
    if (n === 1) return 0;
    let x = encrypt(i);
    while (x >= n) x = encrypt(x);
    return x;
  });
}

/**
 * A deployment's ledger: entries appended as text, witnesses that cosign on demand, and
 * every file the server would publish (`files()`), served by `serve()`.
 */
export class TestLedger {
  constructor({ origin = 'foyer.test/ledger', witnesses = ['witness.one', 'witness.two'], quorum = witnesses.length } = {}) {
    this.origin = origin;
    this.key = noteKey(origin);
    this.witnesses = witnesses.map((name) => noteKey(name, 0x04));
    this.quorum = quorum;
    this.entries = [];
    this.lobbies = new Map(); // room, or room/lanes/lane → Map path → Buffer
  }

  append(text) {
    this.entries.push(Buffer.from(text));
    return this.entries.length - 1;
  }

  /** The checkpoint of the ledger as it stands, cosigned by the first `count` witnesses at `time` (seconds). */
  checkpoint(time, count = this.witnesses.length) {
    const { root } = tileLog(this.entries);
    return checkpointNote(this.origin, this.entries.length, root, this.key,
      this.witnesses.slice(0, count).map((key) => ({ key, time })));
  }

  /**
   * Appends one room's draw: commit, witnessed commit, close, witnessed close, reveal,
   * and publishes its lobby. `entrants` are 16-byte Buffers; times are Unix ms.
   * `beacon` is {kind: 'none'} | {kind: 'operator', value: hex} |
   * {kind: 'drand-quicknet', round, signature, randomness: Buffer}.
   * `lanes` ({lane, entrants, seed?, places?, committedAt?}) draw on their own beside the
   * general lane, as docs/fairness.md "Lanes" has it: each lane's commit, close and reveal
   * (with its `lane` line) follow the general lane's, its seed derived from the room's, its
   * lobby published under lanes/<lane>. A lane with `committedAt` was declared in the open
   * lobby: its commit comes after the witnessed commit, and is witnessed in turn.
   * Returns the general lane's {key, root, seed}.
   */
  draw({ room, entrants, seed = sha256(Buffer.from(room)), beacon = { kind: 'none' }, at = Date.UTC(2026, 0, 1),
    closeAfter = 60_000, revealAfter = 10_000, witnessDelay = 2_000, places = placesOf, lanes = [] }) {
    const witnessed = this.witnesses.length > 0 && this.quorum > 0;
    const hex = (b) => b.toString('hex');
    const closeAt = at + closeAfter;
    const draws = [{ lane: '', entrants, seed, places }, ...lanes.map((l) => ({
      places, seed: sha256(Buffer.from('foyer/lane-seed/v1'), Buffer.of(0), seed, Buffer.from(l.lane)), ...l,
    }))];
    const head = (kind, lane) => `foyer/ledger/v1\nkind ${kind}\nroom ${room}\n${lane ? `lane ${lane}\n` : ''}`;
    const rule = beacon.kind === 'drand-quicknet' ? `drand-quicknet ${beacon.round}` : beacon.kind;
    const commit = (d, ms) => this.append(`${head('commit', d.lane)}commitment ${hex(sha256(d.seed))}\nbeacon ${rule}\n` +
      `closes_at ${closeAt}\nat ${ms}\n`);
    const witness = (stage, ms) => this.append(`foyer/ledger/v1\nkind witnessed\nroom ${room}\nstage ${stage}\n\n` +
      this.checkpoint(Math.floor((ms + witnessDelay) / 1000)));
    for (const d of draws.filter((d) => d.committedAt == null)) commit(d, at);
    if (witnessed) witness('commit', at);
    for (const d of draws.filter((d) => d.committedAt != null)) {
      commit(d, d.committedAt);
      if (witnessed) witness('commit', d.committedAt);
    }
    for (const d of draws) {
      d.lobby = tileLog(d.entrants);
      this.append(`${head('close', d.lane)}size ${d.entrants.length}\nroot ${hex(d.lobby.root)}\nat ${closeAt}\n`);
    }
    if (witnessed) witness('close', closeAt);
    const beaconBytes = { none: Buffer.alloc(0), operator: Buffer.from(beacon.value ?? '', 'hex') }[beacon.kind] ?? beacon.randomness;
    const value = { none: 'none', operator: `operator ${beacon.value}`, 'drand-quicknet': `drand-quicknet ${beacon.round} ${beacon.signature}` }[beacon.kind];
    for (const d of draws) {
      d.key = createHmac('sha256', d.seed).update(Buffer.concat([Buffer.from('foyer/lottery/v1/key'), d.lobby.root, beaconBytes])).digest();
      const placesHash = sha256(Buffer.concat(d.places(d.key, d.entrants.length).map(u64be)));
      this.append(`${head('reveal', d.lane)}seed ${hex(d.seed)}\nbeacon ${value}\nkey ${hex(d.key)}\n` +
        `places ${hex(placesHash)}\nat ${closeAt + revealAfter}\n`);
      const files = new Map(d.lobby.files);
      const lobbyOrigin = `${this.origin}/lobby/${room}${d.lane ? `/${d.lane}` : ''}`;
      files.set('checkpoint', checkpointNote(lobbyOrigin, d.entrants.length, d.lobby.root, renamedKey(this.key, lobbyOrigin)));
      this.lobbies.set(d.lane ? `${room}/lanes/${d.lane}` : room, files);
    }
    return { key: draws[0].key, root: draws[0].lobby.root, seed };
  }

  /** Every published file: path (no leading slash) → Buffer or string. */
  files() {
    const out = new Map();
    out.set('api/v1/ledger', JSON.stringify({
      origin: this.origin, vkey: this.key.vkey, quorum: this.quorum,
      witnesses: this.witnesses.map((w) => ({ name: w.name, vkey: w.vkey, url: `https://${w.name}/` })),
      beacon: { scheme: 'drand-quicknet' },
    }));
    const last = Math.floor(Date.now() / 1000);
    out.set('ledger/checkpoint', this.checkpoint(last));
    for (const [path, bytes] of tileLog(this.entries).files) out.set(`ledger/${path}`, bytes);
    for (const [lobby, files] of this.lobbies) {
      for (const [path, bytes] of files) out.set(`ledger/lobbies/${lobby}/${path}`, bytes);
    }
    return out;
  }
}

/**
 * Serves `files` (path → Buffer|string, or a function of the path) on a loopback port,
 * 404 for anything else. Returns {url, close}.
 */
export async function serveFiles(files) {
  const lookup = typeof files === 'function' ? files : (path) => files.get(path);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1));
    const body = req.method === 'GET' ? lookup(path) : undefined;
    if (body == null) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': path.startsWith('api/') ? 'application/json' : 'application/octet-stream' }).end(body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(resolve);
    }),
  };
}
