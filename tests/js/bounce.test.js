import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BOUNCE_WINDOW_MS, nextSend, passTag, refusalReason, sameSitePath, wantedPage } from '../../web/js/bounce.js';

const PASS = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ2In0.c2lnbmF0dXJlLW9mLXRoZS1wYXNzLWVuZHMtaGVyZQ';

test('the same pass sent twice and back again within the window is a loop', () => {
  let step = nextSend(null, PASS, 1000);
  assert.deepEqual(step, { loop: false, record: { tag: passTag(PASS), sent: [1000] } });
  step = nextSend(step.record, PASS, 3000);
  assert.equal(step.loop, false);
  step = nextSend(step.record, PASS, 5000);
  assert.equal(step.loop, true);
  assert.deepEqual(step.record.sent, [1000, 3000]);
});

test('a new pass, or sends older than the window, start afresh', () => {
  const record = { tag: passTag(PASS), sent: [1000, 2000] };
  assert.equal(nextSend(record, `${PASS}x`, 3000).loop, false);
  assert.deepEqual(nextSend(record, PASS, 1000 + BOUNCE_WINDOW_MS).record.sent, [2000, 1000 + BOUNCE_WINDOW_MS]);
  assert.equal(nextSend(record, PASS, 2000 + BOUNCE_WINDOW_MS).loop, false);
  // A clock set back does not keep sends from the future.
  assert.equal(nextSend(record, PASS, 500).loop, false);
});

test('the record keeps only a tail of the pass, not the token', () => {
  assert.equal(passTag(PASS).length, 16);
  assert.ok(!JSON.stringify(nextSend(null, PASS, 0).record).includes(PASS.slice(0, 20)));
});

test('the refusal reason comes from the guard\'s parameter, or is unknown', () => {
  assert.equal(refusalReason('?foyer_refused=wrong_issuer'), 'wrong_issuer');
  assert.equal(refusalReason('?a=1&foyer_refused=expired'), 'expired');
  assert.equal(refusalReason(''), 'unknown');
  assert.equal(refusalReason('?foyer_refused=<b>x</b>'), 'unknown');
  assert.equal(refusalReason(`?foyer_refused=${'a'.repeat(65)}`), 'unknown');
});

test("next: the page asked for, kept when it is a same-site path by the guard's rules", () => {
  assert.equal(wantedPage('?next=%2Fshop%2Fitem%3Fid%3D7'), '/shop/item?id=7');
  assert.equal(wantedPage('?foyer_refused=expired&next=/cart'), '/cart');
  assert.equal(wantedPage(''), null);
  for (const evil of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', 'evil.example',
    '/%2F%2Fevil.example', '/%252F%252Fevil.example', '/.//evil.example', '/%2e%2e/%2F%2Fevil.example', '/%09/evil.example',
    '/a b', '/caf\u00e9', `/${'a'.repeat(2048)}`]) {
    assert.equal(sameSitePath(evil), null, evil);
    assert.equal(wantedPage(`?next=${encodeURIComponent(evil)}`), null, evil);
  }
  assert.equal(sameSitePath(`/${'a'.repeat(2047)}`), `/${'a'.repeat(2047)}`);
});
