// Foyer pass connector for a CDN edge: a Cloudflare Worker (an ES module) that checks the
// visitor's pass offline with WebCrypto (Ed25519 and ECDSA P-256) against Foyer's JWKS,
// cached in the isolate, with the rules of `foyer guard`. It uses nothing but the Fetch API
// and crypto.subtle, so the same module is the pattern for any WebCrypto edge runtime
// (Deno Deploy, Vercel/Netlify edge functions, Fastly's JS compute).
//
// Bindings (wrangler.toml [vars]): FOYER_ISSUER, FOYER_ROOM, FOYER_JWKS_URL, FOYER_LOGIN_URL;
// optional FOYER_LEEWAY (seconds, default 5), FOYER_REFRESH (seconds, default 300),
// FOYER_SECURE_COOKIE ("true"), ORIGIN (where admitted requests go; default: the request's
// own URL, i.e. the zone's origin behind the Worker's route).
// Admitted requests go on with X-Foyer-Visitor: <visitor id>.

const MAX_TOKEN_SIZE = 8 * 1024;
const MAX_JWKS_SIZE = 64 * 1024;
const MAX_NEXT_SIZE = 2048;
const MAX_DECODE_ROUNDS = 3;
const MAX_PASS_COOKIES = 4;
const MAX_DATE = 253402300799;
// A stream of made-up kids must not become a stream of requests to Foyer.
const MIN_EARLY_REFRESH_MS = 10_000;
const PASS = 'foyer_pass';
const FORBIDDEN_HEADERS = ['jwk', 'jku', 'x5u', 'x5c', 'crit'];
// The key pins the algorithm: a token never chooses it.
const KINDS = {
  'OKP/Ed25519': { alg: 'EdDSA', importAs: { name: 'Ed25519' }, verifyAs: { name: 'Ed25519' } },
  'EC/P-256': { alg: 'ES256', importAs: { name: 'ECDSA', namedCurve: 'P-256' }, verifyAs: { name: 'ECDSA', hash: 'SHA-256' } },
};

function base64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
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

// kid -> { kind, key } from a JWKS text.
export async function loadKeys(text) {
  if (text.length > MAX_JWKS_SIZE) throw new Error('JWKS: larger than 64 KiB');
  const keys = new Map();
  for (const jwk of JSON.parse(text).keys ?? []) {
    if ('d' in jwk) throw new Error('JWKS: contains a private key');
    const kind = KINDS[`${jwk.kty}/${jwk.crv}`];
    if (!kind || ('use' in jwk && jwk.use !== 'sig') || ('alg' in jwk && jwk.alg !== kind.alg)) continue;
    if (typeof jwk.kid !== 'string' || keys.has(jwk.kid)) throw new Error('JWKS: a key without kid, or a duplicate kid');
    const { kty, crv, x, y } = jwk;
    const key = await crypto.subtle.importKey('jwk', { kty, crv, x, ...(y ? { y } : {}) }, kind.importAs, false, ['verify']);
    keys.set(jwk.kid, { kind, key });
  }
  if (keys.size === 0) throw new Error('JWKS: no Ed25519 or P-256 key');
  return keys;
}

// The verdict on one pass: { ok: true, sub, jti, exp } or { ok: false, error }.
export async function verifyPass(token, keys, { issuer, room, leeway }, now) {
  const refuse = (error) => ({ ok: false, error });
  if (token.length > MAX_TOKEN_SIZE) return refuse('too_large');
  const parts = token.split('.');
  if (parts.length !== 3) return refuse('malformed');
  const header = jsonObject(base64url(parts[0]));
  if (!header) return refuse('malformed');
  if (FORBIDDEN_HEADERS.some((name) => name in header)) return refuse('forbidden_header');
  if (header.alg !== 'EdDSA' && header.alg !== 'ES256') return refuse('unsupported_alg');
  const key = typeof header.kid === 'string' ? keys.get(header.kid) : undefined;
  if (!key) return refuse('unknown_kid');
  if (header.alg !== key.kind.alg) return refuse('unsupported_alg');
  const payload = base64url(parts[1]);
  const signature = base64url(parts[2]);
  if (!payload || !signature || signature.length !== 64) return refuse('malformed');
  const input = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
  if (!(await crypto.subtle.verify(key.kind.verifyAs, key.key, signature, input))) return refuse('bad_signature');
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

function queryPairs(target) {
  const q = target.indexOf('?');
  if (q < 0) return [];
  return target.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return { key: eq < 0 ? pair : pair.slice(0, eq), value: eq < 0 ? '' : pair.slice(eq + 1), pair };
  });
}

const queryParam = (target, name) => queryPairs(target).find((p) => p.key === name)?.value ?? null;

function withoutQueryParam(target, name) {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const rest = queryPairs(target).filter((p) => p.key !== name && p.pair !== '').map((p) => p.pair);
  return rest.length ? `${path}?${rest.join('&')}` : path;
}

// Strict decoding of a query value ('+' is a space), a byte a character; null for a bad escape.
function percentDecode(text) {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return null;
  return decodeEscapes(text.replace(/\+/g, ' '));
}

const decodeEscapes = (text) => text.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));

function namesHost(path) {
  let rest = path.replace(/[\t\n\r]/g, '').replace(/\\/g, '/');
  while (rest.startsWith('/./') || rest.startsWith('/../')) rest = rest.slice(rest[2] === '/' ? 2 : 3);
  return rest.startsWith('//');
}

export function sameSitePath(target) {
  if (!target || target.length > MAX_NEXT_SIZE || target[0] !== '/') return null;
  if (/[\x00-\x20\x7f-\uffff\\]/.test(target)) return null;
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

// The page the visitor asking for `target` wants: its same-site `next`, else the target
// without the pass, if that is a same-site path.
function wantedPage(target) {
  const next = queryParam(target, 'next');
  const decoded = next === null ? null : percentDecode(next);
  return (decoded !== null && sameSitePath(decoded)) || sameSitePath(withoutQueryParam(target, PASS));
}

export function entryLocation(target) {
  return wantedPage(target) || '/';
}

function withQueryParam(url, name, value) {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : url.slice(hash);
  const sep = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}${name}=${value}${fragment}`;
}

// Every byte but the unreserved ones escaped, as the guard does it.
const queryEscape = (text) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

// The waiting room, with the refusal's code, and in `next` the page asked for.
export function refusalLocation(loginUrl, error, target) {
  const refused = error ? withQueryParam(loginUrl, 'foyer_refused', error) : loginUrl;
  const wanted = wantedPage(target);
  return wanted ? withQueryParam(refused, 'next', queryEscape(wanted)) : refused;
}

// --- The keys, cached in the isolate: refreshed every FOYER_REFRESH seconds, and early (at
// most every 10 s) for an unknown kid. A failed fetch keeps the last good keys.
let cache = { url: null, keys: new Map(), fetchedAt: 0 };

async function keysFor(env, early) {
  const age = Date.now() - cache.fetchedAt;
  const stale = cache.url !== env.FOYER_JWKS_URL || age >= Number(env.FOYER_REFRESH ?? 300) * 1000;
  if (!stale && !(early && age >= MIN_EARLY_REFRESH_MS)) return cache.keys;
  const url = env.FOYER_JWKS_URL;
  cache = { ...cache, fetchedAt: Date.now() };
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    cache = { url, keys: await loadKeys(await res.text()), fetchedAt: Date.now() };
  } catch (e) {
    console.error(`foyer-pass: cannot refresh the keys from ${url}, keeping the last: ${e.message}`);
  }
  return cache.keys;
}

async function check(token, env) {
  const expect = { issuer: env.FOYER_ISSUER, room: env.FOYER_ROOM, leeway: Number(env.FOYER_LEEWAY ?? 5) };
  const now = Math.floor(Date.now() / 1000);
  let result = await verifyPass(token, await keysFor(env, false), expect, now);
  if (result.error === 'unknown_kid') result = await verifyPass(token, await keysFor(env, true), expect, now);
  return result;
}

const redirect = (location, extra = {}) =>
  new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store', ...extra } });

// A Response for a visitor to send away, or { visitor, jti, exp } for an admitted one.
export async function decide(request, env) {
  const url = new URL(request.url);
  const target = url.pathname + url.search;
  const raw = queryParam(target, PASS);
  if (raw !== null) {
    const token = percentDecode(raw);
    const result = token === null ? { ok: false, error: 'malformed' } : await check(token, env);
    if (!result.ok) return redirect(refusalLocation(env.FOYER_LOGIN_URL, result.error, target));
    const maxAge = Math.max(1, result.exp - Math.floor(Date.now() / 1000));
    const secure = env.FOYER_SECURE_COOKIE === 'true' ? '; Secure' : '';
    return redirect(entryLocation(target), { 'set-cookie': `${PASS}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}` });
  }
  const presented = [];
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const pair = part.replace(/^ +/, '');
    const eq = pair.indexOf('=');
    if (eq >= 0 && pair.slice(0, eq) === PASS && presented.length < MAX_PASS_COOKIES) presented.push(pair.slice(eq + 1));
  }
  const auth = request.headers.get('authorization');
  if (auth?.startsWith('Bearer ') && auth.length > 7) presented.push(auth.slice(7));
  let refusal = null;
  for (const token of presented) {
    const result = await check(token, env);
    if (result.ok) return { visitor: result.sub, jti: result.jti, exp: result.exp };
    refusal ??= result.error;
  }
  return redirect(refusalLocation(env.FOYER_LOGIN_URL, refusal, target));
}

export default {
  async fetch(request, env) {
    const d = await decide(request, env);
    if (d instanceof Response) return d;
    const headers = new Headers(request.headers);
    headers.set('x-foyer-visitor', d.visitor);
    const url = new URL(request.url);
    const to = env.ORIGIN ? new URL(url.pathname + url.search, env.ORIGIN) : url;
    return fetch(to, { method: request.method, headers, body: request.body, redirect: 'manual' });
  },
};
