// Lanes on the real binary: a members' presale with access codes beside the general lane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Foyer, call, until } from '../lib/foyer.js';
import { solveSync } from '../../web/js/pow.js';

const admin = 'lanes-admin-token-0123456789';
const config = {
  server: { admin_token: admin },
  rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 60, target_url: '/checkout',
            lanes: { members: { name: 'Members', share: 0.3 } } }],
};

const codeDigest = (code) => createHash('sha256').update(code.replace(/-/g, '')).digest('hex');

async function generate(f, batch, count, extra = {}) {
  const res = await call(`${f.url}/api/v1/admin/rooms/sale/codes`, 'POST', { bearer: admin, body: { batch, lane: 'members', count, ...extra } });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

test('a presale lane with codes beside the general lane: codes redeemed once, kept through kill -9', async () => {
  const f = new Foyer(config);
  try {
    await f.start();
    const batch = await generate(f, 'members-1', 40);
    assert.equal(batch.codes, 40);
    assert.equal(batch.generated.length, 40);
    for (const code of batch.generated) assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    // A retry gives the same codes and writes nothing; other codes under its id are refused.
    assert.deepEqual((await generate(f, 'members-1', 40)).generated, batch.generated);
    const other = await call(`${f.url}/api/v1/admin/rooms/sale/codes`, 'POST', { bearer: admin, body: { batch: 'members-1', lane: 'members', count: 3 } });
    assert.equal(other.status, 409);
    assert.equal(other.json.error, 'code_batch_exists');

    // One answer for an unknown code and a malformed one.
    const unknown = await f.join('sale', { code: 'AAAA-AAAA-AAAA-AAAA' });
    const malformed = await f.join('sale', { code: 'not a code' });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.json.error, 'invalid_code');
    assert.equal(malformed.json.detail, unknown.json.detail);

    // Read aloud and typed back in lower case with spaces: the same code.
    const first = await f.join('sale', { code: batch.generated[0].toLowerCase().replace(/-/g, ' ') });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.lane, 'members');
    assert.equal(first.json.place, 0);
    const again = await f.join('sale', { code: batch.generated[0] });
    assert.equal(again.status, 403);
    assert.equal(again.json.error, 'invalid_code');
    const general = await f.join('sale');
    assert.equal(general.status, 201);
    assert.equal(general.json.place, 0);
    assert.equal(general.json.lane, 'general');

    // Redemptions in flight when the server dies: every one acknowledged is kept.
    const codes = batch.generated.slice(1, 31);
    let answered = 0;
    const attempts = codes.map((code) => f.join('sale', { code }).then(
      (res) => { answered += res.status === 201; return { code, res }; },
      () => ({ code, res: null })));
    await until('a redemption acknowledged', () => answered > 0);
    await f.kill9();
    const settled = await Promise.all(attempts);
    const acknowledged = settled.filter(({ res }) => res?.status === 201);
    await f.start();
    for (const { res } of acknowledged) {
      const st = await f.status(res.json.ticket, 'sale');
      assert.equal(st.status, 200, st.text);
      assert.equal(st.json.lane, 'members');
    }
    // Within the network's ten refusals a minute (three so far, two more below).
    for (const { code } of acknowledged.slice(0, 5)) {
      assert.equal((await f.join('sale', { code })).json.error, 'invalid_code', `acknowledged code ${code} redeemed again`);
    }
    // The export shows every code, its digest and its uses.
    const csv = await call(`${f.url}/api/v1/admin/rooms/sale/codes/members-1`, 'GET', { bearer: admin });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type'), /^text\/csv/);
    const rows = csv.text.trim().split('\r\n').slice(1).map((line) => line.split(','));
    assert.equal(rows.length, 40);
    const used = new Map(rows.map(([code, sha, uses]) => [code, Number(uses)]));
    for (const [code, sha] of rows) assert.equal(sha, codeDigest(code));
    assert.equal(used.get(batch.generated[0]), 1);
    for (const { code } of acknowledged) assert.equal(used.get(code), 1);
    const batches = await call(`${f.url}/api/v1/admin/rooms/sale/codes`, 'GET', { bearer: admin });
    assert.equal(batches.json.batches[0].codes_redeemed, [...used.values()].filter((n) => n > 0).length);

    // The lanes in the room's info, the frontier and the status.
    const info = (await f.request('GET', '/api/v1/rooms/sale')).json;
    assert.deepEqual(info.lanes.map((l) => [l.id, l.share, l.entry]), [['general', 0.7, 'open'], ['members', 0.3, 'code']]);
    const frontier = (await f.request('GET', '/api/v1/rooms/sale/frontier')).json;
    assert.ok(frontier.lanes.members.rate_per_minute > 0);
    const members = info.lanes[1];
    // Joins in flight at the kill may have landed unanswered: at least every acknowledged one.
    assert.ok(members.joined >= 1 + acknowledged.length && members.joined <= 31, String(members.joined));
    await until('the first member admitted', async () => (await f.status(first.json.ticket, 'sale')).json.state === 'admitted');
    // Its pass claimed by that poll: the lane's funnel counts it.
    await until('the member lane counts a claimed pass', async () =>
      (await f.request('GET', '/api/v1/rooms/sale')).json.lanes[1].claimed >= 1);
    assert.equal((await f.request('GET', '/api/v1/rooms/sale')).json.lanes[1].no_shows, 0);

    // A revoked batch takes no more joins; a code revoked alone neither.
    const unused = batch.generated.filter((code) => used.get(code) === 0);
    const one = await call(`${f.url}/api/v1/admin/rooms/sale/codes/members-1?code=${unused[0]}`, 'DELETE', { bearer: admin });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.codes_revoked, 1);
    assert.equal((await f.join('sale', { code: unused[0] })).json.error, 'invalid_code');
    const all = await call(`${f.url}/api/v1/admin/rooms/sale/codes/members-1`, 'DELETE', { bearer: admin });
    assert.equal(all.json.revoked, true);
    assert.equal((await f.join('sale', { code: unused[1] })).json.error, 'invalid_code');
  } finally {
    await f.cleanup();
  }
});

test('uploaded digests, a code for another lane only, and refused codes rate-limited per network', async () => {
  const f = new Foyer(config);
  try {
    await f.start();
    const mine = 'M3MB-ERS0-N7Y0-2026';
    const upload = await call(`${f.url}/api/v1/admin/rooms/sale/codes`, 'POST', {
      bearer: admin, body: { batch: 'upload', lane: 'members', uses_per_code: 2, sha256: [codeDigest(mine)] } });
    assert.equal(upload.status, 201, upload.text);
    assert.equal(upload.json.generated, undefined);
    // Used by two visitors, then no more.
    assert.equal((await f.join('sale', { code: mine })).status, 201);
    assert.equal((await f.join('sale', { code: mine })).status, 201);
    assert.equal((await f.join('sale', { code: mine })).json.error, 'invalid_code');
    // A batch for a lane that takes no codes is refused, naming the lane.
    const wrongLane = await call(`${f.url}/api/v1/admin/rooms/sale/codes`, 'POST', { bearer: admin, body: { batch: 'g', lane: 'general', count: 1 } });
    assert.equal(wrongLane.status, 422, wrongLane.text);
    assert.equal(wrongLane.json.field, 'lane');
    // Ten refusals a minute per network; then refused before any lookup, good code or not.
    let last;
    // The used-up code above was the first.
    for (let i = 0; i < 9; i++) last = await f.join('sale', { code: `ZZZZ-ZZZZ-ZZZZ-ZZ${String(i).padStart(2, '0')}` });
    assert.equal(last.json.error, 'invalid_code');
    const limited = await f.join('sale', { code: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ' });
    assert.equal(limited.status, 429);
    // Retry-After is the wait the detail names: a token comes back every six seconds.
    const wait = Number(/try again in (\d+) s/.exec(limited.json.detail)[1]);
    assert.ok(wait > 1, limited.json.detail);
    assert.equal(Number(limited.headers.get('retry-after')), wait);
    // Joins without a code are not limited.
    assert.equal((await f.join('sale')).status, 201);
  } finally {
    await f.cleanup();
  }
});

test('a refused code is refused before its proof is checked, and spends no challenge (as the README says)', async () => {
  const f = new Foyer({ ...config, proof_of_work: { base_bits: 8 } });
  try {
    await f.start();
    const [code] = (await generate(f, 'members-2', 1)).generated;
    const challenge = (await f.request('POST', '/api/v1/rooms/sale/challenge')).json.challenge;
    const proof = { challenge, nonce: solveSync(challenge).nonce };
    // A wrong code with a bad proof: the code is what is refused.
    const bad = await f.join('sale', { challenge, nonce: '0'.repeat(proof.nonce.length), code: 'AAAA-AAAA-AAAA-AAAA' });
    assert.equal(bad.json.error, 'invalid_code');
    // With the solved proof: refused for the code, and the proof is still good for the right one.
    assert.equal((await f.join('sale', { ...proof, code: 'AAAA-AAAA-AAAA-AAAA' })).json.error, 'invalid_code');
    const joined = await f.join('sale', { ...proof, code });
    assert.equal(joined.status, 201, joined.text);
    assert.equal(joined.json.lane, 'members');
  } finally {
    await f.cleanup();
  }
});
