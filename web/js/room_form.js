// The room settings form, without the DOM: which settings there are and of what kind,
// the texts a form shows for a room's config, the bodies it sends (every given setting
// to create, only the changed ones to edit), and which setting a problem is about.
// The server is the one validator: nothing here judges a value, it only types it.

/**
 * The settings, in the form's order. kind: 'text' (a string; empty is a value), 'number'
 * (a whole number), 'fraction' (a number), 'list' (room ids, separated by commas),
 * 'datetime' (RFC 3339 text). required: no default. nullable: empty removes the setting
 * (null). fixed: given at creation, never changed. The adaptive table is set in the file
 * or through the API.
 */
export const ROOM_FIELDS = [
  { key: 'id', kind: 'text', group: 'room', required: true, fixed: true },
  { key: 'name', kind: 'text', group: 'room' },
  { key: 'target_url', kind: 'text', group: 'room', required: true },
  { key: 'rate_per_minute', kind: 'number', group: 'admission' },
  { key: 'pass_ttl_seconds', kind: 'number', group: 'admission' },
  { key: 'stock', kind: 'number', group: 'admission', nullable: true },
  { key: 'max_active', kind: 'number', group: 'admission', nullable: true },
  { key: 'claim_window_seconds', kind: 'number', group: 'admission' },
  { key: 'no_show_max_multiplier', kind: 'fraction', group: 'admission' },
  { key: 'alternatives', kind: 'list', group: 'admission' },
  { key: 'event', kind: 'text', group: 'admission' },
  { key: 'opens_at', kind: 'datetime', group: 'lottery', nullable: true },
  { key: 'lobby_window_seconds', kind: 'number', group: 'lottery' },
  { key: 'beacon_rule', kind: 'text', group: 'lottery' },
  { key: 'logo_url', kind: 'text', group: 'branding' },
  { key: 'accent_colour', kind: 'text', group: 'branding' },
];

export const ROOM_GROUPS = ['room', 'admission', 'lottery', 'branding'];

const byKey = new Map(ROOM_FIELDS.map((field) => [field.key, field]));

/** The field of a setting, or undefined for a key the form does not have. */
export const roomField = (key) => byKey.get(key);

/** What each input shows for a room's config: its value as text, '' for null or absent. */
export function formTexts(config = {}) {
  const text = (value) => (value == null ? '' : Array.isArray(value) ? value.join(', ') : String(value));
  return Object.fromEntries(ROOM_FIELDS.map(({ key }) => [key, text(config[key])]));
}

/**
 * The value to send for an input's text. An empty text is '' for a text setting and
 * null otherwise (which removes a nullable setting and is refused for the others). A
 * number that is not a whole number goes as typed, for the server to name the problem.
 */
export function typedValue(field, text) {
  const trimmed = text.trim();
  if (field.kind === 'text') return trimmed;
  if (field.kind === 'list') return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
  if (trimmed === '') return null;
  if (field.kind === 'number' && /^-?\d+$/.test(trimmed)) return Number(trimmed);
  if (field.kind === 'fraction' && /^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  return trimmed;
}

/** The body that creates a room: every setting given; those left empty take their defaults. */
export function createBody(texts) {
  const body = {};
  for (const field of ROOM_FIELDS) {
    const text = texts[field.key] ?? '';
    if (text.trim() !== '') body[field.key] = typedValue(field, text);
  }
  return body;
}

/**
 * The body that edits a room: the settings whose text differs (spaces around it aside)
 * from what the form showed for `config`, the id never. Untouched settings are not sent, so the edit changes only
 * what the operator changed, whatever else changed meanwhile.
 */
export function patchBody(config, texts) {
  const shown = formTexts(config);
  const body = {};
  for (const field of ROOM_FIELDS) {
    if (field.fixed) continue;
    const text = texts[field.key] ?? '';
    if (text.trim() !== shown[field.key].trim()) body[field.key] = typedValue(field, text);
  }
  return body;
}

/**
 * What an error answer says (RFC 9457 problem details): its code, the setting it is
 * about when the form has that setting, its message (null when the answer had none, a
 * proxy's page say), and the extra members the console uses.
 */
export function problemOf(res) {
  const json = res?.json && typeof res.json === 'object' ? res.json : {};
  const text = (value) => (typeof value === 'string' && value !== '' ? value : null);
  return {
    status: res?.status ?? null,
    code: text(json.error),
    field: roomField(json.field) ? json.field : null,
    message: text(json.detail) ?? text(json.message) ?? text(json.title),
    waiting: Number.isInteger(json.waiting) ? json.waiting : null,
  };
}

const pad = (n) => String(n).padStart(2, '0');

/**
 * An example opens_at in the reader's own time zone: 10:00 on the day after `nowMs`,
 * as RFC 3339 with the local offset, e.g. 2026-12-01T10:00:00+05:30.
 */
export function exampleOpensAt(nowMs) {
  const day = new Date(nowMs);
  const at = new Date(day.getFullYear(), day.getMonth(), day.getDate() + 1, 10, 0, 0);
  const offset = -at.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T10:00:00` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
