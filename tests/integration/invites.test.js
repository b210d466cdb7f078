// Invite tokens on the real binary: signed by the site with jose and with Python's
// cryptography, checked against the [invites] key set; single use by jti.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Foyer, repo } from '../lib/foyer.js';

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
