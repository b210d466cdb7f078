// The docs point only at what a clone of the repository has: every relative Markdown link
// resolves to a file, and no doc sends a reader to a path outside the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

test('every relative link in the docs names a file of the repository', () => {
  const broken = [];
  for (const doc of docs) {
    const text = readFileSync(path.join(root, doc), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const file = path.resolve(path.dirname(path.join(root, doc)), target.split('#')[0]);
      if (!file.startsWith(root) || !existsSync(file)) broken.push(`${doc}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the lottery specification is in the repository and the docs cite it there', () => {
  assert.ok(existsSync(path.join(root, 'docs/fairness.md')));
  for (const doc of docs) {
    assert.doesNotMatch(readFileSync(path.join(root, doc), 'utf8'), /shared\/FAIRNESS\.md/, doc);
  }
});
