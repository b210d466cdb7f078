// A drand room's draw and the relays it asks (docs/fairness.md, "Who checks what"): the
// server cannot check a round's BLS signature, so it claims the grinding guarantee only
// when two configured relays agree on the round. Real binary, the loopback relay serving
// recorded quicknet rounds (tests/lib/drand-relay.js), rooms whose committed round is a
// recorded one (tests/lib/drand-room.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { closesAtMs, drandRoom, LEAD_MS, lottery, roundIsOut, startShifted } from '../lib/drand-room.js';
import { startDrandRelay } from '../lib/drand-relay.js';
import { until } from '../lib/foyer.js';

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
  assert.match(alone.draw.grinding_note, /^No two relays confirmed the drand round the draw used/);
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
  await startShifted(agreeing, closesAtMs - LEAD_MS - started);
  assert.equal((await lottery(agreeing)).draw.beacon_check, 'two_relays');
});
