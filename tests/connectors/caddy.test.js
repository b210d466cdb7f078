// Caddy (Debian's caddy) with the snippet connectors/caddy/foyer.caddy in front of an
// upstream, asking a real `foyer guard`, with a real `foyer serve` as the waiting room: a
// forged visitor id, and a live key rotation. The vectors, the visitor's walk and the
// contract are in tests/connectors/conformance.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo, until } from '../lib/foyer.js';
import { Guard, admit, freePort, startUpstream } from '../nginx/harness.js';
import { rotateKey, startDriver, startFoyer, vectors } from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-caddy-'));
let foyer;
let guard;
let upstream;
let caddy;
let siteUrl;
let loginUrl;

before(async () => {
  foyer = await startFoyer();
  loginUrl = `${foyer.url}/r/${vectors.room}`;
  guard = await new Guard(['--jwks', `${foyer.url}/.well-known/jwks.json`, '--room', vectors.room,
    '--issuer', vectors.issuer, '--login-url', loginUrl]).start();
  upstream = await startUpstream();
  const port = await freePort();
  siteUrl = `http://127.0.0.1:${port}`;
  const caddyfile = path.join(dir, 'Caddyfile');
  writeFileSync(caddyfile, `{
	admin off
	auto_https off
}
import ${path.join(repo, 'connectors/caddy/foyer.caddy')}
${siteUrl} {
	route /shop/* {
		import foyer_protect 127.0.0.1:${guard.port}
		reverse_proxy 127.0.0.1:${upstream.port}
	}
	respond "open"
}
`);
  caddy = await startDriver('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    pattern: /(serving initial configuration)/, env: { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
  });
});

after(async () => {
  await caddy?.stop();
  await guard?.stop();
  await upstream?.close();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('an X-Foyer-Visitor the client sent never reaches the upstream', async () => {
  const { pass, visitor } = await admit(foyer, vectors.room);
  const res = await fetch(`${siteUrl}/shop/`, { headers: { cookie: `foyer_pass=${pass}`, 'x-foyer-visitor': 'forged' } });
  assert.equal((await res.json()).visitor, visitor);
});

test('a live rotation: a pass of the new key passes Caddy once the guard refreshes, one of the old key still does', async () => {
  const { before, after } = await rotateKey(foyer);
  const get = (pass) => fetch(`${siteUrl}/shop/`, { headers: { cookie: `foyer_pass=${pass}` }, redirect: 'manual' });
  // The guard fetches the keys early for an unknown kid, at most every 10 s.
  await until('the guard takes the new key', async () => (await get(after.pass)).status === 200, 15000);
  for (const { pass, visitor } of [before, after]) {
    const res = await get(pass);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).visitor, visitor);
  }
});
