// The icon: every page links one, and /favicon.ico (which browsers ask for anyway) answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Foyer } from '../lib/foyer.js';

const PAGES = ['/', '/r/demo', '/verify', '/admin', '/welcome'];

test('every page links an icon that answers as an image, and /favicon.ico answers too', async (t) => {
  const f = new Foyer();
  t.after(() => f.cleanup());
  await f.start();
  const icons = new Set(['/favicon.ico']);
  for (const page of PAGES) {
    const html = await (await fetch(f.url + page)).text();
    const link = /<link rel="icon" href="([^"]+)"/.exec(html);
    assert.ok(link, `${page} links an icon`);
    icons.add(link[1]);
  }
  for (const icon of icons) {
    const res = await fetch(f.url + icon);
    assert.equal(res.status, 200, icon);
    assert.match(res.headers.get('content-type'), /^image\//, icon);
    assert.match(await res.text(), /^<svg /, icon);
  }
});
