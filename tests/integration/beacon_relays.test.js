// A drand room's draw and the relays it asks (docs/fairness.md, "The beacon: drand
// quicknet"): the server cannot check a round's BLS signature, so it claims the grinding
// guarantee only when two configured relays agree on the round. Real binary, the loopback
// relay serving recorded quicknet rounds (tests/lib/drand-relay.js), and the server's clock
// put in the past (FOYER_TEST_CLOCK_OFFSET_MS) so that the recorded round comes 30 s after
// the lobby's close.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { startDrandRelay } from '../lib/drand-relay.js';
import { Foyer, until } from '../lib/foyer.js';

const ROUND = 30662982; // recorded in tests/data/drand-quicknet-rounds.json
const roundTimeMs = (1692803367 + (ROUND - 1) * 3) * 1000;
const closesAtMs = roundTimeMs - 30_000; // the room waits 30 s past its close for its round
const LEAD_MS = 4000;

// A drand room whose lobby closes LEAD_MS from now on the server's clock, with `relays`.
async function drandRoom(relays) {
  const offsetMs = closesAtMs - LEAD_MS - Date.now();
  const f = new Foyer({
    ledger: { beacon_relays: relays },
    rooms: [{
      id: 'drop', name: 'Drop', rate_per_minute: 6000, target_url: '/welcome', beacon_rule: 'drand-quicknet',
      opens_at: new Date(closesAtMs).toISOString().replace(/\.\d+Z$/, 'Z'), opens_at_in_past: 'accept',
    }],
  });
  process.env.FOYER_TEST_CLOCK_OFFSET_MS = String(Math.round(offsetMs));
  try {
    await f.start();
  } finally {
    delete process.env.FOYER_TEST_CLOCK_OFFSET_MS;
  }
  for (let i = 0; i < 3; i++) assert.equal((await f.join('drop')).status, 201);
  return f;
}

const lottery = async (f) => (await f.request('GET', '/api/v1/rooms/drop/lottery')).json;
// Real time until the server's clock reaches the round, and a little more.
const roundIsOut = (started) => new Promise((resolve) => setTimeout(resolve, Math.max(0, LEAD_MS + 30_000 - (Date.now() - started)) + 1000));

test('two relays that agree: the draw goes ahead and the guarantee rests on them, not on a BLS check', async (t) => {
  const relay = await startDrandRelay();
  t.after(() => relay.close());
  const started = Date.now();
  const [agreeing, lying, single] = await Promise.all([
    drandRoom([relay.url, `${relay.url}/`]),
    drandRoom([relay.url, `${relay.url}/mendable`]),
    drandRoom([`${relay.url}/forged`]),
  ]);
  t.after(async () => {
    for (const f of [agreeing, lying, single]) await f.cleanup();
  });

  // Before the round: no guarantee claimed yet, in any room.
  for (const f of [agreeing, lying, single]) {
    const draw = (await lottery(f)).draw;
    assert.equal(draw.grinding_guarantee, false);
    assert.equal(draw.beacon_verified, false);
    assert.equal(draw.beacon_check, 'none');
    assert.match(draw.grinding_note, /two configured relays agree/);
  }
  await roundIsOut(started);

  // Agreeing relays: drawn, the guarantee claimed on their agreement.
  await until('the agreeing room draws', async () => (await lottery(agreeing)).seed != null, 15_000);
  const agreed = await lottery(agreeing);
  assert.equal(agreed.draw.beacon_check, 'two_relays');
  assert.equal(agreed.draw.beacon_verified, false);
  assert.equal(agreed.draw.grinding_guarantee, true);
  assert.equal(agreed.draw.grinding_note, undefined);

  // One relay configured, and it forges: drawn on its word, with no guarantee claimed.
  await until('the single-relay room draws', async () => (await lottery(single)).seed != null, 15_000);
  const alone = await lottery(single);
  assert.equal(alone.draw.beacon_check, 'none');
  assert.equal(alone.draw.grinding_guarantee, false);
  assert.match(alone.draw.grinding_note, /one relay that no second relay confirmed/);
  assert.notEqual(alone.beacon, agreed.beacon);

  // One of two relays lies: no draw while they disagree, and the log says why.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const waiting = await lottery(lying);
  assert.equal(waiting.state, 'drawing');
  assert.equal(waiting.seed, null);
  assert.equal(waiting.draw.grinding_guarantee, false);
  assert.match(lying.output, /relays gave different rounds/);
  // Once it answers honestly, the two agree and the room draws with the true round.
  relay.mend();
  await until('the mended room draws', async () => (await lottery(lying)).seed != null, 15_000);
  const mended = await lottery(lying);
  assert.equal(mended.draw.beacon_check, 'two_relays');
  assert.equal(mended.draw.grinding_guarantee, true);
  assert.equal(mended.beacon, agreed.beacon);

  // The check survives a restart (the log's beacon event and the snapshot carry it).
  await agreeing.stop();
  process.env.FOYER_TEST_CLOCK_OFFSET_MS = String(closesAtMs - LEAD_MS - started);
  try {
    await agreeing.start();
  } finally {
    delete process.env.FOYER_TEST_CLOCK_OFFSET_MS;
  }
  assert.equal((await lottery(agreeing)).draw.beacon_check, 'two_relays');
});
