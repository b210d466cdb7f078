// What a console room card shows: the tiles that apply to the room (a lobby has no
// passes yet, a room without seats no seat counts), its draw time, and the typed check
// of an action that cannot be undone. Pure functions of the admin rooms list's data.

// Before the draw nobody is served: the queue's and the passes' counts say nothing yet.
const beforeDraw = (room) => room.state === 'lobby' || room.state === 'drawing';
const afterDraw = (room) => !beforeDraw(room);
const withSeats = (room) => room.inventory != null;

// Each tile by its data-tile name, shown while its rule holds.
const TILE_RULES = {
  joined: () => true,
  served: afterDraw,
  waiting: afterDraw,
  lobby_size: (room) => beforeDraw(room) || room.lobby_size > 0,
  draw_at: (room) => drawAt(room) != null,
  rate_per_minute: () => true,
  rate_reason: () => true,
  active: afterDraw,
  claimed: afterDraw,
  no_shows: afterDraw,
  stock_remaining: (room) => room.stock_remaining != null,
  'inventory.total': withSeats,
  'inventory.available': withSeats,
  'inventory.promised': withSeats,
  'inventory.held': withSeats,
  'inventory.confirmed': withSeats,
  seats_check: withSeats,
  notices: (room) => room.notifications?.opted_in != null,
};

/** Whether the tile named `tile` applies to `room`; an unknown tile never does. */
export function tileApplies(tile, room) {
  return TILE_RULES[tile]?.(room) ?? false;
}

/**
 * The room's "your turn" notices, both channels together: visitors opted in and the share
 * of those who joined, notices sent, delivered, and refused (never accepted). Null for a
 * server without notifications.
 */
export function noticeFigures(room) {
  const n = room.notifications;
  if (n?.opted_in == null) return null;
  const both = (v) => (v?.push ?? 0) + (v?.email ?? 0);
  const optedIn = both(n.opted_in);
  return { optedIn, optInRate: room.joined > 0 ? optedIn / room.joined : null, sent: both(n.sent), delivered: both(n.delivered),
    refused: both(n.refused) };
}

/** When an open lobby is drawn (ms since the epoch): its opening plus its window; null otherwise. */
export function drawAt(room) {
  const opensAt = room.config?.opens_at;
  if (room.state !== 'lobby' || !opensAt) return null;
  const at = Date.parse(opensAt);
  return Number.isNaN(at) ? null : at + (room.config.lobby_window_seconds ?? 0) * 1000;
}

/** Whether what the operator typed confirms an action on the room with this id. */
export function typedConfirms(typed, roomId) {
  return typed.trim() === roomId;
}
