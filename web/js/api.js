// JSON requests to the Foyer API, and patient retries: the pages keep their place
// through network drops, busy servers and restarts.

import { retryAfterMs, retryDelay } from './timing.js';

/**
 * One request, with `headers` added to its own; only a cacheable document (the
 * frontier) is asked with a `cache` mode other than 'no-store'. Resolves to {status,
 * ok, json, retryAfter (ms or null)} for every HTTP answer, errors included; rejects
 * only when no answer came (network down, server gone).
 */
export async function request(method, path, { bearer, body, headers: extra = {}, cache = 'no-store' } = {}) {
  const headers = { ...extra };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache,
  });
  let json = null;
  try {
    json = await res.json();
  } catch {
    // Not JSON (a proxy's error page, an empty body): the status alone speaks.
  }
  return { status: res.status, ok: res.ok, json, retryAfter: retryAfterMs(res.headers.get('retry-after'), Date.now()) };
}

/**
 * Waits `ms`, or less if the browser comes back online or the page becomes visible
 * again meanwhile (browsers slow the timers of hidden pages down to a minute).
 */
export function sleep(ms) {
  const doc = globalThis.document;
  return new Promise((resolve) => {
    const onVisible = () => {
      if (doc.visibilityState === 'visible') done();
    };
    const done = () => {
      clearTimeout(timer);
      globalThis.removeEventListener?.('online', done);
      doc?.removeEventListener('visibilitychange', onVisible);
      resolve();
    };
    const timer = setTimeout(done, ms);
    globalThis.addEventListener?.('online', done);
    doc?.addEventListener('visibilitychange', onVisible);
  });
}

// Answers worth waiting out: too many requests, slow request, and the server's own troubles.
const transient = (status) => status === 408 || status === 429 || status >= 500;

/**
 * Runs `attempt()` (which returns a request() promise) until it gets an answer that
 * is not transient, or that `settled(answer)` takes as final, and returns that answer.
 * Between tries it waits Retry-After when given, else backs off exponentially with
 * jitter, and tells `onWait(kind, ms)` with kind 'offline' (no answer) or 'busy' (a
 * transient answer); `onWait(null)` once through.
 */
export async function retrying(attempt, { onWait = () => {}, wait = sleep, random = Math.random, settled = () => false } = {}) {
  for (let failures = 0; ; failures++) {
    let res = null;
    try {
      res = await attempt();
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
    if (res && (!transient(res.status) || settled(res))) {
      onWait(null);
      return res;
    }
    const delay = retryDelay(res?.retryAfter ?? null, failures, random());
    onWait(res ? 'busy' : 'offline', delay);
    await wait(delay);
  }
}
