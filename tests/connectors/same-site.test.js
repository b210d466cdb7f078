// The same-site rule for `next` has one source, web/js/bounce.js: the connectors' copies
// (connectors/same-site.mjs writes them) must be exactly it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const { COPIES, copies } = await import(path.join(repo, 'connectors/same-site.mjs'));

test('the Node connector and the Worker carry the same-site rule of web/js/bounce.js, unchanged', () => {
  assert.deepEqual(copies().map((c) => c.file), COPIES);
  for (const { file, now, wanted } of copies()) assert.equal(now, wanted, `${file}: run node connectors/same-site.mjs`);
});

test('the same-site rule is written nowhere else in the connectors that run JavaScript', () => {
  for (const file of COPIES) {
    const text = readFileSync(path.join(repo, file), 'utf8');
    assert.equal(text.split('function namesHost(').length, 2, `${file}: one namesHost, the generated one`);
    assert.equal(text.split('function sameSitePath(').length, 2, `${file}: one sameSitePath, the generated one`);
  }
});
