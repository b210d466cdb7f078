// Foyer pass connector for Node (18+): checks the visitor's pass offline with node:crypto
// (Ed25519 and P-256 are built in, so no JOSE library is needed) and moves it from the URL
// into a cookie, as `foyer guard` does for nginx. No dependencies.
//
//   import { PassChecker, expressMiddleware, protect } from './foyer-pass.js';
//   const checker = new PassChecker({ issuer: 'https://queue.example.com', room: 'spring-sale',
//     jwksUrl: 'https://queue.example.com/.well-known/jwks.json',
//     loginUrl: 'https://queue.example.com/r/spring-sale' });
//   await checker.ready();
//   app.use('/sale', expressMiddleware(checker));              // Express
//   http.createServer(protect(checker, handler));              // plain node:http
//
// The rules are those of the guard (README, "Checking passes at the site"); the shared
// vectors in tests/data/connector-vectors.json pin them.
import { createPublicKey, verify as verifySignature } from 'node:crypto';

const MAX_TOKEN_SIZE = 8 * 1024;
const MAX_JWKS_SIZE = 64 * 1024;
const MAX_DONE_ANSWER_SIZE = 4096;
const MAX_PASS_COOKIES = 4;
// A stream of made-up kids must not become a stream of requests to Foyer.
const MIN_EARLY_REFRESH_MS = 10_000;
const MAX_DATE = 253402300799;
export const PASS_COOKIE = 'foyer_pass';
const PASS_PARAM = 'foyer_pass';
const FORBIDDEN_HEADERS = ['jwk', 'jku', 'x5u', 'x5c', 'crit'];
// The key pins the algorithm: a token never chooses it.
const KINDS = {
  'OKP/Ed25519': { alg: 'EdDSA', size: 64, check: (input, key, sig) => verifySignature(null, input, key, sig) },
  'EC/P-256': {
    alg: 'ES256', size: 64,
    check: (input, key, sig) => verifySignature('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, sig),
  },
};
const KNOWN_ALGS = new Set(Object.values(KINDS).map((k) => k.alg));

function base64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, 'base64url');
}

function jsonObject(bytes) {
  if (bytes === null) return null;
  try {
    const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

const numericDate = (v) => (Number.isInteger(v) && v >= 0 && v <= MAX_DATE ? v : null);

// kid -> { kind, key } from a JWKS text or object. Keys of other types, or not for
// signatures, are skipped; a JWKS with no usable key at all is an error.
export function loadKeys(jwks) {
  const text = typeof jwks === 'string' ? jwks : JSON.stringify(jwks);
  if (text.length > MAX_JWKS_SIZE) throw new Error('JWKS: larger than 64 KiB');
  const keys = new Map();
  for (const jwk of JSON.parse(text).keys ?? []) {
    if ('d' in jwk) throw new Error('JWKS: contains a private key');
    const kind = KINDS[`${jwk.kty}/${jwk.crv}`];
    if (!kind || ('use' in jwk && jwk.use !== 'sig') || ('alg' in jwk && jwk.alg !== kind.alg)) continue;
    if (typeof jwk.kid !== 'string' || keys.has(jwk.kid)) throw new Error('JWKS: a key without kid, or a duplicate kid');
    const { kty, crv, x, y } = jwk;
    keys.set(jwk.kid, { kind, key: createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' }) });
  }
  if (keys.size === 0) throw new Error('JWKS: no Ed25519 or P-256 key');
  return keys;
}

// The verdict on one pass: { ok: true, sub, jti, exp } or { ok: false, error }.
export function verifyPass(token, keys, { issuer, room, leeway = 5 }, now) {
  const refuse = (error) => ({ ok: false, error });
  if (token.length > MAX_TOKEN_SIZE) return refuse('too_large');
  const parts = token.split('.');
  if (parts.length !== 3) return refuse('malformed');
  const header = jsonObject(base64url(parts[0]));
  if (!header) return refuse('malformed');
  if (FORBIDDEN_HEADERS.some((name) => name in header)) return refuse('forbidden_header');
  if (typeof header.alg !== 'string' || !KNOWN_ALGS.has(header.alg)) return refuse('unsupported_alg');
  const key = typeof header.kid === 'string' ? keys.get(header.kid) : undefined;
  if (!key) return refuse('unknown_kid');
  if (header.alg !== key.kind.alg) return refuse('unsupported_alg');
  const payload = base64url(parts[1]);
  const signature = base64url(parts[2]);
  if (!payload || !signature || signature.length !== key.kind.size) return refuse('malformed');
  if (!key.kind.check(Buffer.from(`${parts[0]}.${parts[1]}`), key.key, signature)) return refuse('bad_signature');
  // The claims are read only once the signature vouches for them.
  const c = jsonObject(payload);
  if (!c) return refuse('malformed');
  const exp = numericDate(c.exp);
  if (typeof c.iss !== 'string' || c.aud === undefined || typeof c.sub !== 'string' || typeof c.jti !== 'string' ||
      exp === null || ('nbf' in c && numericDate(c.nbf) === null) || ('iat' in c && numericDate(c.iat) === null)) {
    return refuse('invalid_claims');
  }
  if (c.iss !== issuer) return refuse('wrong_issuer');
  if (typeof c.aud === 'string') {
    if (c.aud !== room) return refuse('wrong_audience');
  } else if (Array.isArray(c.aud)) {
    if (c.aud.some((a) => typeof a !== 'string')) return refuse('invalid_claims');
    if (!c.aud.includes(room)) return refuse('wrong_audience');
  } else {
    return refuse('invalid_claims');
  }
  if (now >= exp + leeway) return refuse('expired');
  if ('nbf' in c && now < c.nbf - leeway) return refuse('not_yet_valid');
  return { ok: true, sub: c.sub, jti: c.jti, exp };
}

// --- Where visitors go: the guard's same-site rules. ---

// Query pairs of a request target, split on '&' and the first '=' (values still escaped).
function queryPairs(target) {
  const q = target.indexOf('?');
  if (q < 0) return [];
  return target.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return { key: eq < 0 ? pair : pair.slice(0, eq), value: eq < 0 ? '' : pair.slice(eq + 1), pair };
  });
}

export function queryParam(target, name) {
  return queryPairs(target).find((p) => p.key === name)?.value ?? null;
}

function withoutQueryParam(target, name) {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const rest = queryPairs(target).filter((p) => p.key !== name && p.pair !== '').map((p) => p.pair);
  return rest.length ? `${path}?${rest.join('&')}` : path;
}

// Strict percent-decoding of a query value ('+' is a space); null for a bad escape. Bytes
// are kept as latin1 characters, so that the checks below see each byte.
export function percentDecode(text) {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '+') {
      out += ' ';
    } else if (c !== '%') {
      out += c;
    } else {
      if (!/^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) return null;
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    }
  }
  return out;
}

// <same-site-rule>
// Generated from web/js/bounce.js by `node connectors/same-site.mjs`: edit it there.
const MAX_NEXT_SIZE = 2048;
const MAX_DECODE_ROUNDS = 3;

// One lenient round: a '%' without two hex digits stays.
const decodeEscapes = (text) => text.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));

// Whether a path starting with '/' names a host as URL parsers read it ('\' for '/', tabs
// and newlines dropped, dot segments normalised away).
function namesHost(path) {
  let rest = path.replace(/[\t\n\r]/g, '').replace(/\\/g, '/');
  while (rest.startsWith('/./') || rest.startsWith('/../')) rest = rest.slice(rest[2] === '/' ? 2 : 3);
  return rest.startsWith('//');
}

/** `target` if it is a path of the site however a browser or the site reads it, else null. */
export function sameSitePath(target) {
  if (!target || target.length > MAX_NEXT_SIZE || target[0] !== '/') return null;
  for (const ch of target) {
    const c = ch.charCodeAt(0);
    if (c <= 0x20 || c >= 0x7f || ch === '\\') return null;
  }
  if (namesHost(target)) return null;
  let path = target.split(/[?#]/)[0];
  for (let round = 1; path.includes('%'); round++) {
    const decoded = decodeEscapes(path);
    if (decoded === path) break;
    if (round > MAX_DECODE_ROUNDS || namesHost(decoded)) return null;
    path = decoded;
  }
  return target;
}
// </same-site-rule>

// The page the visitor asking for `target` wants: its `next` if that is a same-site path,
// else the target without the pass, if that is one.
function wantedPage(target) {
  const next = queryParam(target, 'next');
  const decoded = next === null ? null : percentDecode(next);
  return (decoded !== null && sameSitePath(decoded)) || sameSitePath(withoutQueryParam(target, PASS_PARAM));
}

// Where a visitor who arrived with a good pass in the URL goes: `next`, else the same URL
// without the pass, else the front page.
export function entryLocation(target) {
  return wantedPage(target) || '/';
}

// `url` with name=value added to its query, before any fragment.
function withQueryParam(url, name, value) {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : url.slice(hash);
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}${name}=${value}${fragment}`;
}

// Every byte but the unreserved ones escaped, as the guard does it.
const queryEscape = (text) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

// The waiting room, with the refusal's code when a pass was refused (web/js/bounce.js), and
// in `next` the page asked for at `target`, to come back to once admitted.
export function refusalLocation(loginUrl, error, target) {
  const refused = error ? withQueryParam(loginUrl, 'foyer_refused', error) : loginUrl;
  const wanted = wantedPage(target);
  return wanted ? withQueryParam(refused, 'next', queryEscape(wanted)) : refused;
}

function cookieValues(header, name) {
  const out = [];
  for (const part of (header ?? '').split(';')) {
    const pair = part.replace(/^ +/, '');
    const eq = pair.indexOf('=');
    if (eq >= 0 && pair.slice(0, eq) === name && out.length < MAX_PASS_COOKIES) out.push(pair.slice(eq + 1));
  }
  return out;
}

// An answer's body as text, its reading stopped (and the answer dropped) past `max` bytes.
async function readCapped(res, max) {
  const reader = res.body.getReader();
  const chunks = [];
  for (let size = 0; ;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks).toString('utf8');
    size += value.length;
    if (size > max) {
      await reader.cancel();
      throw new Error(`larger than ${max} bytes`);
    }
    chunks.push(value);
  }
}

// The keys, fetched from Foyer and kept fresh: every `refreshSeconds`, and early (at most
// every 10 s) when a pass names a kid not seen yet. A failed fetch keeps the last good keys.
export class PassChecker {
  constructor({ issuer, room, loginUrl, jwksUrl, jwks, leeway = 5, refreshSeconds = 300, secureCookie = false,
    foyerUrl, siteToken, now = () => Math.floor(Date.now() / 1000) }) {
    if (!issuer || !room || !loginUrl || !(jwksUrl || jwks)) throw new Error('issuer, room, loginUrl and jwksUrl (or jwks) are required');
    Object.assign(this, { jwksUrl, loginUrl, secureCookie, foyerUrl, siteToken, now, refreshMs: refreshSeconds * 1000 });
    this.expect = { issuer, room, leeway };
    this.keys = jwks ? loadKeys(jwks) : new Map();
    this.lastFetch = 0;
  }

  async ready() {
    if (!this.jwksUrl) return this;
    await this.refresh();
    if (this.keys.size === 0) throw new Error(`no keys from ${this.jwksUrl}`);
    this.timer = setInterval(() => this.refresh(), this.refreshMs).unref();
    return this;
  }

  close() { clearInterval(this.timer); }

  async refresh() {
    this.lastFetch = Date.now();
    try {
      // Within 5 s, and never more than 64 KiB + 1 bytes read, whatever the answer's size;
      // from this URL itself (a redirect is not followed, and refused as not 200).
      const res = await fetch(this.jwksUrl, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      this.keys = loadKeys(await readCapped(res, MAX_JWKS_SIZE));
    } catch (e) {
      console.error(`foyer-pass: cannot refresh the keys from ${this.jwksUrl}, keeping the last: ${e.message}`);
    }
  }

  // The verdict on a pass; a pass under an unknown kid waits for one bounded refresh.
  async verify(token) {
    let result = verifyPass(token, this.keys, this.expect, this.now());
    if (result.error === 'unknown_kid' && this.jwksUrl && Date.now() - this.lastFetch >= MIN_EARLY_REFRESH_MS) {
      await (this.refreshing ??= this.refresh().finally(() => { this.refreshing = null; }));
      result = verifyPass(token, this.keys, this.expect, this.now());
    }
    return result;
  }

  // What to do with a request: { visitor, jti, exp } to serve it, or { status: 302,
  // headers } to send. `target` is the raw request target (path and query).
  async decide(target, { cookie, authorization } = {}) {
    const raw = queryParam(target, PASS_PARAM);
    if (raw !== null) {
      const token = percentDecode(raw);
      const result = token === null ? { ok: false, error: 'malformed' } : await this.verify(token);
      if (!result.ok) return this.toWaitingRoom(result.error, target);
      const maxAge = Math.max(1, result.exp - this.now());
      return {
        status: 302,
        headers: {
          location: entryLocation(target),
          'set-cookie': `${PASS_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${this.secureCookie ? '; Secure' : ''}`,
          'cache-control': 'no-store',
        },
      };
    }
    const presented = cookieValues(cookie, PASS_COOKIE);
    if (authorization?.startsWith('Bearer ') && authorization.length > 7) presented.push(authorization.slice(7));
    let refusal = null;
    for (const token of presented) {
      const result = await this.verify(token);
      if (result.ok) return { visitor: result.sub, jti: result.jti, exp: result.exp };
      refusal ??= result.error;
    }
    return this.toWaitingRoom(refusal, target);
  }

  toWaitingRoom(error, target) {
    return { status: 302, headers: { location: refusalLocation(this.loginUrl, error, target), 'cache-control': 'no-store' } };
  }

  // Reports finished passes (their jti) so that their slots free at once: needs foyerUrl
  // and the site token. Within 5 s; resolves to Foyer's answer, { done, active }.
  async done(jtis) {
    const res = await fetch(`${this.foyerUrl}/api/v1/rooms/${encodeURIComponent(this.expect.room)}/passes/done`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.siteToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ passes: jtis }),
      signal: AbortSignal.timeout(5000),
      redirect: 'manual',
    });
    if (!res.ok) throw new Error(`passes/done: HTTP ${res.status}`);
    return JSON.parse(await readCapped(res, MAX_DONE_ANSWER_SIZE));
  }
}

// node:http: wraps a handler; an admitted request carries req.foyerPass = { visitor, jti, exp }.
export function protect(checker, handler) {
  return async (req, res) => {
    const d = await checker.decide(req.url, req.headers);
    if (d.status) {
      res.writeHead(d.status, d.headers).end();
      return;
    }
    req.foyerPass = d;
    handler(req, res);
  };
}

// Express: app.use(path, expressMiddleware(checker)).
export function expressMiddleware(checker) {
  return (req, res, next) => {
    checker.decide(req.originalUrl, req.headers).then((d) => {
      if (d.status) {
        res.writeHead(d.status, d.headers).end();
        return;
      }
      req.foyerPass = d;
      next();
    }, next);
  };
}
