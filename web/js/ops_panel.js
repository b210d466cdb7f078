// The console's live line of operations: joins and admissions a second over all rooms,
// and the degradation ladder's level, from GET /api/v1/admin/ops (admin token).
import { strings as s } from './strings.js';
import { request } from './api.js';
import { setText } from './page.js';

const OPS_PATH = '/api/v1/admin/ops';

let last = null;

/**
 * Joins and admissions a second between two samples {joined, served, at}; null without
 * an earlier sample. A total that fell (a room was deleted) counts as no change.
 */
export function opsRates(previous, current) {
  if (!previous || current.at <= previous.at) return null;
  const seconds = (current.at - previous.at) / 1000;
  return {
    joins: Math.max(0, current.joined - previous.joined) / seconds,
    admissions: Math.max(0, current.served - previous.served) / seconds,
  };
}

/** Samples the server and shows the line; quiet when the server does not answer. */
export async function updateOps(token) {
  let res;
  try {
    res = await request('GET', OPS_PATH, { bearer: token });
  } catch {
    return;
  }
  if (!res.ok) return;
  const rates = opsRates(last, res.json);
  last = res.json;
  setText('ops', s.opsLine(rates, res.json.overload_level));
}

export function resetOps() {
  last = null;
  setText('ops', '');
}
