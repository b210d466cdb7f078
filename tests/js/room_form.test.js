import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  ROOM_FIELDS, ROOM_GROUPS, createBody, exampleOpensAt, formTexts, patchBody, problemOf, roomField, typedValue,
} from '../../web/js/room_form.js';
import { strings as s } from '../../web/js/strings.js';

// A room's config as GET /api/v1/admin/rooms shows it.
const config = {
  id: 'concert',
  name: 'Concert tickets',
  rate_per_minute: 120,
  pass_ttl_seconds: 900,
  target_url: '/welcome',
  opens_at: null,
  lobby_window_seconds: 0,
  beacon_rule: '',
  stock: 500,
  logo_url: '',
  accent_colour: '#1a5fb4',
  max_active: null,
  claim_window_seconds: 600,
  no_show_max_multiplier: 1.5,
  adaptive: null,
  alternatives: ['concert-2', 'concert-3'],
  event: '',
};

test('the form has one field per room setting, each in a group, with its words in strings.js', () => {
  // The adaptive table is set in the file or through the API.
  assert.deepEqual(ROOM_FIELDS.map((f) => f.key).sort(), Object.keys(config).filter((k) => k !== 'adaptive').sort());
  for (const field of ROOM_FIELDS) {
    assert.ok(ROOM_GROUPS.includes(field.group), field.key);
    assert.ok(s.roomFields[field.key].label && s.roomFields[field.key].hint, field.key);
  }
  for (const group of ROOM_GROUPS) assert.ok(s.roomGroups[group], group);
  assert.deepEqual(ROOM_FIELDS.filter((f) => f.required).map((f) => f.key), ['id', 'target_url']);
  assert.equal(roomField('stock').nullable, true);
  assert.equal(roomField('nonsense'), undefined);
});

test('a config shows as text, null and absent settings as empty inputs', () => {
  const texts = formTexts(config);
  assert.equal(texts.rate_per_minute, '120');
  assert.equal(texts.opens_at, '');
  assert.equal(texts.stock, '500');
  assert.equal(texts.max_active, '');
  assert.equal(texts.no_show_max_multiplier, '1.5');
  assert.equal(texts.alternatives, 'concert-2, concert-3');
  assert.deepEqual(formTexts(), Object.fromEntries(ROOM_FIELDS.map((f) => [f.key, ''])));
});

test('texts are typed for the server, which alone judges them', () => {
  assert.equal(typedValue(roomField('rate_per_minute'), ' 300 '), 300);
  assert.equal(typedValue(roomField('rate_per_minute'), '0'), 0);
  assert.equal(typedValue(roomField('rate_per_minute'), '-5'), -5);
  // Not a whole number: sent as typed, so that the server names the problem.
  assert.equal(typedValue(roomField('rate_per_minute'), '1.5'), '1.5');
  assert.equal(typedValue(roomField('rate_per_minute'), ''), null);
  assert.equal(typedValue(roomField('stock'), '  '), null);
  assert.equal(typedValue(roomField('opens_at'), ' 2026-12-01T10:00:00+05:30 '), '2026-12-01T10:00:00+05:30');
  assert.equal(typedValue(roomField('opens_at'), ''), null);
  assert.equal(typedValue(roomField('name'), '  Drop  '), 'Drop');
  assert.equal(typedValue(roomField('beacon_rule'), ''), '');
  assert.equal(typedValue(roomField('no_show_max_multiplier'), ' 1.25 '), 1.25);
  assert.equal(typedValue(roomField('no_show_max_multiplier'), 'x2'), 'x2');
  assert.deepEqual(typedValue(roomField('alternatives'), ' a ,b '), ['a', 'b']);
  assert.deepEqual(typedValue(roomField('alternatives'), ' '), []);
});

test('creating sends every setting given and leaves the empty ones to their defaults', () => {
  const texts = { ...formTexts(), id: 'drop', target_url: '//evil.example', rate_per_minute: '0', stock: ' ', name: ' Sneaker drop' };
  assert.deepEqual(createBody(texts), { id: 'drop', name: 'Sneaker drop', target_url: '//evil.example', rate_per_minute: 0 });
  assert.deepEqual(createBody({}), {});
});

test('editing sends only the settings that changed, never the id', () => {
  const texts = formTexts(config);
  assert.deepEqual(patchBody(config, texts), {});
  assert.deepEqual(patchBody(config, { ...texts, id: 'other', name: ' Concert tickets ' }), {});
  assert.deepEqual(patchBody(config, { ...texts, rate_per_minute: '300' }), { rate_per_minute: 300 });
  assert.deepEqual(patchBody(config, { ...texts, opens_at: '2026-12-01T10:00:00Z', beacon_rule: 'drand' }),
    { opens_at: '2026-12-01T10:00:00Z', beacon_rule: 'drand' });
  // Emptied: null removes stock or opens_at; '' clears a text; null for a rate is the server's to refuse.
  assert.deepEqual(patchBody(config, { ...texts, stock: '', accent_colour: '', rate_per_minute: '' }),
    { rate_per_minute: null, stock: null, accent_colour: '' });
  assert.deepEqual(patchBody({ ...config, opens_at: '2026-12-01T04:30:00Z' }, { ...texts, opens_at: '' }), { opens_at: null });
  // A setting the form did not show (an older server's answer) counts as empty.
  assert.deepEqual(patchBody({}, { ...formTexts(), id: 'x', rate_per_minute: '5' }), { rate_per_minute: 5 });
});

test('a problem names its setting when the form has it, and its message', () => {
  const problem = (status, json) => problemOf({ status, json });
  assert.deepEqual(problem(422, {
    type: 'about:blank', title: 'Invalid room', status: 422, detail: 'must be a whole number from 1 to 10000000',
    error: 'invalid_room', message: 'must be a whole number from 1 to 10000000', field: 'rate_per_minute',
  }), { status: 422, code: 'invalid_room', field: 'rate_per_minute', message: 'must be a whole number from 1 to 10000000', waiting: null });
  assert.equal(problem(409, { error: 'change_refused', field: 'opens_at', detail: 'visitors hold places' }).field, 'opens_at');
  assert.equal(problem(422, { error: 'invalid_room', field: 'rooms[0].nonsense', detail: 'unknown setting' }).field, null);
  assert.deepEqual(problem(409, { error: 'visitors_waiting', detail: '3 visitors wait', waiting: 3 }),
    { status: 409, code: 'visitors_waiting', field: null, message: '3 visitors wait', waiting: 3 });
  // detail first, then message (older answers), then title; none at all from a proxy's page.
  assert.equal(problem(400, { error: 'bad_body', message: 'Send a JSON object.' }).message, 'Send a JSON object.');
  assert.equal(problem(400, { title: 'Bad Request' }).message, 'Bad Request');
  assert.deepEqual(problemOf({ status: 502, json: null }), { status: 502, code: null, field: null, message: null, waiting: null });
  assert.equal(problemOf({ status: 502, json: 'text' }).message, null);
});

test('the opens_at example is tomorrow 10:00 in the reader\'s zone, with its offset', () => {
  const now = Date.UTC(2026, 10, 30, 23, 30);
  const example = exampleOpensAt(now);
  assert.match(example, /^\d{4}-\d{2}-\d{2}T10:00:00[+-]\d{2}:\d{2}$/);
  const local = new Date(now);
  assert.equal(Date.parse(example), new Date(local.getFullYear(), local.getMonth(), local.getDate() + 1, 10).getTime());
});
