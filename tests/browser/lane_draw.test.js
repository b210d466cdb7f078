// A lottery room with a members' lane in a real browser: each lane draws its own places
// at the opening. A members' receipt pasted on the verify page is checked against the
// lane's own draw and shows the lane and the place within it, which is the place the
// server gave; the page shows how the lanes share admission; the whole-draw audit checks
// both lanes' draws.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { call, Foyer } from '../lib/foyer.js';
import { eventually, joinByApi, launchBrowser, screenshot, watchedPage } from './helpers.js';

const ADMIN_TOKEN = 'lane-draw-token-0123456789';

test('a lane visitor\'s receipt verifies against the lane\'s draw, and the audit checks both lanes', async (t) => {
  const opensAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600_000);
  const foyer = new Foyer({
    server: { admin_token: ADMIN_TOKEN },
    rooms: [{
      id: 'launch', name: 'Launch day', rate_per_minute: 1, target_url: '/welcome',
      opens_at: opensAt.toISOString().replace('.000Z', 'Z'),
      lanes: { members: { name: "Members' presale", share: 0.3 } },
    }],
  });
  t.after(() => foyer.cleanup());
  await foyer.start();
  const codes = await call(`${foyer.url}/api/v1/admin/rooms/launch/codes`, 'POST',
    { bearer: ADMIN_TOKEN, body: { batch: 'members-1', lane: 'members', count: 3 } });
  assert.equal(codes.status, 201, codes.text);
  for (let i = 0; i < 5; i++) await joinByApi(foyer, 'launch');
  const members = [];
  for (const code of codes.json.generated) {
    const res = await foyer.join('launch', { code });
    assert.equal(res.status, 201, res.text);
    members.push(res.json);
  }
  const visitor = members[1];
  assert.equal(visitor.receipt.lane, 'members');
  assert.equal(visitor.receipt.lobby_index, 1, 'the index is within the lane');

  const closed = await foyer.request('POST', '/api/v1/admin/rooms/launch/close-lobby',
    { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(closed.status, 200);
  const lottery = await eventually(async () => {
    const res = await foyer.request('GET', '/api/v1/rooms/launch/lottery');
    return res.json.lanes?.members?.seed ? res.json : null;
  }, { what: 'the lanes drawn' });
  assert.equal(lottery.lobby_size, 5);
  assert.equal(lottery.lanes.members.lobby_size, 3);
  const status = await eventually(async () => {
    const res = await foyer.status(visitor.ticket, 'launch');
    return res.json.place != null ? res.json : null;
  }, { what: 'the visitor\'s place' });
  assert.equal(status.lane, 'members');

  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext({ viewport: { width: 900, height: 1000 } }), problems);
  await page.goto(`${foyer.url}/verify?room=launch`);
  await page.locator('#seed-check.pass').waitFor();
  // How the lanes share admission, and the members' own draw beside the room's.
  assert.match(await page.locator('#lanes-share').textContent(), /Members' presale 30 % \(now \d+ %\)/);
  const laneDraw = page.locator('#lane-draws [data-lane="members"]');
  assert.match(await laneDraw.textContent(), /Lane: Members' presale/);
  assert.ok((await laneDraw.textContent()).includes(lottery.lanes.members.commitment));
  await laneDraw.locator('.result.pass').waitFor();

  await page.locator('#receipt').fill(JSON.stringify(visitor.receipt));
  await page.getByRole('button', { name: 'Check this receipt' }).click();
  await page.locator('#place-result[data-place]').waitFor();
  assert.equal(await page.locator('#verdict').getAttribute('class'), 'result pass');
  assert.equal(await page.locator('.checks .pass').count(), 6, 'the lane and all five checks pass, the signature included');
  assert.equal(Number(await page.locator('#place-result').getAttribute('data-place')), status.place);
  assert.equal(await page.locator('#place-result').getAttribute('data-lane'), 'members');
  assert.match(await page.locator('#place-result').textContent(), /^This receipt’s lane: Members' presale\. Its number in the lane’s queue: /);
  await screenshot(page, 'verify-lane-receipt');

  // The same receipt claiming the general lane fails.
  const { lane: _, ...asGeneral } = visitor.receipt;
  await page.locator('#receipt').fill(JSON.stringify(asGeneral));
  await page.getByRole('button', { name: 'Check this receipt' }).click();
  await page.locator('#verdict.fail').waitFor();

  // The whole draw: the general lane's checks and the members' own.
  await page.locator('#audit').click();
  await page.locator('#audit-verdict.pass, #audit-verdict.fail, #audit-verdict.absent').waitFor({ timeout: 30_000 });
  const failed = await page.locator('#audit-checks li:has(.fail)').allTextContents();
  assert.deepEqual(failed, []);
  // The verdict says what is absent; everything else passed.
  assert.equal(await page.locator('#audit-verdict').getAttribute('class'), 'result absent');
  // Nothing pinned, no witness and no beacon: those checks are absent, never "passed".
  const absent = await page.locator('#audit-checks li:has(.absent)').allTextContents();
  assert.deepEqual(absent.map((text) => text.split(':')[0]), ['Ledger key', 'Witness keys', 'Witnesses saw the commitment',
    'Witnesses saw the close', 'Beacon', 'Lobby closed before the beacon', 'Seed revealed after the witnesses']);
  assert.match(await page.locator('[data-check="places"][data-lane="members"]').textContent(),
    /Every place, lane Members' presale: passed.*all 3 places recomputed/s);
  assert.match(await page.locator('[data-check="places"]:not([data-lane])').textContent(), /all 5 places recomputed/);
  assert.equal(await page.locator('#audit-checks li[data-lane="members"]').count(), 6);
  assert.match(await page.locator('#fr-lanes').textContent(), /People in lane Members' presale’s lobby3/);
  const commit = await page.locator('#timeline svg g.event.commit title').textContent();
  assert.match(commit, /commit · 2 lanes\n.*Members' presale/);
  await screenshot(page, 'verify-lane-audit');
  assert.deepEqual(problems, []);
});
