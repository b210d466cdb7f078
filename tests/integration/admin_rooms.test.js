// Rooms created, changed and removed at runtime through the admin API: every change is
// an event in the log, validated as the file is, and nothing given to a visitor changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Foyer } from '../lib/foyer.js';

const TOKEN = 'admin-rooms-test-token-0123';
const demo = { id: 'demo', name: 'Demo', rate_per_minute: 1, target_url: '/welcome' };
const admin = (f, method, path, body, headers = {}) =>
  f.request(method, `/api/v1/admin/rooms${path}`, { body, headers: { authorization: `Bearer ${TOKEN}`, ...headers } });

function assertProblem(r, status, code, field) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.equal(r.json.error, code);
  assert.equal(r.json.status, status);
  assert.equal(r.json.type, `urn:foyer:problem:${code}`);
  assert.equal(typeof r.json.detail, 'string');
  if (field) assert.equal(r.json.field, field);
}

async function withFoyer(fn) {
  const f = new Foyer({ server: { admin_token: TOKEN }, rooms: [demo] });
  try {
    await f.start();
    await fn(f);
  } finally {
    await f.cleanup();
  }
}

test('a room created at runtime survives kill -9 with no file entry, every ticket in its place', () =>
  withFoyer(async (f) => {
    const created = await admin(f, 'POST', '', { id: 'sale', name: 'Sale', rate_per_minute: 1, target_url: 'https://shop.example/buy', stock: 20 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.owner, 'api');
    assert.equal(created.json.config.target_url, 'https://shop.example/buy');
    assert.equal(created.json.config.opens_at, null);
    const tickets = [];
    for (let i = 0; i < 5; i++) tickets.push((await f.join('sale')).json.ticket);
    await f.kill9();
    await f.start();
    const info = await f.request('GET', '/api/v1/rooms/sale');
    assert.equal(info.status, 200);
    assert.equal(info.json.joined, 5);
    for (const [i, ticket] of tickets.entries()) assert.equal((await f.status(ticket, 'sale')).json.place, i);
    assert.equal((await admin(f, 'GET', '/sale')).json.config.stock, 20);
    // The file never declared it, and a reload leaves it alone.
    await f.reload({ server: { admin_token: TOKEN }, rooms: [{ ...demo, name: 'Renamed' }] }, /reload: room 'demo': changed name/);
    assert.equal((await f.request('GET', '/api/v1/rooms/sale')).status, 200);
    await f.reload(
      { server: { admin_token: TOKEN }, rooms: [demo, { id: 'sale', target_url: '/x' }] },
      /reload: config: rooms\[1\]\.id: room 'sale' was created through the admin API/,
    );
  }));

test('bad settings are refused with the validator the file uses, as problem details naming the field', () =>
  withFoyer(async (f) => {
    assertProblem(await admin(f, 'POST', '', { id: 'x', rate_per_minute: 0, target_url: '/go' }), 422, 'invalid_room', 'rate_per_minute');
    assertProblem(await admin(f, 'POST', '', { id: 'x', rate_per_minute: 1.5, target_url: '/go' }), 422, 'invalid_room', 'rate_per_minute');
    assertProblem(await admin(f, 'POST', '', { id: 'x', target_url: '//evil.example/' }), 422, 'invalid_room', 'target_url');
    assertProblem(await admin(f, 'POST', '', { id: 'x', target_url: '/go', logo_url: 'http://cdn.example/l.png' }), 422, 'invalid_room', 'logo_url');
    assertProblem(await admin(f, 'POST', '', { id: 'x', target_url: '/go', opens_at: '2026-12-01T10:00:00' }), 422, 'invalid_room', 'opens_at');
    assertProblem(await admin(f, 'POST', '', { id: 'x', target_url: '/go', colour: '#fff' }), 422, 'invalid_room', 'colour');
    assertProblem(await admin(f, 'POST', '', { id: 'x' }), 422, 'invalid_room', 'target_url');
    assertProblem(await admin(f, 'POST', '', { id: 'Bad Id', target_url: '/go' }), 422, 'invalid_room', 'id');
    assertProblem(await admin(f, 'POST', '', '[1, 2]'), 400, 'bad_body');
    assertProblem(await admin(f, 'POST', '', 'not json'), 400, 'bad_body');
    // As curl -d sends it without -H: the harness would label it JSON, so fetch it here.
    const form = await fetch(`${f.url}/api/v1/admin/rooms`, {
      method: 'POST', body: 'id=x', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    const formText = await form.text();
    assertProblem({ status: form.status, headers: form.headers, text: formText, json: JSON.parse(formText) }, 415, 'unsupported_media_type');
    assertProblem(await admin(f, 'POST', '', { id: 'demo', target_url: '/go' }), 409, 'room_exists', 'id');
    // Values of every other kind, at any depth, are refused naming their key, and the
    // server goes on answering.
    for (const [body, field] of [
      ['{"id":"x","target_url":"/go","rate_per_minute":{"a":[1,2,{"b":null}]}}', 'rate_per_minute'],
      ['{"id":"x","target_url":"/go","rate_per_minute":[60]}', 'rate_per_minute'],
      ['{"id":"x","target_url":"/go","rate_per_minute":1e30}', 'rate_per_minute'],
      ['{"id":"x","target_url":"/go","rate_per_minute":99999999999999999999999}', 'rate_per_minute'],
      ['{"id":"x","target_url":"/go","rate_per_minute":-5}', 'rate_per_minute'],
      ['{"id":"x","target_url":"/go","rate_per_minute":true}', 'rate_per_minute'],
      ['{"id":"x","target_url":"/go","name":42}', 'name'],
      ['{"id":"x","target_url":"/go","name":"a\\u0000b"}', 'name'],
      ['{"id":null,"target_url":"/go"}', 'id'],
      ['{"id":"x","target_url":"/go","stock":"12"}', 'stock'],
    ]) {
      assertProblem(await admin(f, 'POST', '', body), 422, 'invalid_room', field);
    }
    for (const body of ['', '{', '{"id":', '"x"', 'null', '{"id":"x",}']) {
      assertProblem(await admin(f, 'POST', '', body), 400, 'bad_body');
    }
    const escaped = await admin(f, 'POST', '', '{"id":"x\\u0079","name":"caf\\u00e9 \\"q\\"","target_url":"/go","id":"xy"}');
    assert.equal(escaped.status, 201, escaped.text);
    assert.equal(escaped.json.id, 'xy');
    assert.equal(escaped.json.name, 'café "q"');
    assert.equal((await f.request('GET', '/api/v1/rooms/x')).status, 404);
    // Without the token nothing is said about the room.
    assertProblem(await f.request('POST', '/api/v1/admin/rooms', { body: { id: 'y', target_url: '/go' } }), 401, 'admin_token_required');
  }));

test('PATCH changes the rate at once with the frontier continuous, and refuses what visitors hold', () =>
  withFoyer(async (f) => {
    await admin(f, 'POST', '', { id: 'fast', rate_per_minute: 600, target_url: '/welcome' });
    for (let i = 0; i < 40; i++) await f.join('fast');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = (await f.request('GET', '/api/v1/rooms/fast/frontier')).json;
    const patched = await admin(f, 'PATCH', '/fast', { rate_per_minute: 60 });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.rate_per_minute, 60);
    const at = (await f.request('GET', '/api/v1/rooms/fast/frontier')).json;
    assert.ok(at.served >= before.served, `the frontier went back: ${before.served} -> ${at.served}`);
    // 600 a minute is 10 a second: no more than the elapsed time at the old rate.
    assert.ok(at.served - before.served <= Math.ceil(((at.at - before.at) / 1000) * 10) + 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const later = (await f.request('GET', '/api/v1/rooms/fast/frontier')).json;
    // At one a second now.
    assert.ok(later.served - at.served <= Math.ceil((later.at - at.at) / 1000) + 1, `${at.served} -> ${later.served}`);
    assert.ok(later.served >= at.served);
    assert.equal(later.rate_per_minute, 60);

    const refused = await admin(f, 'PATCH', '/fast', { opens_at: new Date(Date.now() + 3600e3).toISOString() });
    assertProblem(refused, 409, 'change_refused', 'opens_at');
    assert.match(refused.json.detail, /40 joined first come, first served/);
    assertProblem(await admin(f, 'PATCH', '/fast', { id: 'other' }), 409, 'change_refused', 'id');
    assertProblem(await admin(f, 'PATCH', '/fast', { pass_ttl_seconds: 1 }), 422, 'invalid_room', 'pass_ttl_seconds');
    const unset = await admin(f, 'PATCH', '/fast', { stock: 7 });
    assert.equal(unset.json.config.stock, 7);
    assert.equal((await admin(f, 'PATCH', '/fast', { stock: null })).json.config.stock, null);
    assertProblem(await admin(f, 'PATCH', '/nowhere', { stock: 1 }), 404, 'unknown_room');
  }));

test('a live change to a file room stands until the file changes that setting', () =>
  withFoyer(async (f) => {
    assert.equal((await admin(f, 'PATCH', '/demo', { rate_per_minute: 300 })).json.owner, 'file');
    await f.reload({ server: { admin_token: TOKEN }, rooms: [{ ...demo, name: 'New name' }] }, /reload: room 'demo': changed name"/);
    let info = (await f.request('GET', '/api/v1/rooms/demo')).json;
    assert.equal(info.rate_per_minute, 300);
    assert.equal(info.name, 'New name');
    await f.reload({ server: { admin_token: TOKEN }, rooms: [{ ...demo, name: 'New name', rate_per_minute: 90 }] }, /reload: room 'demo': changed rate_per_minute"/);
    info = (await f.request('GET', '/api/v1/rooms/demo')).json;
    assert.equal(info.rate_per_minute, 90);
  }));

test('DELETE needs force while visitors wait, closes the room first, and the id is never used again', () =>
  withFoyer(async (f) => {
    await admin(f, 'POST', '', { id: 'gone', rate_per_minute: 1, target_url: '/welcome' });
    const ticket = (await f.join('gone')).json.ticket;
    await f.join('gone');
    await f.join('gone');
    const waiting = await admin(f, 'DELETE', '/gone');
    assertProblem(waiting, 409, 'visitors_waiting');
    assert.equal(waiting.json.waiting, 3);  // one a minute: nobody admitted yet
    const removed = await admin(f, 'DELETE', '/gone?force=true');
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.json, { removed: 'gone' });
    assertProblem(await f.request('GET', '/api/v1/rooms/gone'), 404, 'unknown_room');
    assertProblem(await f.status(ticket, 'gone'), 404, 'unknown_room');
    assertProblem(await admin(f, 'POST', '', { id: 'gone', target_url: '/welcome' }), 409, 'room_id_used', 'id');
    await f.kill9();
    await f.start();
    assertProblem(await admin(f, 'POST', '', { id: 'gone', target_url: '/welcome' }), 409, 'room_id_used', 'id');
    assertProblem(await admin(f, 'DELETE', '/gone'), 404, 'unknown_room');
  }));

test('the audit export lists every event of a room as NDJSON, complete after kill -9, paged by after_seq', () =>
  withFoyer(async (f) => {
    await admin(f, 'POST', '', { id: 'audited', rate_per_minute: 6000, target_url: '/welcome' });
    for (let i = 0; i < 5; i++) await f.join('audited');
    await f.join('demo');
    await f.request('POST', '/api/v1/admin/rooms/audited/pause', { headers: { authorization: `Bearer ${TOKEN}` } });
    await f.request('POST', '/api/v1/admin/rooms/audited/resume', { headers: { authorization: `Bearer ${TOKEN}` } });
    await admin(f, 'PATCH', '/audited', { name: 'Audited' });
    await f.kill9();
    await f.start();
    const r = await admin(f, 'GET', '/audited/audit');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/x-ndjson');
    const lines = r.text.trimEnd().split('\n').map((l) => JSON.parse(l));
    const types = lines.map((l) => l.type);
    assert.deepEqual(types.filter((t) => t !== 'visitors_admitted'), [
      'room_created', 'room_configured', 'visitor_joined', 'visitor_joined', 'visitor_joined', 'visitor_joined',
      'visitor_joined', 'state_changed', 'state_changed', 'room_configured',
    ]);
    for (const l of lines) {
      assert.match(l.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(typeof l.seq, 'number');
    }
    for (let i = 1; i < lines.length; i++) assert.ok(lines[i].seq > lines[i - 1].seq);
    assert.equal(lines.at(-1).config.name, 'Audited');
    assert.equal(lines.at(-1).source, 'api');
    assert.doesNotMatch(r.text, /"seed"/);

    const first = (await admin(f, 'GET', '/audited/audit?limit=2')).text.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.equal(first.length, 2);
    const rest = (await admin(f, 'GET', `/audited/audit?after_seq=${first[1].seq}`)).text.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([...first, ...rest], lines);
    assertProblem(await admin(f, 'GET', '/audited/audit?after_seq=x'), 400, 'bad_request');
    assertProblem(await admin(f, 'GET', '/nowhere/audit'), 404, 'unknown_room');
    // A removed room keeps its history.
    await admin(f, 'DELETE', '/audited?force=true');
    const after = (await admin(f, 'GET', '/audited/audit')).text.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(after.slice(-2).map((l) => l.type), ['state_changed', 'room_removed']);
  }));

test('an opening in the past or within a minute is refused naming opens_at, unless the call says it means it', () =>
  withFoyer(async (f) => {
    const past = new Date(Date.now() - 3600e3).toISOString();
    const soon = new Date(Date.now() + 20e3).toISOString();
    for (const opens_at of [past, soon]) {
      const refused = await admin(f, 'POST', '', { id: 'late', target_url: '/go', opens_at });
      assertProblem(refused, 422, 'invalid_room', 'opens_at');
      assert.match(refused.json.detail, /opens_at_in_past/);
    }
    assert.equal((await f.request('GET', '/api/v1/rooms/late')).status, 404);
    const meant = await admin(f, 'POST', '?opens_at_in_past=accept', { id: 'late', target_url: '/go', opens_at: past });
    assert.equal(meant.status, 201, meant.text);
    // The opening stands as it was; other settings change freely.
    const renamed = await admin(f, 'PATCH', '/late', { name: 'Late sale' });
    assert.equal(renamed.status, 200, renamed.text);
    assertProblem(await admin(f, 'PATCH', '/demo', { opens_at: soon }), 422, 'invalid_room', 'opens_at');
  }));
