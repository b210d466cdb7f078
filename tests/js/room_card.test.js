import { test } from 'node:test';
import assert from 'node:assert/strict';

import { drawAt, noticeFigures, tileApplies, typedConfirms } from '../../web/js/room_card.js';

// Rooms as GET /api/v1/admin/rooms lists them, with what matters here.
const fifo = {
  id: 'concert', state: 'open', lobby_size: 0, stock_remaining: null, inventory: null,
  config: { opens_at: null, lobby_window_seconds: 0 },
};
const lobby = {
  id: 'launch', state: 'lobby', lobby_size: 4, stock_remaining: null, inventory: null,
  config: { opens_at: '2026-12-02T10:00:00Z', lobby_window_seconds: 300 },
};
const seated = {
  ...fifo, id: 'theatre', stock_remaining: 40,
  inventory: { total: 100, available: 60, promised: 5, held: 30, confirmed: 10, frozen: false },
};
const TILES = [
  'joined', 'served', 'waiting', 'lobby_size', 'draw_at', 'rate_per_minute', 'rate_reason', 'active', 'claimed',
  'no_shows', 'stock_remaining', 'inventory.total', 'inventory.available', 'inventory.promised', 'inventory.held',
  'inventory.confirmed', 'seats_check',
];
const shown = (room) => TILES.filter((tile) => tileApplies(tile, room));

test('a card shows only the tiles that apply to its room', () => {
  assert.deepEqual(shown(fifo), ['joined', 'served', 'waiting', 'rate_per_minute', 'rate_reason', 'active', 'claimed', 'no_shows']);
  assert.deepEqual(shown(lobby), ['joined', 'lobby_size', 'draw_at', 'rate_per_minute', 'rate_reason']);
  assert.deepEqual(shown({ ...lobby, state: 'open' }),
    ['joined', 'served', 'waiting', 'lobby_size', 'rate_per_minute', 'rate_reason', 'active', 'claimed', 'no_shows']);
  assert.deepEqual(shown(seated).slice(8), [
    'stock_remaining', 'inventory.total', 'inventory.available', 'inventory.promised', 'inventory.held',
    'inventory.confirmed', 'seats_check',
  ]);
  assert.equal(tileApplies('no_such_tile', fifo), false);
});

test('a lobby card shows the draw time: the opening plus the lobby window', () => {
  assert.equal(drawAt(lobby), Date.parse('2026-12-02T10:05:00Z'));
  assert.equal(drawAt({ ...lobby, config: { ...lobby.config, lobby_window_seconds: 0 } }), Date.parse('2026-12-02T10:00:00Z'));
  assert.equal(drawAt({ ...lobby, state: 'open' }), null);
  assert.equal(drawAt(fifo), null);
});

test('an irreversible action is confirmed by typing the room id exactly', () => {
  assert.equal(typedConfirms('launch', 'launch'), true);
  assert.equal(typedConfirms('  launch ', 'launch'), true);
  assert.equal(typedConfirms('Launch', 'launch'), false);
  assert.equal(typedConfirms('', 'launch'), false);
  assert.equal(typedConfirms('launc', 'launch'), false);
});

test('a room with notifications shows opt-ins as a share of those who joined, and notices sent and delivered', () => {
  const notified = {
    ...fifo, joined: 40,
    notifications: {
      channels: ['push', 'email'], opted_in: { push: 6, email: 4 }, held: { push: 5, email: 4 },
      sent: { push: 9, email: 3 }, delivered: { push: 8, email: 2 }, refused: { push: 1, email: 1 },
    },
  };
  assert.ok(tileApplies('notices', notified));
  assert.ok(!tileApplies('notices', fifo));
  assert.deepEqual(noticeFigures(notified), { optedIn: 10, optInRate: 0.25, sent: 12, delivered: 10, refused: 2 });
  assert.equal(noticeFigures({ ...notified, joined: 0 }).optInRate, null);
  assert.equal(noticeFigures(fifo), null);
});
