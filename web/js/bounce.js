// Loop detection: a site whose guard refuses the pass sends the visitor straight back
// to the waiting room, which would send them on again, for ever. The page remembers
// the pass it sent the visitor on with, and when; the same pass back too often within
// a short time stops the loop. Pure: the record, the pass and the time come in.

// Sends of one pass within this window that the site returned before the page stops.
export const BOUNCE_WINDOW_MS = 30_000;
export const MAX_SENDS = 2;
// The query parameter a guard adds to its redirect to the waiting room: why it refused.
export const REFUSAL_PARAM = 'foyer_refused';
const REASON_PATTERN = /^[a-z0-9_]{1,64}$/;

/** A pass's signature tail: enough to recognise it, without keeping the bearer token. */
export function passTag(pass) {
  return pass.slice(-16);
}

/**
 * Whether sending the visitor on with `pass` at `nowMs` would loop, given the `record`
 * {tag, sent: [ms]} of earlier sends (or null); returns {loop, record} with the record to keep.
 */
export function nextSend(record, pass, nowMs) {
  const tag = passTag(pass);
  const recent = record?.tag === tag ? record.sent.filter((at) => nowMs - at < BOUNCE_WINDOW_MS && at <= nowMs) : [];
  if (recent.length >= MAX_SENDS) return { loop: true, record: { tag, sent: recent } };
  return { loop: false, record: { tag, sent: [...recent, nowMs] } };
}

/** The refusal code the guard gave in the room page's query string, or 'unknown'. */
export function refusalReason(search) {
  const reason = new URLSearchParams(search).get(REFUSAL_PARAM);
  return reason && REASON_PATTERN.test(reason) ? reason : 'unknown';
}

// The query parameter naming the page of the site the visitor asked for, which the guard
// adds to its redirect to the waiting room, and reads back on the way in with the pass.
export const NEXT_PARAM = 'next';
// The guard's own rules (src/http/guard_handler.cpp same_site_path), so that the page never
// passes on what the guard would refuse.
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

/** The same-site page named by `next` in the room page's query string, or null. */
export function wantedPage(search) {
  return sameSitePath(new URLSearchParams(search).get(NEXT_PARAM));
}
