// A drand relay on loopback for the tests, serving the real quicknet rounds recorded in
// tests/data/drand-quicknet-rounds.json as drand's HTTP API does:
// GET /<chain hash>/public/<round> answers {"round","randomness","signature"}, anything
// else 404. Path prefixes make the same server a misbehaving relay, for the relay's base
// URL (http://127.0.0.1:PORT/<prefix>):
//
//   /forged         a signature with its last bit flipped and its SHA-256 as randomness:
//                   passes every check but the BLS one, which only the audit makes
//   /wrong-round    the round asked for, labelled as the next one
//   /bad-randomness randomness that is not SHA-256(signature)
//   /redirect       302 to the good relay's answer
//   /large          the good answer padded past 8 KiB
//   /silent         never answers
//   /mendable       as /forged until `relay.mend()` is called, then as the good relay
//
// In a test: `const relay = await startDrandRelay(); ... relay.url ... await relay.close()`.
// From another program: `node tests/lib/drand-relay.js` prints the URL on its first line
// and serves until its stdin closes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export const recorded = JSON.parse(readFileSync(new URL('../data/drand-quicknet-rounds.json', import.meta.url)));

const sha256 = (hex) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

function flipLastBit(hex) {
  return hex.slice(0, -1) + (parseInt(hex.at(-1), 16) ^ 1).toString(16);
}

function answer(prefix, entry) {
  const { round, randomness, signature } = entry;
  switch (prefix) {
    case '': return { round, randomness, signature };
    case 'forged': {
      const forged = flipLastBit(signature);
      return { round, randomness: sha256(forged), signature: forged };
    }
    case 'wrong-round': return { round: round + 1, randomness, signature };
    case 'bad-randomness': return { round, randomness: sha256(randomness), signature };
    case 'large': return { round, randomness, signature, padding: 'x'.repeat(9 * 1024) };
    default: return null;
  }
}

function serve(req, res, mended) {
  const m = /^\/(?:([a-z-]+)\/)?([0-9a-f]{64})\/public\/(\d+)$/.exec(req.url);
  const entry = m && m[2] === recorded.chain_hash && recorded.rounds.find((r) => r.round === Number(m[3]));
  const prefix = m?.[1] ?? '';
  if (!entry || req.method !== 'GET') {
    res.writeHead(404).end();
  } else if (prefix === 'silent') {
    // The socket stays open until the client gives up.
  } else if (prefix === 'redirect') {
    res.writeHead(302, { location: `/${m[2]}/public/${m[3]}` }).end();
  } else {
    const body = answer(prefix === 'mendable' ? (mended ? '' : 'forged') : prefix, entry);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

/** Listens on a loopback port; resolves to { url, mend, close }. */
export async function startDrandRelay() {
  let mended = false;
  const server = http.createServer((req, res) => serve(req, res, mended));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    mend: () => { mended = true; },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const relay = await startDrandRelay();
  console.log(relay.url);
  process.stdin.on('end', () => process.exit(0)).resume();
}
