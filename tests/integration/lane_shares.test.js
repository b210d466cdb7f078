// Lanes say what they'll do: a general lane declared without a share takes what the others
// leave; the public getting none while other lanes have shares is refused, naming the
// field, unless written; the reload's log tells how the lanes change. One validator for
// the file and the admin API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Foyer, configText } from '../lib/foyer.js';

const TOKEN = 'lane-shares-admin-token-0123';
const room = (lanes) => ({ id: 'sale', name: 'Sale', rate_per_minute: 60, target_url: '/checkout', lanes });
const config = (lanes) => ({ server: { admin_token: TOKEN }, rooms: [room(lanes)] });
const shares = async (f, id = 'sale') =>
  (await f.request('GET', `/api/v1/rooms/${id}`)).json.lanes.map((l) => [l.id, l.share, l.entry]);
const admin = (f, method, path, body) =>
  f.request(method, `/api/v1/admin/rooms${path}`, { body, headers: { authorization: `Bearer ${TOKEN}` } });

test('the file: a declared general lane takes the rest, none for the public is refused unless written, reloads tell the lanes', async (t) => {
  // Made invite-only for the members' hour, as the README suggests, with no share written.
  const f = new Foyer(config({ general: { entry: 'invite' }, members: { share: 0.3 } }));
  t.after(() => f.cleanup());
  await f.start();
  assert.deepEqual(await shares(f), [['general', 0.7, 'invite'], ['members', 0.3, 'code']]);

  await f.reload(configText(config({ general: { entry: 'open' }, members: { share: 0.5 } })),
    /reload: room 'sale': changed lanes \(general: share 0\.7 -> 0\.5, entry invite -> open; members: share 0\.3 -> 0\.5\)/);
  assert.deepEqual(await shares(f), [['general', 0.5, 'open'], ['members', 0.5, 'code']]);

  // Members would take everything: refused, naming the share to write; the room is kept.
  await f.reload(configText(config({ general: { entry: 'open' }, members: { share: 1 } })),
    /lanes\.general\.share: the general \(public\) lane would get none of the admission.*lanes\.general\.share = 0/);
  assert.deepEqual(await shares(f), [['general', 0.5, 'open'], ['members', 0.5, 'code']]);
  await f.reload(configText(config({ vip: { share: 1 } })), /lanes\.general\.share: the general \(public\) lane would get none/);
  // Written, it is meant.
  await f.reload(configText(config({ general: { share: 0 }, members: { share: 1 } })),
    /reload: room 'sale': changed lanes \(general: share 0\.5 -> 0; members: share 0\.5 -> 1\)/);
  assert.deepEqual(await shares(f), [['general', 0, 'open'], ['members', 1, 'code']]);
  await f.stop();

  // At the start, the same refusal stops the server.
  const bad = new Foyer(config({ general: { name: 'Everyone' }, members: { share: 1 } }));
  t.after(() => bad.cleanup());
  const run = await bad.runOnce();
  assert.equal(run.code, 1, run.output);
  assert.match(run.output, /lanes\.general\.share.*would get none of the admission/);
});

test('the admin API: the same validator and the same rest', async (t) => {
  const f = new Foyer({ server: { admin_token: TOKEN }, rooms: [] });
  t.after(() => f.cleanup());
  await f.start();
  const refused = await admin(f, 'POST', '', { ...room({ general: { entry: 'invite' }, members: { share: 1 } }), id: 'api' });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.field, 'lanes.general.share');
  const created = await admin(f, 'POST', '', { ...room({ general: { entry: 'invite' }, members: { share: 0.25 } }), id: 'api' });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(await shares(f, 'api'), [['general', 0.75, 'invite'], ['members', 0.25, 'code']]);
  const starving = await admin(f, 'PATCH', '/api', { lanes: { general: { share: 0 }, members: { share: 1 } } });
  assert.equal(starving.status, 200, starving.text);
  assert.deepEqual(await shares(f, 'api'), [['general', 0, 'invite'], ['members', 1, 'code']]);
  const undeclared = await admin(f, 'POST', '', { ...room({ a: { share: 0.5 }, b: { share: 0.5 } }), id: 'api2' });
  assert.equal(undeclared.status, 422, undeclared.text);
  assert.equal(undeclared.json.field, 'lanes.general.share');
  await f.stop();
});
