// The operator console: signs in with the admin token (kept in sessionStorage), polls
// the admin rooms list, keeps an hour of samples (in sessionStorage, so a reload keeps
// the charts), draws them as SVG, offers each room the controls that apply to it, and
// creates, edits and deletes rooms.

import { strings as s } from './strings.js';
import { formatNumber, formatTime } from './format.js';
import { request, retrying } from './api.js';
import { addSample, admissionSeries, queueSeries, WINDOW_MS } from './samples.js';
import { areaPath, linePath, niceMax } from './chart.js';
import { $, applyStrings, setText, show } from './page.js';
import { createBody, patchBody, problemOf, roomField, typedValue } from './room_form.js';
import { openRoomDialog, setFieldError } from './room_dialog.js';
import { resetOps, updateOps } from './ops_panel.js';
import { drawAt, noticeFigures, tileApplies, typedConfirms } from './room_card.js';
import { lanesPanel } from './lanes_panel.js';

const TOKEN_KEY = 'foyer:admin-token';
const SAMPLES_KEY = 'foyer:admin-samples';
const SAMPLE_INTERVAL_MS = 3000;
const SVG_NS = 'http://www.w3.org/2000/svg';
const CHART_BOX = { width: 600, height: 120 };

const ROOMS_PATH = '/api/v1/admin/rooms';
const roomPath = (room, action) => `${ROOMS_PATH}/${encodeURIComponent(room)}${action ? `/${action}` : ''}`;

// The controls a room card offers, each shown while `applies(room)` holds. After the
// operator confirms, a control sends `send(room, value)`, by default a POST to
// /api/v1/admin/rooms/{room}/{action} with `body(value)` when it has an input, and
// reports `done(answer)`, by default the room's new state. On a refusal, `escalate`
// may offer a second, stronger step. `manage` ones sit apart from the state controls.
// `irreversible` ones look dangerous and are confirmed by typing the room's id.
const controls = [
  {
    action: 'close-lobby',
    irreversible: true,
    label: s.closeLobby,
    applies: (room) => room.state === 'lobby',
    confirm: (room) => s.closeLobbyConfirm(room.name),
  },
  {
    action: 'beacon',
    label: s.supplyBeacon,
    input: { label: s.beaconLabel, pattern: '([0-9a-f]{2})+' },
    body: (value) => ({ value }),
    applies: (room) => room.state === 'drawing' && room.needs_beacon,
    confirm: (room) => s.beaconConfirm(room.name),
  },
  {
    action: 'pause',
    label: s.pauseRoom,
    applies: (room) => room.state === 'open',
    confirm: (room) => s.pauseConfirm(room.name),
  },
  {
    action: 'resume',
    label: s.resumeRoom,
    applies: (room) => room.state === 'paused',
    confirm: (room) => s.resumeConfirm(room.name),
  },
  {
    action: 'sold-out',
    irreversible: true,
    label: s.soldOutRoom,
    applies: (room) => !['sold_out', 'closed'].includes(room.state),
    confirm: (room) => s.soldOutConfirm(room.name),
  },
  {
    action: 'close',
    irreversible: true,
    label: s.closeRoom,
    applies: (room) => room.state !== 'closed',
    confirm: (room) => s.closeRoomConfirm(room.name),
  },
  {
    action: 'rate',
    manage: true,
    label: s.applyRate,
    input: { label: s.rateInputLabel, type: 'number', placeholder: (room) => String(room.rate_per_minute) },
    applies: () => true,
    confirm: (room, value) => s.rateConfirm(room.name, formatNumber(room.rate_per_minute), value),
    send: (room, value) => ({
      method: 'PATCH', path: roomPath(room.id), body: { rate_per_minute: typedValue(roomField('rate_per_minute'), value) },
    }),
    done: (answer) => s.rateDone(formatNumber(answer.rate_per_minute)),
  },
  {
    action: 'delete',
    manage: true,
    irreversible: true,
    label: s.deleteRoom,
    applies: () => true,
    confirm: (room) => s.deleteConfirm(room.name),
    send: (room) => ({ method: 'DELETE', path: roomPath(room.id) }),
    // Visitors wait in the room: deleting it takes closing it first, and their places.
    escalate: (room, problem) => problem.code === 'visitors_waiting' && {
      confirm: s.forceDeleteConfirm(room.name, formatNumber(problem.waiting ?? 0), problem.waiting ?? 0),
      ok: s.closeAndDelete,
      send: { method: 'DELETE', path: `${roomPath(room.id)}?force=true` },
    },
    removes: true,
  },
];

// The demo server prints /admin#token=<token>: taken once, then wiped from the address bar.
const givenToken = new URLSearchParams(location.hash.slice(1)).get('token');
if (givenToken) {
  sessionStorage.setItem(TOKEN_KEY, givenToken);
  history.replaceState(null, '', location.pathname + location.search);
}
let token = sessionStorage.getItem(TOKEN_KEY);
let samples = loadSamples();
let generation = 0;
let timer = null;
// The id the open confirmation waits to be typed, if it does.
let confirmTypedId = null;
const cards = new Map();

function loadSamples() {
  try {
    return JSON.parse(sessionStorage.getItem(SAMPLES_KEY)) ?? [];
  } catch {
    return [];
  }
}

function saveSamples() {
  try {
    sessionStorage.setItem(SAMPLES_KEY, JSON.stringify(samples));
  } catch {
    // Storage refused: the charts still run, they just start afresh on reload.
  }
}

function notice(kind, delayMs) {
  setText('notice', kind ? s.consoleOffline(s.inSeconds(Math.ceil(delayMs / 1000))) : '');
}

function announce(text) {
  setText('console-status', text);
}

/** A refusal as words: the server's message, or its status when it sent none. */
function problemFor(res) {
  const problem = problemOf(res);
  return { ...problem, message: problem.message ?? s.httpStatus(res.status) };
}

/**
 * Asks the operator to confirm `text` with the `ok` button; with `typedId`, that button
 * only works once they have typed the id (of the room the action cannot be undone on).
 */
function confirmed(text, ok = s.confirm, typedId = null) {
  const dialog = $('confirm');
  const input = $('confirm-input');
  const button = $('confirm-ok');
  setText('confirm-text', text);
  setText('confirm-ok', ok);
  show('confirm-typed', typedId != null);
  input.value = '';
  button.disabled = typedId != null;
  button.classList.toggle('danger', typedId != null);
  if (typedId != null) setText('confirm-typed-label', s.typeToConfirm(typedId));
  confirmTypedId = typedId;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
  });
}

function controlInput(roomId, control, form) {
  const label = document.createElement('label');
  label.className = 'field';
  const caption = document.createElement('span');
  caption.textContent = control.input.label;
  const input = document.createElement('input');
  input.type = control.input.type ?? 'text';
  input.required = true;
  if (control.input.pattern) input.pattern = control.input.pattern;
  if (input.type === 'number') input.inputMode = 'numeric';
  input.autocomplete = 'off';
  input.spellcheck = false;
  const error = document.createElement('p');
  error.id = `room-${roomId}-${control.action}-error`;
  error.className = 'field-error';
  error.setAttribute('role', 'alert');
  input.setAttribute('aria-describedby', error.id);
  input.addEventListener('input', () => setFieldError(input, error, ''));
  label.append(caption, input);
  form.append(label, error);
  return { input, error };
}

// Sends a control's request, and its escalation when the server refuses the first and
// the operator confirms again. Resolves to the last answer, or null when not confirmed.
async function sendControl(room, control, value) {
  const call = control.send?.(room, value)
    ?? { method: 'POST', path: roomPath(room.id, control.action), body: value === undefined ? undefined : control.body(value) };
  const res = await request(call.method, call.path, { bearer: token, body: call.body });
  const next = !res.ok && control.escalate?.(room, problemOf(res));
  if (!next) return res;
  if (!(await confirmed(next.confirm, next.ok))) return null;
  return request(next.send.method, next.send.path, { bearer: token, body: next.send.body });
}

function controlForm(roomId, control, result) {
  const form = document.createElement('form');
  form.dataset.control = control.action;
  if (control.input) form.className = 'with-input';
  const { input, error } = control.input ? controlInput(roomId, control, form) : {};
  const button = document.createElement('button');
  button.type = 'submit';
  button.className = control.irreversible ? 'button danger' : 'button';
  button.textContent = control.label;
  form.append(button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { room } = cards.get(roomId);
    const value = input?.value.trim();
    if (!(await confirmed(control.confirm(room, value), s.confirm, control.irreversible ? room.id : null))) return;
    button.disabled = true;
    result.textContent = '';
    if (input) setFieldError(input, error, '');
    let res;
    try {
      res = await sendControl(room, control, value);
    } catch {
      result.textContent = s.noAnswer;
    } finally {
      button.disabled = false;
    }
    if (res?.status === 401) return signOut(s.tokenRefused);
    if (res?.ok && control.removes) {
      removeCard(roomId);
      announce(s.roomDeleted(room.name));
      $('new-room').focus();
    } else if (res?.ok) {
      result.textContent = control.done?.(res.json) ?? s.actionDone(s.states[res.json.state] ?? res.json.state);
      if (input) input.value = '';
    } else if (res && input) {
      setFieldError(input, error, problemFor(res).message);
      input.focus();
    } else if (res) {
      result.textContent = problemFor(res).message;
    }
    refresh();
  });
  return form;
}

// Saves through the room form's dialog: {room} when saved, {problem} to show beside the form.
async function saveRoom(method, path, body) {
  let res;
  try {
    res = await request(method, path, { bearer: token, body });
  } catch {
    return { problem: { message: s.noAnswer } };
  }
  if (res.status === 401) {
    signOut(s.tokenRefused);
    return {};
  }
  return res.ok ? { room: res.json } : { problem: problemFor(res) };
}

async function newRoom() {
  const created = await openRoomDialog(null, (texts) => saveRoom('POST', ROOMS_PATH, createBody(texts)));
  if (!created) return;
  announce(s.roomCreated(created.name));
  await refresh();
  cards.get(created.id)?.node.querySelector('h2').focus();
}

// Edits the settings as the card showed them when the dialog opened: only the ones the
// operator changed are sent.
async function editRoom(roomId) {
  const { room } = cards.get(roomId);
  let changed = [];
  const saved = await openRoomDialog(room, (texts) => {
    const body = patchBody(room.config ?? {}, texts);
    changed = Object.keys(body);
    if (changed.length === 0) return { problem: { message: s.nothingChanged } };
    return saveRoom('PATCH', roomPath(roomId), body);
  });
  if (!saved) return;
  const result = cards.get(roomId)?.node.querySelector('.control-result');
  if (result) result.textContent = s.roomSaved(changed.map((key) => s.roomFields[key].label).join(', '));
  refresh();
}

function removeCard(roomId) {
  cards.get(roomId)?.node.remove();
  cards.delete(roomId);
  $('no-rooms').hidden = cards.size > 0;
}

function cardFor(room) {
  let card = cards.get(room.id);
  if (card) return card;
  const node = $('room-card').content.firstElementChild.cloneNode(true);
  applyStrings(node);
  node.dataset.room = room.id;
  const result = node.querySelector('.control-result');
  const forms = controls.map((control) => {
    const form = controlForm(room.id, control, result);
    node.querySelector(control.manage ? '.manage' : '.controls').append(form);
    return { control, form };
  });
  node.querySelector('.edit').addEventListener('click', () => editRoom(room.id));
  const updateLanes = lanesPanel(node, room.id, { token: () => token, confirmed, problemFor, signOut });
  $('rooms').append(node);
  card = { node, forms, room, updateLanes };
  cards.set(room.id, card);
  return card;
}

function svgElement(name, attributes) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, value);
  return el;
}

// The charts span the last hour, or less while the console has not watched that long.
function drawChart(figure, points, from, now) {
  let svg = figure.querySelector('svg');
  if (!svg) {
    svg = svgElement('svg', {
      class: 'chart', viewBox: `0 0 ${CHART_BOX.width} ${CHART_BOX.height}`, preserveAspectRatio: 'none', role: 'img',
    });
    svg.append(svgElement('path', { class: 'area' }), svgElement('path', { class: 'line' }));
    const latest = document.createElement('span');
    latest.className = 'latest';
    figure.querySelector('figcaption').append(latest);
    const axis = document.createElement('div');
    axis.className = 'axis';
    axis.append(...['', '', s.axisEnd].map((text) => Object.assign(document.createElement('span'), { textContent: text })));
    figure.append(svg, axis);
  }
  const top = niceMax(Math.max(0, ...points.map((p) => p.v)));
  const box = { ...CHART_BOX, from, to: now, top };
  svg.querySelector('.area').setAttribute('d', areaPath(points, box));
  svg.querySelector('.line').setAttribute('d', linePath(points, box));
  const last = points.at(-1);
  const latestText = last ? s.chartLatest(formatNumber(Math.round(last.v))) : s.chartEmpty;
  figure.querySelector('.latest').textContent = latestText;
  const [start, scale] = figure.querySelectorAll('.axis span');
  start.textContent = formatTime(from, now);
  scale.textContent = s.axisScale(formatNumber(top));
  svg.setAttribute('aria-label', `${figure.querySelector('figcaption').firstChild.textContent}: ${latestText}`);
}

function render({ rooms, at }) {
  setText('updated', s.updatedAt(formatTime(at, Date.now())));
  const from = Math.max(at - WINDOW_MS, samples[0]?.at ?? at);
  for (const room of rooms) {
    const card = cardFor(room);
    card.room = room;
    const { node } = card;
    node.querySelector('.name').textContent = room.name;
    node.querySelector('.room-id').textContent = room.id;
    node.querySelector('.owner').textContent = s.owners[room.owner] ?? '';
    const badge = node.querySelector('.badge');
    badge.textContent = s.states[room.state] ?? room.state;
    badge.className = `badge ${room.state}`;
    for (const tile of node.querySelectorAll('[data-tile]')) tile.hidden = !tileApplies(tile.dataset.tile, room);
    const drawTime = drawAt(room);
    node.querySelector('.draw-at').textContent = drawTime == null ? '' : formatTime(drawTime, Date.now());
    for (const dd of node.querySelectorAll('[data-stat]')) {
      // "inventory.held": a member of a member; none for a room without seats.
      const value = dd.dataset.stat.split('.').reduce((o, k) => o?.[k], room);
      dd.textContent = value == null ? '—' : formatNumber(value);
    }
    for (const dd of node.querySelectorAll('[data-text]')) {
      const value = room[dd.dataset.text];
      dd.textContent = s.rateReasons[value] ?? value ?? '—';
    }
    node.querySelector('.needs-beacon').hidden = !(room.needs_beacon && room.state === 'drawing');
    node.querySelector('.seats-frozen').hidden = !room.inventory?.frozen;
    node.querySelector('.seats-check').textContent = room.inventory ? s.seatsCheck(room.inventory.frozen) : '—';
    const notices = noticeFigures(room);
    if (notices) {
      node.querySelector('.notices-opted-in').textContent = s.noticesOptedIn(formatNumber(notices.optedIn), notices.optInRate);
      node.querySelector('.notices-sent').textContent = formatNumber(notices.sent);
      node.querySelector('.notices-delivered').textContent = formatNumber(notices.delivered);
      node.querySelector('.notices-refused').textContent = formatNumber(notices.refused);
    }
    const expired = node.querySelector('.seats-expired');
    const expiries = room.recent_expiries ?? [];
    expired.hidden = expiries.length === 0;
    expired.textContent = expiries.length === 0 ? ''
      : s.recentExpiries(expiries.map((e) => s.expiredHold(e.seats, formatTime(Date.parse(e.expired_at), Date.now()))));
    for (const { control, form } of card.forms) {
      form.hidden = !control.applies(room);
      if (control.input?.placeholder) form.querySelector('input').placeholder = control.input.placeholder(room);
    }
    drawChart(node.querySelector('[data-chart="queue"]'), queueSeries(samples, room.id), from, at);
    drawChart(node.querySelector('[data-chart="admissions"]'), admissionSeries(samples, room.id), from, at);
  }
  const listed = new Set(rooms.map((room) => room.id));
  for (const id of [...cards.keys()]) {
    if (!listed.has(id)) removeCard(id);
  }
  $('no-rooms').hidden = rooms.length > 0;
}

async function refresh() {
  clearTimeout(timer);
  const mine = ++generation;
  const res = await retrying(() => request('GET', ROOMS_PATH, { bearer: token }), { onWait: notice });
  if (mine !== generation) return;
  if (res.status === 401) return signOut(s.tokenRefused);
  if (res.ok) {
    samples = addSample(samples, res.json.at, res.json.rooms);
    saveSamples();
    render(res.json);
    await Promise.all([updateOps(token), ...[...cards.values()].map((card) => card.updateLanes(card.room))]);
  }
  timer = setTimeout(refresh, SAMPLE_INTERVAL_MS);
}

function signOut(message = '') {
  generation++;
  clearTimeout(timer);
  token = null;
  samples = [];
  resetOps();
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(SAMPLES_KEY);
  for (const dialog of document.querySelectorAll('dialog[open]')) dialog.close();
  for (const id of [...cards.keys()]) removeCard(id);
  show('no-rooms', false);
  announce('');
  show('dashboard', false);
  show('login');
  setText('login-error', message);
  $('token').focus();
}

function signedIn() {
  show('login', false);
  show('dashboard');
  refresh();
}

async function signIn(event) {
  event.preventDefault();
  const candidate = $('token').value.trim();
  let res;
  try {
    res = await request('GET', ROOMS_PATH, { bearer: candidate });
  } catch {
    setText('login-error', s.noAnswer);
    return;
  }
  if (res.ok) {
    token = candidate;
    sessionStorage.setItem(TOKEN_KEY, token);
    $('token').value = '';
    setText('login-error', '');
    signedIn();
  } else {
    setText('login-error', res.json?.error === 'admin_disabled' ? s.adminDisabled : s.tokenRefused);
  }
}

applyStrings();
$('login').addEventListener('submit', signIn);
// The typed id unlocks the confirmation; Enter confirms once it does (the form's first
// button, which Enter would press, is Cancel).
$('confirm-input').addEventListener('input', (event) => {
  $('confirm-ok').disabled = !typedConfirms(event.target.value, confirmTypedId);
});
$('confirm-input').addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return;
  event.preventDefault();
  if (!$('confirm-ok').disabled) $('confirm').close('ok');
});
$('sign-out').addEventListener('click', () => signOut());
$('new-room').addEventListener('click', newRoom);
if (token) signedIn();

