// Foyer pass connector for a CDN edge: a Cloudflare Worker (an ES module) that checks the
// visitor's pass offline with WebCrypto (Ed25519 and ECDSA P-256) against Foyer's JWKS,
// cached in the isolate, with the rules of `foyer guard`. It uses nothing but the Fetch API
// and crypto.subtle, so the same module is the pattern for any WebCrypto edge runtime
// (Deno Deploy, Vercel/Netlify edge functions, Fastly's JS compute).
//
// Bindings (wrangler.toml [vars]): FOYER_ISSUER, FOYER_ROOM, FOYER_JWKS_URL, FOYER_LOGIN_URL,
// ORIGIN (the scheme, host and port admitted requests go to, with their own path; on
// Cloudflare, the zone's own https://host, which a Worker's subrequest reaches behind its
// route); optional FOYER_LEEWAY (seconds, default 5), FOYER_REFRESH (seconds, default 300),
// FOYER_SECURE_COOKIE ("true"), and for done(): FOYER_URL and FOYER_SITE_TOKEN (a secret).
// Admitted requests go on with X-Foyer-Visitor: <visitor id>.

const MAX_TOKEN_SIZE = 8 * 1024;
const MAX_JWKS_SIZE = 64 * 1024;
const MAX_PASS_COOKIES = 4;
// Foyer takes at most 10 000 passes a report.
const MAX_DONE_PASSES = 10_000;
const MAX_DONE_ANSWER_SIZE = 4096;
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

// An answer's body as text, its reading stopped (and the answer dropped) past `max` bytes.
async function readCapped(res, max) {
  const reader = res.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      throw new Error(`larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  chunks.reduce((at, c) => (all.set(c, at), at + c.length), 0);
  return new TextDecoder().decode(all);
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
    // Within 5 s, and never more than 64 KiB + 1 bytes read, whatever the answer's size.
    // From this URL itself: a redirect is not followed (and refused as not 200).
    const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    cache = { url, keys: await loadKeys(await readCapped(res, MAX_JWKS_SIZE)), fetchedAt: Date.now() };
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

// Reports finished passes (their jti) so that their slots free at once, as the other
// connectors' done(): needs the bindings FOYER_URL (Foyer's base URL) and FOYER_SITE_TOKEN
// (a secret). Within 5 s, at most MAX_DONE_PASSES at a time; resolves to Foyer's answer,
// { done, active }. From a request: ctx.waitUntil(done([jti], env)).
export async function done(jtis, env) {
  if (!Array.isArray(jtis) || jtis.length > MAX_DONE_PASSES || jtis.some((j) => typeof j !== 'string')) {
    throw new Error(`passes/done: at most ${MAX_DONE_PASSES} jti strings at a time`);
  }
  const res = await fetch(`${env.FOYER_URL}/api/v1/rooms/${encodeURIComponent(env.FOYER_ROOM)}/passes/done`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.FOYER_SITE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ passes: jtis }),
    signal: AbortSignal.timeout(5000),
    redirect: 'manual',
  });
  if (!res.ok) throw new Error(`passes/done: HTTP ${res.status}`);
  return JSON.parse(await readCapped(res, MAX_DONE_ANSWER_SIZE));
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

// Where an admitted request goes: the origin's scheme, host and port, then the request's path
// and query. Joined as text, never resolved against the origin: resolving reads a path that
// starts with `//` (or `/\`, which URL parsers take for `//`) as another host, while after
// `scheme://host:port` a path that starts with '/' (as every http URL's does) stays a path.
export function upstreamUrl(origin, url) {
  return new URL(`${new URL(origin).origin}${url.pathname}${url.search}`);
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    // Required: without it the request's own URL would do, and its host is the client's
    // Host header wherever no route has chosen it: anyone with a pass could send the Worker,
    // cookies and all, to any host it can reach.
    if (!env.ORIGIN) {
      console.error('foyer-pass: ORIGIN is not set: no request goes on');
      return new Response('ORIGIN is not set\n', { status: 500 });
    }
    const to = upstreamUrl(env.ORIGIN, url);
    const d = await decide(request, env);
    if (d instanceof Response) return d;
    const headers = new Headers(request.headers);
    // The visitor id comes from the pass alone: under any name a shop could read as
    // X-Foyer-Visitor (CGI, PHP-FPM and many frameworks read '_' as '-').
    for (const name of [...headers.keys()]) if (name.replace(/_/g, '-') === 'x-foyer-visitor') headers.delete(name);
    headers.set('x-foyer-visitor', d.visitor);
    return fetch(to, { method: request.method, headers, body: request.body, redirect: 'manual' });
  },
};
