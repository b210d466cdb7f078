// The embedded pages as a browser gets them: validators, compression, security headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Foyer } from '../lib/foyer.js';

// node:http, not fetch: fetch asks for gzip and inflates by itself.
function get(port, path, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('pages carry an ETag, revalidate with 304, come gzipped when asked, and forbid framing and inline script', async () => {
  const f = new Foyer();
  try {
    await f.start();
    const plain = await get(f.port, '/r/demo');
    assert.equal(plain.status, 200);
    assert.match(plain.headers['content-type'], /^text\/html/);
    assert.match(plain.headers.etag, /^"[0-9a-f]{24}"$/);
    assert.equal(plain.headers['cache-control'], 'no-cache');
    assert.match(plain.headers['content-security-policy'], /script-src 'self';/);
    assert.match(plain.headers['content-security-policy'], /frame-ancestors 'none'/);
    assert.equal(plain.headers['x-frame-options'], 'DENY');
    assert.equal(plain.headers['x-content-type-options'], 'nosniff');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(plain.body.toString(), /<html/);

    const again = await get(f.port, '/r/demo', { 'If-None-Match': plain.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, plain.headers.etag);
    assert.equal((await get(f.port, '/r/demo', { 'If-None-Match': '"stale"' })).status, 200);

    const zipped = await get(f.port, '/r/demo', { 'Accept-Encoding': 'gzip' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers.vary, 'Accept-Encoding');
    assert.ok(zipped.body.length < plain.body.length);
    assert.deepEqual(gunzipSync(zipped.body), plain.body);

    const head = await get(f.port, '/r/demo', {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers['content-length']), plain.body.length);
    assert.equal(head.body.length, 0);

    // Each asset has its own validator.
    const script = await get(f.port, '/js/room.js');
    assert.equal(script.status, 200);
    assert.match(script.headers['content-type'], /javascript/);
    assert.notEqual(script.headers.etag, plain.headers.etag);
  } finally {
    await f.cleanup();
  }
});

test('the Content-Security-Policy is exactly the one docs/security.md states, and the README names its image rule', async () => {
  const docs = (name) => readFileSync(fileURLToPath(new URL(`../../${name}`, import.meta.url)), 'utf8');
  const stated = /^Content-Security-Policy: (.+)$/m.exec(docs('docs/security.md'))?.[1];
  assert.ok(stated, 'docs/security.md states the header');
  assert.match(docs('README.md'), /images\nfrom Foyer, `data:` and any `https:\/\/` origin/);
  const f = new Foyer();
  try {
    await f.start();
    for (const path of ['/', '/r/demo', '/verify', '/admin', '/js/room.js', '/css/site.css']) {
      assert.equal((await get(f.port, path)).headers['content-security-policy'], stated, path);
    }
  } finally {
    await f.cleanup();
  }
});

test('an unknown room is the waiting page saying so for a browser, and a problem for an API client', async () => {
  const f = new Foyer();
  try {
    await f.start();
    const browser = await get(f.port, '/r/dmeo', { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    assert.equal(browser.status, 404);
    assert.match(browser.headers['content-type'], /^text\/html/);
    assert.match(browser.body.toString(), /<html/);
    assert.equal(browser.headers.etag !== undefined, true);
    // No 304 for a page that says what is missing.
    const again = await get(f.port, '/r/dmeo', { Accept: 'text/html', 'If-None-Match': browser.headers.etag });
    assert.equal(again.status, 404);
    assert.match(again.body.toString(), /<html/);
    for (const accept of [undefined, 'application/json', '*/*']) {
      const api = await get(f.port, '/r/dmeo', accept ? { Accept: accept } : {});
      assert.equal(api.status, 404, accept);
      assert.equal(api.headers['content-type'], 'application/problem+json');
      assert.equal(JSON.parse(api.body.toString()).error, 'unknown_room');
    }
  } finally {
    await f.cleanup();
  }
});
