// The README's pictures come from the browser tests: each one the README shows is taken
// by a test, and a run writes it where the README looks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { screenshot } from '../browser/helpers.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const browserTests = path.join(repo, 'tests/browser');

test('every screenshot the README shows is taken by a browser test for the README', () => {
  const shown = [...readFileSync(path.join(repo, 'README.md'), 'utf8').matchAll(/\]\((tests\/browser\/screenshots\/[^)]+\.png)\)/g)]
    .map((m) => m[1]);
  assert.ok(shown.length > 0);
  const sources = readdirSync(browserTests).filter((f) => f.endsWith('.test.js'))
    .map((f) => readFileSync(path.join(browserTests, f), 'utf8')).join('\n');
  for (const picture of shown) {
    const name = path.basename(picture, '.png');
    assert.match(sources, new RegExp(`screenshot\\(\\w+, '${name}', \\{ commit: true`), `${picture} is taken by a test`);
  }
});

test('a run writes the README\'s copy, with no setting to ask for it', async () => {
  const written = [];
  const page = { screenshot: async ({ path: file }) => { written.push(path.relative(repo, file)); } };
  await screenshot(page, 'room', { commit: true });
  await screenshot(page, 'lobby');
  assert.deepEqual(written, ['tests/artifacts/room.png', 'tests/browser/screenshots/room.png', 'tests/artifacts/lobby.png']);
});
