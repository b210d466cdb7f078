// A lottery room drawn by the real binary with neither beacon nor witnesses: joins, then
// the operator closes the lobby and the draw is revealed at once. For the tests of what
// the audit says of absent guarantees.
import assert from 'node:assert/strict';

import { Foyer } from './foyer.js';

const admin_token = 'test-admin-token-0123456789';

/**
 * Starts the server with room `tatkal`, draws it with `entrants` entrants, and `members`
 * more in a lane `members` of its own draw (joined with access codes); the server is
 * cleaned up after test `t`.
 * @returns {Promise<{foyer: Foyer, room: string, vkey: string}>}
 */
export async function drawnRoom(t, { entrants = 20, members = 0 } = {}) {
  const opensAt = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const room = { id: 'tatkal', name: 'Tatkal', rate_per_minute: 60000, target_url: '/welcome', opens_at: opensAt };
  if (members > 0) room.lanes = { members: { name: 'Members', share: 0.3 } };
  const f = new Foyer({ server: { admin_token }, ledger: { origin: 'tickets.example/foyer/ledger' }, rooms: [room] });
  t.after(() => f.cleanup());
  await f.start();
  const headers = { authorization: `Bearer ${admin_token}` };
  for (let i = 0; i < entrants; i++) assert.equal((await f.join('tatkal')).status, 201);
  if (members > 0) {
    const codes = (await f.request('POST', '/api/v1/admin/rooms/tatkal/codes', { headers, body: { batch: 'm', lane: 'members', count: members } })).json;
    for (const code of codes.generated) assert.equal((await f.join('tatkal', { code })).status, 201);
  }
  const closed = await f.request('POST', '/api/v1/admin/rooms/tatkal/close-lobby', { headers });
  assert.equal(closed.status, 200, closed.text);
  return { foyer: f, room: 'tatkal', vkey: (await f.request('GET', '/api/v1/ledger')).json.vkey };
}
