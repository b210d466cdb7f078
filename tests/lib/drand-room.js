// A drand room on the real binary whose committed round is the recorded quicknet round
// 30662982 (tests/data/drand-quicknet-rounds.json): the server's clock is put in the past
// (FOYER_TEST_CLOCK_OFFSET_MS) so that its lobby closes LEAD_MS after it starts and the
// round comes 30 s after that. The relays are the caller's (tests/lib/drand-relay.js).
import assert from 'node:assert/strict';

import { Foyer } from './foyer.js';

export const ROUND = 30662982;
export const roundTimeMs = (1692803367 + (ROUND - 1) * 3) * 1000;
export const closesAtMs = roundTimeMs - 30_000; // the room waits 30 s past its close for its round
export const LEAD_MS = 4000;

/** The configuration of room `drop` with these `relays`, and these `server` settings. */
export const drandConfig = (relays, server = {}) => ({
  server,
  ledger: { beacon_relays: relays },
  rooms: [{
    id: 'drop', name: 'Drop', rate_per_minute: 6000, target_url: '/welcome', beacon_rule: 'drand-quicknet',
    opens_at: new Date(closesAtMs).toISOString().replace(/\.\d+Z$/, 'Z'),
    // Seconds away, not the minute start-up asks for: the test means it.
    opens_at_in_past: 'accept',
  }],
});

/** Starts room `drop` with these `relays` and three entrants; the caller cleans it up. */
export async function drandRoom(relays) {
  const f = new Foyer(drandConfig(relays));
  await startShifted(f, closesAtMs - LEAD_MS - Date.now());
  for (let i = 0; i < 3; i++) assert.equal((await f.join('drop')).status, 201);
  return f;
}

/** Starts `f` with its clock `offsetMs` away from the real one. */
export async function startShifted(f, offsetMs) {
  process.env.FOYER_TEST_CLOCK_OFFSET_MS = String(Math.round(offsetMs));
  try {
    await f.start();
  } finally {
    delete process.env.FOYER_TEST_CLOCK_OFFSET_MS;
  }
}

/** Resolves once the round is out on the clock of rooms started at real time `started`, and a second more. */
export const roundIsOut = (started) => new Promise((resolve) => {
  setTimeout(resolve, Math.max(0, LEAD_MS + 30_000 - (Date.now() - started)) + 1000);
});

/** GET /api/v1/rooms/drop/lottery. */
export const lottery = async (f) => (await f.request('GET', '/api/v1/rooms/drop/lottery')).json;
