// The audit's drand check in a real browser, on the server's pages under their CSP:
// web/js/drand.js and the @noble/curves files the binary embeds verify real recorded
// quicknet rounds and refuse a flipped bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Foyer } from '../lib/foyer.js';
import { launchBrowser, watchedPage } from './helpers.js';

const recorded = JSON.parse(readFileSync(new URL('../data/drand-quicknet-rounds.json', import.meta.url)));

test('the verify page can check quicknet rounds with the embedded BLS library', async (t) => {
  const foyer = new Foyer();
  t.after(() => foyer.cleanup());
  await foyer.start();
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const problems = [];
  const page = await watchedPage(await browser.newContext(), problems);
  await page.goto(`${foyer.url}/verify`);

  const results = await page.evaluate(async (rounds) => {
    const drand = await import('/js/drand.js');
    return rounds.map(({ round, signature }) => {
      const flipped = signature.slice(0, -1) + (parseInt(signature.at(-1), 16) ^ 1).toString(16);
      return {
        round,
        valid: drand.verifyRound(round, signature),
        flipped: drand.verifyRound(round, flipped),
        randomness: drand.randomness(signature),
      };
    });
  }, recorded.rounds);

  assert.equal(results.length, recorded.rounds.length);
  for (const [i, r] of results.entries()) {
    assert.deepEqual(r, { round: recorded.rounds[i].round, valid: true, flipped: false, randomness: recorded.rounds[i].randomness });
  }
  assert.deepEqual(problems, []);
});
