// The library files the pages import (@noble/curves and @noble/hashes, from web/node_modules,
// embedded by cmake/embed_web.cmake) as the binary serves them: at versioned /vendor/ paths,
// as JavaScript, cached for a year; every import of every served script resolves to a
// served file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Foyer } from '../lib/foyer.js';

const version = (name) =>
  JSON.parse(readFileSync(new URL(`../../web/node_modules/@noble/${name}/package.json`, import.meta.url))).version;

test('web/js/drand.js and every file it imports are served, the libraries at versioned paths cached for a year', async (t) => {
  const f = new Foyer();
  t.after(() => f.cleanup());
  await f.start();

  const drand = await fetch(`${f.url}/js/drand.js`);
  assert.equal(drand.status, 200);
  assert.equal(drand.headers.get('cache-control'), 'no-cache');
  const text = await drand.text();
  assert.match(text, new RegExp(`from '/vendor/@noble/curves@${version('curves')}/bls12-381\\.js'`));
  assert.match(text, new RegExp(`from '/vendor/@noble/hashes@${version('hashes')}/sha2\\.js'`));
  assert.doesNotMatch(text, /from '@noble\//);

  // Every import of every script reached from drand.js, followed over HTTP.
  const pending = ['/js/drand.js'];
  const seen = new Set();
  while (pending.length) {
    const path = pending.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    const res = await fetch(`${f.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type'), /^text\/javascript/, path);
    if (path.startsWith('/vendor/')) {
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', path);
    }
    const body = await res.text();
    assert.doesNotMatch(body, /^(import|export|})[^'"\n]* from ['"]@/m, `${path} has a bare specifier`);
    for (const [, spec] of body.matchAll(/^(?:import|export|})[^'"\n]* from ['"]([^'"]+)['"]/gm)) {
      pending.push(new URL(spec, `${f.url}${path}`).pathname);
    }
  }
  assert.ok([...seen].some((p) => p.endsWith('/abstract/bls.js')), [...seen].join(' '));
  assert.ok([...seen].some((p) => p.startsWith('/vendor/@noble/hashes@')), [...seen].join(' '));

  // npm's own files are not served.
  for (const path of ['/package.json', '/package-lock.json', '/node_modules/@noble/curves/package.json']) {
    assert.equal((await fetch(`${f.url}${path}`)).status, 404, path);
  }
});
