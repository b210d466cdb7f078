// The file's [[rooms]] are a declaration reconciled into the log: at start and on
// SIGHUP the difference is applied, or the whole file refused; history never changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';

import { Foyer, configText } from '../lib/foyer.js';

const demo = { id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' };
const inTwoHours = () => new Date(Date.now() + 2 * 3600 * 1000).toISOString();

async function joinMany(f, count, room = 'demo') {
  const tickets = [];
  for (let i = 0; i < count; i++) {
    const r = await f.join(room);
    assert.equal(r.status, 201, r.text);
    tickets.push(r.json.ticket);
  }
  return tickets;
}

test('opens_at added once FIFO visitors hold places is refused at start; every place stands', async () => {
  const f = new Foyer({ rooms: [demo] });
  try {
    await f.start();
    const tickets = await joinMany(f, 50);
    await f.stop();

    writeFileSync(f.configPath, configText({ rooms: [{ ...demo, opens_at: inTwoHours() }] }));
    const refused = await f.runOnce();
    assert.equal(refused.code, 1);
    assert.match(refused.output, /config: rooms\[0\]\.opens_at: room 'demo': cannot change once visitors hold places: 50 joined/);

    writeFileSync(f.configPath, configText({ rooms: [demo] }));
    await f.start();
    const info = await f.request('GET', '/api/v1/rooms/demo');
    assert.equal(info.json.state, 'open');
    assert.equal(info.json.joined, 50);
    for (const [i, ticket] of tickets.entries()) {
      const st = await f.status(ticket);
      assert.equal(st.status, 200);
      assert.equal(st.json.place, i);
    }
    assert.equal((await f.join()).json.place, 50);
  } finally {
    await f.cleanup();
  }
});

test('SIGHUP applies a good file: a new room, a new rate, and both survive kill -9', async () => {
  const f = new Foyer({ rooms: [{ ...demo, rate_per_minute: 600 }] });
  try {
    await f.start();
    await joinMany(f, 3);
    const out = await f.reload(
      { rooms: [{ ...demo, rate_per_minute: 1200 }, { id: 'extra', name: 'Extra', target_url: '/welcome' }] },
      /reload: created room 'extra'[\s\S]*reload: room 'demo': changed rate_per_minute"/,
    );
    assert.doesNotMatch(out, /refused|kept/);
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.rate_per_minute, 1200);
    assert.equal((await f.request('GET', '/api/v1/rooms/extra')).status, 200);
    assert.equal((await f.join('extra')).json.place, 0);

    // The same file again changes nothing.
    await f.reload(
      { rooms: [{ ...demo, rate_per_minute: 1200 }, { id: 'extra', name: 'Extra', target_url: '/welcome' }] },
      /reload: the rooms are as the file declares them/,
    );
    await f.kill9();
    await f.start();
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.rate_per_minute, 1200);
    assert.equal((await f.request('GET', '/api/v1/rooms/extra')).json.joined, 1);
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.joined, 3);
  } finally {
    await f.cleanup();
  }
});

test('SIGHUP with a bad file refuses it whole, names the problem, and keeps the running rooms', async () => {
  const f = new Foyer({ rooms: [demo] });
  try {
    await f.start();
    await joinMany(f, 2);
    const before = (await f.request('GET', '/api/v1/rooms')).json;

    await f.reload('[[rooms]]\nid = "demo"\nrate_per_minute = \n', /reload: config: .*foyer\.toml:3:.*; the running rooms are kept/);
    await f.reload(
      { rooms: [{ ...demo, rate_per_minute: 120 }, { id: 'second', rate_per_minute: 0, target_url: '/x' }] },
      /reload: config: rooms\[1\]\.rate_per_minute: must be a whole number from 1 to 10000000; the running rooms are kept/,
    );
    await f.reload({ rooms: [{ ...demo, target_url: '//evil.example/' }] }, /reload: config: rooms\[0\]\.target_url: must be/);
    // A change that would alter what visitors hold: refused, naming the field.
    await f.reload(
      { rooms: [{ ...demo, rate_per_minute: 120, opens_at: inTwoHours() }] },
      /reload: config: rooms\[0\]\.opens_at: room 'demo': cannot change once visitors hold places: 2 joined/,
    );
    // Dropping a room that people wait in.
    await f.reload({ rooms: [{ id: 'other', target_url: '/welcome' }] }, /reload: config: rooms: room 'demo' is no longer declared but 2 visitors are waiting/);

    assert.deepEqual((await f.request('GET', '/api/v1/rooms')).json, before);
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.rate_per_minute, 1);
    assert.equal((await f.request('GET', '/api/v1/rooms/second')).status, 404);
  } finally {
    await f.cleanup();
  }
});

test('a room dropped from the file when nobody waits is removed, and its id is never used again', async () => {
  const keep = { id: 'keep', target_url: '/welcome' };
  const f = new Foyer({ rooms: [keep, { ...demo, rate_per_minute: 600 }] });
  try {
    await f.start();
    const [ticket] = await joinMany(f, 1);
    // At 600 a minute the one visitor is admitted within a tenth of a second.
    for (let i = 0; i < 100 && (await f.status(ticket)).json.state !== 'admitted'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await f.reload({ rooms: [keep] }, /reload: removed room 'demo' \(no longer in the file\)/);
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).status, 404);
    await f.reload({ rooms: [keep, demo] }, /reload: config: rooms\[1\]\.id: room 'demo' was deleted, and a room's id is never used again/);
    await f.kill9();
    const r = await f.runOnce();
    assert.equal(r.code, 1);
    assert.match(r.output, /rooms\[1\]\.id: room 'demo' was deleted/);
  } finally {
    await f.cleanup();
  }
});

test('an opening in the past is refused at start and on reload unless the file means it; once set it loads again', async () => {
  const past = new Date(Date.now() - 3600e3).toISOString();
  const late = { id: 'late', target_url: '/welcome', opens_at: past };
  const f = new Foyer({ rooms: [demo, late] });
  try {
    const refused = await f.runOnce();
    assert.equal(refused.code, 1);
    assert.match(refused.output, /config: rooms\[1\]\.opens_at: room 'late': .* is in the past .*opens_at_in_past = \\"accept\\"/);
    writeFileSync(f.configPath, configText({ rooms: [demo] }));
    await f.start();
    await f.reload({ rooms: [demo, late] }, /reload: config: rooms\[1\]\.opens_at: room 'late': .* is in the past/);
    assert.equal((await f.request('GET', '/api/v1/rooms/late')).status, 404);
    await f.reload({ rooms: [demo, { ...late, opens_at_in_past: 'accept' }] }, /reload: created room 'late'/);
    assert.equal((await f.request('GET', '/api/v1/rooms/late')).status, 200);
    // Without the word: the opening is not new, so a restart loads the room unchanged.
    await f.stop();
    writeFileSync(f.configPath, configText({ rooms: [demo, late] }));
    await f.start();
    assert.equal((await f.request('GET', '/api/v1/rooms/late')).status, 200);
  } finally {
    await f.cleanup();
  }
});

test('a reload after a console change says which live changes stand, not that the rooms are as the file declares', async () => {
  const token = 'rooms-file-admin-token-0123';
  const config = { server: { admin_token: token }, rooms: [demo] };
  const f = new Foyer(config);
  try {
    await f.start();
    const patched = await f.request('PATCH', '/api/v1/admin/rooms/demo',
      { body: { rate_per_minute: 120 }, headers: { authorization: `Bearer ${token}` } });
    assert.equal(patched.status, 200, patched.text);
    const out = await f.reload(config, /reload: room 'demo': the live change to rate_per_minute stands/);
    assert.doesNotMatch(out, /as the file declares them/);
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.rate_per_minute, 120);
  } finally {
    await f.cleanup();
  }
});
