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
