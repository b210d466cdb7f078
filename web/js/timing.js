// When to ask the server again: polls, back-off after failures, Retry-After, and the
// server's clock. Pure: randomness and time come in as arguments.

// Whatever the server suggests, never poll faster or slower than this.
const MIN_POLL_MS = 500;
const MAX_POLL_MS = 60_000;
// Client-side spread on top of the server's, so that a crowd drifts apart.
const POLL_JITTER = 0.1;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
// Retry-After is a minimum; spread the returns of a crowd over a fifth more.
const RETRY_AFTER_SPREAD = 0.2;

/** The wait before the next poll: the server's poll_after_ms ±10 %. `random` in [0, 1). */
export function pollDelay(pollAfterMs, random) {
  const base = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, Number(pollAfterMs) || MIN_POLL_MS));
  return Math.round(base * (1 - POLL_JITTER + 2 * POLL_JITTER * random));
}

// Polls of the frontier, far from the front, as the server spaces status polls
// (core/rooms/status.cpp): a tenth of the expected wait, from a second to thirty.
const FAR_POLL_MIN_MS = 1000;
const FAR_POLL_MAX_MS = 30_000;
// After a draw or a reopening the first request waits up to this long more, so that
// a crowd does not arrive on the same millisecond.
const START_JITTER_MS = 200;

/** The wait before the next frontier poll `position` places from the front at `ratePerMinute`. */
export function farPollDelay(position, ratePerMinute, random) {
  const waitMs = ((position + 1) * 60_000) / Math.max(1, ratePerMinute);
  const base = Math.min(FAR_POLL_MAX_MS, Math.max(FAR_POLL_MIN_MS, Math.floor(waitMs / 10)));
  return pollDelay(base, random);
}

/** The extra wait, 0 to 200 ms, of the first request after a draw or a reopening. */
export function startJitter(random) {
  return Math.floor(random * START_JITTER_MS);
}

/** Exponential back-off with jitter after `attempt` failures in a row (0 = the first). */
export function backoffDelay(attempt, random) {
  const base = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(attempt, 16));
  return Math.round(base / 2 + (random * base) / 2);
}

/** A Retry-After header (seconds or an HTTP date) in milliseconds from `nowMs`; null when absent or unreadable. */
export function retryAfterMs(header, nowMs) {
  if (header == null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The wait before retrying a failed request: Retry-After when the server gave one, else back-off. */
export function retryDelay(retryAfter, attempt, random) {
  if (retryAfter != null) return Math.round(retryAfter * (1 + RETRY_AFTER_SPREAD * random));
  return backoffDelay(attempt, random);
}

/**
 * The most the server's clock can be ahead of ours, from one request sent at `sentMs`
 * that the server answered with its time `serverMs`: it read its clock after we sent.
 * Countdowns to the server's deadlines (a hold's expiry) use this bound rather than the
 * round trip's midpoint, so a slow answer never shows a visitor more time than is left.
 */
export function clockOffset(sentMs, serverMs) {
  return serverMs - sentMs;
}
