// Invite tokens on the real binary: signed by the site with jose and with Python's
// cryptography, checked against the [invites] key set, inline or fetched by URL from a
// site on loopback; single use by jti.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Foyer, repo, until, startTrusting } from '../lib/foyer.js';

const now = () => Math.floor(Date.now() / 1000);

async function siteKey(kid) {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA' } };
}

function mint(key, claims, { exp = now() + 600 } = {}) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: key.kid }).setExpirationTime(exp).sign(key.privateKey);
}

function mintWithPython(kid, claims) {
  const out = execFileSync('python3', [path.join(repo, 'tests/lanes/mint_invites.py')], {
    input: JSON.stringify({ kid, claims }),
    cwd: path.join(repo, 'tests/lanes'),
  });
  return JSON.parse(out);
}

test('an invite-only room: no token, no join; tokens from two libraries; a wrong key, an expired token and a replayed jti refused', async () => {
  const site = await siteKey('site-1');
  const stranger = await siteKey('site-1');
  const python = mintWithPython('py-1', [{ sub: 'carol', room: 'launch', jti: 'p-1', exp: now() + 600 }]);
  const f = new Foyer({
    invites: { jwks: JSON.stringify({ keys: [site.jwk, python.jwk] }) },
    rooms: [
      { id: 'launch', name: 'Launch', rate_per_minute: 600, target_url: '/shop',
        lanes: { general: { entry: 'invite' }, press: { entry: 'invite', share: 0.2 } } },
      { id: 'rail', name: 'Rail', rate_per_minute: 600, target_url: '/book', agents_barred_seconds: 3600 },
      { id: 'club', name: 'Club', rate_per_minute: 600, target_url: '/club', lanes: { general: { entry: 'invite' } } },
    ],
  });
  try {
    await f.start();
    // A room whose one lane takes invites says so, before any visitor spends a proof of work.
    const club = (await f.request('GET', '/api/v1/rooms/club')).json;
    assert.deepEqual(club.lanes.map((l) => [l.id, l.entry]), [['general', 'invite']]);
    assert.equal((await f.request('GET', '/api/v1/rooms/rail')).json.lanes, undefined);
    const none = await f.join('launch');
    assert.equal(none.status, 403);
    assert.equal(none.json.error, 'invite_required');

    const alice = await f.join('launch', { invite: await mint(site, { sub: 'alice', room: 'launch', jti: 'a-1' }) });
    assert.equal(alice.status, 201, alice.text);
    assert.equal(alice.json.lane, 'general');
    const press = await f.join('launch', { invite: await mint(site, { sub: 'reporter', room: 'launch', lane: 'press', jti: 'r-1' }) });
    assert.equal(press.status, 201, press.text);
    assert.equal(press.json.lane, 'press');
    const carol = await f.join('launch', { invite: python.tokens[0] });
    assert.equal(carol.status, 201, carol.text);

    // Each refused with the one answer a code gets.
    const refused = {
      'a replayed jti': await mint(site, { sub: 'bob', room: 'launch', jti: 'a-1' }),
      'a wrong key': await mint(stranger, { sub: 'bob', room: 'launch', jti: 'b-1' }),
      'an expired token': await mint(site, { sub: 'bob', room: 'launch', jti: 'b-2' }, { exp: now() - 3600 }),
      'another room': await mint(site, { sub: 'bob', room: 'rail', jti: 'b-3' }),
      'a lane that takes no invites': await mint(site, { sub: 'bob', room: 'launch', lane: 'nowhere', jti: 'b-4' }),
    };
    for (const [why, invite] of Object.entries(refused)) {
      const res = await f.join('launch', { invite });
      assert.equal(res.status, 403, `${why}: ${res.text}`);
      assert.equal(res.json.error, 'invalid_code', why);
    }
    // The same account again gets its entry back, whatever the token.
    const again = await f.join('launch', { invite: await mint(site, { sub: 'alice', room: 'launch', jti: 'a-2' }) });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.existing, true);
    assert.equal(again.json.visitor_id, alice.json.visitor_id);

    // A restart keeps the jtis used.
    await f.kill9();
    await f.start();
    const replay = await f.join('launch', { invite: await mint(site, { sub: 'dave', room: 'launch', jti: 'r-1' }) });
    assert.equal(replay.json.error, 'invalid_code');

    // The agent rule keeps agents out of the room's first hour; others join.
    const agent = await f.join('rail', { invite: await mint(site, { sub: 'agent-7', room: 'rail', jti: 'g-1', agent: true }) });
    assert.equal(agent.status, 403);
    assert.equal(agent.json.error, 'agent_window');
    const traveller = await f.join('rail', { invite: await mint(site, { sub: 'traveller', room: 'rail', jti: 'g-2' }) });
    assert.equal(traveller.status, 201, traveller.text);
  } finally {
    await f.cleanup();
  }
});

test('a key set that is not one is refused at start, naming [invites].jwks', async () => {
  const f = new Foyer({ invites: { jwks: '{"keys": "none"}' } });
  try {
    const { code, output } = await f.runOnce();
    assert.notEqual(code, 0);
    assert.match(output, /invites\.jwks: invalid JWKS/);
  } finally {
    await f.cleanup();
  }
});

// The site's key set over HTTPS on loopback, with a fresh self-signed certificate for
// 127.0.0.1 (`cert`, for a Foyer that is to trust it). It answers `site.status` with
// `site.body`, as the test sets them, and counts the fetches.
async function jwksSite() {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-jwks-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-days', '1', '-subj', '/CN=foyer-test', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert],
  { stdio: 'ignore' });
  const site = { status: 200, body: '', fetches: 0, cert };
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    site.fetches++;
    res.writeHead(site.status, { 'content-type': 'application/json' }).end(site.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.url = `https://127.0.0.1:${server.address().port}/.well-known/jwks.json`;
  site.serve = (...keys) => { site.status = 200; site.body = JSON.stringify({ keys: keys.map((k) => k.jwk) }); };
  site.close = async () => {
    await new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); });
    rmSync(dir, { recursive: true, force: true });
  };
  return site;
}

const inviteRoom = { id: 'launch', name: 'Launch', rate_per_minute: 600, target_url: '/shop', lanes: { general: { entry: 'invite' } } };

// The fetches counted by outcome, as /metrics says.
async function fetchCount(f, outcome) {
  const text = (await f.request('GET', '/metrics')).text;
  const m = new RegExp(`^foyer_invite_keys_fetches_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

test('keys by URL: invites wait (503) for the first good fetch; a rotated key is fetched when a token names it', async () => {
  const site = await jwksSite();
  const first = await siteKey('2024-a');
  const rotated = await siteKey('2024-b');
  site.status = 500;
  const f = new Foyer({ invites: { jwks_url: site.url, refresh_seconds: 3600 }, rooms: [inviteRoom] });
  try {
    await startTrusting(f, site.cert);
    await until('a failed fetch', async () => (await fetchCount(f, 'failed')) >= 1);
    const early = await f.join('launch', { invite: await mint(first, { sub: 'alice', room: 'launch', jti: 'a-1' }) });
    assert.equal(early.status, 503, early.text);
    assert.equal(early.json.error, 'invite_keys_unavailable');
    assert.ok(Number(early.headers.get('retry-after')) > 0);
    assert.match(f.output, /invite keys: https:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json: answered 500; invites are answered 503/);

    // The site comes back: the retry picks its keys up, and the same token joins.
    site.serve(first);
    await until('a good fetch', async () => (await fetchCount(f, 'ok')) === 1);
    const alice = await f.join('launch', { invite: await mint(first, { sub: 'alice', room: 'launch', jti: 'a-1' }) });
    assert.equal(alice.status, 201, alice.text);
    assert.match(f.output, /invite keys: 1 key\(s\) in use/);

    // The site rotates its key. The interval is an hour: the first token under the new
    // kid is refused, and has the keys fetched again at once; the next joins.
    site.serve(rotated);
    const fetchesBefore = site.fetches;
    const miss = await f.join('launch', { invite: await mint(rotated, { sub: 'bob', room: 'launch', jti: 'b-1' }) });
    assert.equal(miss.status, 403, miss.text);
    assert.equal(miss.json.error, 'invalid_code');
    await until('the early fetch', async () => (await fetchCount(f, 'ok')) === 2);
    assert.equal(site.fetches, fetchesBefore + 1);
    const bob = await f.join('launch', { invite: await mint(rotated, { sub: 'bob', room: 'launch', jti: 'b-2' }) });
    assert.equal(bob.status, 201, bob.text);
    // The old key left the set.
    const old = await f.join('launch', { invite: await mint(first, { sub: 'carol', room: 'launch', jti: 'c-1' }) });
    assert.equal(old.json.error, 'invalid_code');
  } finally {
    await f.cleanup();
    await site.close();
  }
});

test('keys by URL: a failed or bad fetch keeps the keys in use, and is counted', async () => {
  const site = await jwksSite();
  const key = await siteKey('k1');
  site.serve(key);
  const f = new Foyer({ invites: { jwks_url: site.url, refresh_seconds: 1 }, rooms: [inviteRoom] });
  try {
    await startTrusting(f, site.cert);
    await until('a good fetch', async () => (await fetchCount(f, 'ok')) >= 1);
    const alice = await f.join('launch', { invite: await mint(key, { sub: 'alice', room: 'launch', jti: 'a-1' }) });
    assert.equal(alice.status, 201, alice.text);

    site.status = 503;
    await until('a failed fetch', async () => (await fetchCount(f, 'failed')) >= 1);
    const bob = await f.join('launch', { invite: await mint(key, { sub: 'bob', room: 'launch', jti: 'b-1' }) });
    assert.equal(bob.status, 201, bob.text);
    assert.match(f.output, /invite keys: .*answered 503; keeping the keys in use/);

    site.status = 200;
    site.body = JSON.stringify({ keys: [] });
    await until('a bad fetch', async () => (await fetchCount(f, 'invalid')) >= 1);
    const carol = await f.join('launch', { invite: await mint(key, { sub: 'carol', room: 'launch', jti: 'c-1' }) });
    assert.equal(carol.status, 201, carol.text);
    const metrics = (await f.request('GET', '/metrics')).text;
    assert.match(metrics, /^foyer_invite_keys 1$/m);
  } finally {
    await f.cleanup();
    await site.close();
  }
});

test('[invites] takes its keys inline or by URL, not both; by URL, https unless the address is private', async () => {
  const jwk = (await siteKey('k1')).jwk;
  const cases = [
    [{ jwks: JSON.stringify({ keys: [jwk] }), jwks_url: 'https://shop.example.com/jwks.json' }, /invites\.jwks_url: give the site's keys inline \(jwks\) or by URL \(jwks_url\), not both/],
    [{ jwks_url: 'http://shop.example.com/jwks.json' }, /invites\.jwks_url: http:\/\/ only to a loopback or private address/],
    [{ jwks_url: 'https://shop.example.com/jwks.json', refresh_seconds: 0 }, /invites\.refresh_seconds: must be a whole number from 1 to 86400/],
    [{ jwks: JSON.stringify({ keys: [jwk] }), refresh_seconds: 60 }, /invites\.refresh_seconds: applies to keys fetched by URL/],
  ];
  for (const [invites, expected] of cases) {
    const f = new Foyer({ invites });
    try {
      const { code, output } = await f.runOnce();
      assert.notEqual(code, 0);
      assert.match(output, expected);
    } finally {
      await f.cleanup();
    }
  }
});
