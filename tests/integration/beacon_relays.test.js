// A drand room's draw and the relays it asks (docs/fairness.md, "Who checks what"): the
// server cannot check a round's BLS signature, so it claims the grinding guarantee only
// when two independent configured relays agree on the round, and with two or more
// configured it never draws on one relay's word. Real binary, loopback relays serving
// recorded quicknet rounds (tests/lib/drand-relay.js), rooms whose committed round is a
// recorded one (tests/lib/drand-room.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  closesAtMs, drandConfig, drandRoom, LEAD_MS, lottery, ROUND, roundIsOut, roundTimeMs, startShifted,
} from '../lib/drand-room.js';
import { recorded, startDrandRelay } from '../lib/drand-relay.js';
import { Foyer, until } from '../lib/foyer.js';

const admin_token = 'test-admin-token-0123456789';

test('two URLs of one relay server are refused at start: their agreement would be no independent check', async (t) => {
  const relay = await startDrandRelay();
  t.after(() => relay.close());
  const port = new URL(relay.url).port;
  for (const second of [relay.url, `${relay.url}/`, `${relay.url}/mendable`, `http://127.0.0.1:${port}/x/`]) {
    const f = new Foyer(drandConfig([relay.url, second]));
    t.after(() => f.cleanup());
    const { code, output } = await f.runOnce();
    assert.notEqual(code, 0, second);
    assert.match(output, /beacon_relays\[1\].*same relay as beacon_relays\[0\] \(http:\/\/127\.0\.0\.1:\d+\)/, second);
  }
});

test('two relays that agree: the draw goes ahead and the guarantee rests on them, named, not on a BLS check', async (t) => {
  const relay = await startDrandRelay();
  const other = await startDrandRelay();
  t.after(() => Promise.all([relay.close(), other.close()]));
  const started = Date.now();
  const [agreeing, lying, single] = await Promise.all([
    drandRoom([relay.url, `${other.url}/`]),
    drandRoom([relay.url, `${other.url}/mendable`]),
    drandRoom([`${relay.url}/forged`]),
  ]);
  t.after(async () => {
    for (const f of [agreeing, lying, single]) await f.cleanup();
  });
  // A single relay: said plainly at start and in room info.
  assert.match(single.output, /one drand relay configured \(http:\/\/127\.0\.0\.1:\d+\): a single relay gives no guarantee/);
  assert.doesNotMatch(agreeing.output, /a single relay gives no guarantee/);

  // Before the round: no guarantee claimed yet, in any room.
  for (const f of [agreeing, lying, single]) {
    const draw = (await lottery(f)).draw;
    assert.equal(draw.grinding_guarantee, false);
    assert.equal(draw.beacon_verified, false);
    assert.equal(draw.beacon_check, 'none');
    assert.equal(draw.beacon_relays, undefined);
    assert.match(draw.grinding_note, f === single ? /A single relay gives no guarantee/ : /two configured relays agree/);
  }
  await roundIsOut(started);

  // Agreeing relays: drawn, the guarantee claimed on their agreement, and who agreed named.
  await until('the agreeing room draws', async () => (await lottery(agreeing)).seed != null, 15_000);
  const agreed = await lottery(agreeing);
  assert.equal(agreed.draw.beacon_check, 'two_relays');
  assert.equal(agreed.draw.beacon_verified, false);
  assert.equal(agreed.draw.grinding_guarantee, true);
  assert.equal(agreed.draw.grinding_note, undefined);
  assert.equal(agreed.draw.beacon_waiting, undefined);
  assert.deepEqual(agreed.draw.beacon_relays, [relay.url, other.url]);
  assert.match(agreeing.output, /on which relays http:\/\/127\.0\.0\.1:\d+ and http:\/\/127\.0\.0\.1:\d+ agreed/);

  // One relay configured, and it forges: drawn on its word, with no guarantee claimed.
  await until('the single-relay room draws', async () => (await lottery(single)).seed != null, 15_000);
  const alone = await lottery(single);
  assert.equal(alone.draw.beacon_check, 'none');
  assert.equal(alone.draw.grinding_guarantee, false);
  assert.equal(alone.draw.beacon_relays, undefined);
  assert.match(alone.draw.grinding_note, /^No two relays confirmed the drand round the draw used/);
  assert.notEqual(alone.beacon, agreed.beacon);

  // One of two relays lies: no draw while they disagree, and room info and the log say why.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const waiting = await lottery(lying);
  assert.equal(waiting.state, 'drawing');
  assert.equal(waiting.seed, null);
  assert.equal(waiting.draw.grinding_guarantee, false);
  assert.match(waiting.draw.beacon_waiting, new RegExp(`two configured relays to agree on drand round ${ROUND}`));
  assert.match(lying.output, /relays gave different rounds/);
  // Once it answers honestly, the two agree and the room draws with the true round.
  other.mend();
  await until('the mended room draws', async () => (await lottery(lying)).seed != null, 15_000);
  const mended = await lottery(lying);
  assert.equal(mended.draw.beacon_check, 'two_relays');
  assert.equal(mended.draw.grinding_guarantee, true);
  assert.equal(mended.beacon, agreed.beacon);

  // The check and the relays survive a restart (the log's beacon event and the snapshot carry them).
  await agreeing.stop();
  await startShifted(agreeing, closesAtMs - LEAD_MS - started);
  const restarted = (await lottery(agreeing)).draw;
  assert.equal(restarted.beacon_check, 'two_relays');
  assert.deepEqual(restarted.beacon_relays, [relay.url, other.url]);
});

test('a second relay knocked offline never lets one relay\'s answer through, however long: the operator supplies the round', async (t) => {
  const relay = await startDrandRelay();
  const other = await startDrandRelay();
  t.after(() => Promise.all([relay.close(), other.close()]));
  // The second relay fails every ask (404); the clock is well past the round, so any
  // wait for a second relay would be over long ago.
  const f = new Foyer(drandConfig([`${relay.url}/forged`, `${other.url}/gone`], { admin_token }));
  t.after(() => f.cleanup());
  await startShifted(f, roundTimeMs + 200_000 - Date.now());
  const retry = 'only one relay gave it, and the draw waits for a second to agree';
  await until('the draw says it waits for a second relay', async () => f.output.includes(retry), 10_000);
  await new Promise((resolve) => setTimeout(resolve, 7000));  // two more tries, 3 s apart
  const waiting = await lottery(f);
  assert.equal(waiting.state, 'drawing');
  assert.equal(waiting.draw.beacon_round, ROUND);
  assert.equal(waiting.seed, null);
  assert.equal(waiting.draw.grinding_guarantee, false);
  assert.match(waiting.draw.beacon_waiting, /never goes ahead on one relay's word/);
  // Logged once, not at every try: the next line comes a minute later with the count.
  assert.equal(f.output.split(retry).length - 1, 1);

  // The operator supplies the true round: drawn, with no check behind it and no guarantee.
  const { signature } = recorded.rounds.find((r) => r.round === ROUND);
  const supplied = await f.request('POST', '/api/v1/admin/rooms/drop/beacon', {
    headers: { authorization: `Bearer ${admin_token}` }, body: { value: signature },
  });
  assert.equal(supplied.status, 200, supplied.text);
  await until('the supplied round draws', async () => (await lottery(f)).seed != null, 15_000);
  const drawn = (await lottery(f)).draw;
  assert.equal(drawn.beacon_check, 'none');
  assert.equal(drawn.grinding_guarantee, false);
  assert.equal(drawn.beacon_relays, undefined);
  assert.equal(drawn.beacon_waiting, undefined);
});
