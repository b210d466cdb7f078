// The operator console: signs in with the admin token (kept in sessionStorage), polls
// the admin rooms list, keeps an hour of samples (in sessionStorage, so a reload keeps
// the charts), draws them as SVG, and offers each room the controls that apply to it.

import { strings as s } from './strings.js';
import { formatNumber, formatTime } from './format.js';
import { request, retrying } from './api.js';
import { addSample, admissionSeries, queueSeries, WINDOW_MS } from './samples.js';
import { areaPath, linePath, niceMax } from './chart.js';
import { $, applyStrings, setText, show } from './page.js';

const TOKEN_KEY = 'foyer:admin-token';
const SAMPLES_KEY = 'foyer:admin-samples';
const SAMPLE_INTERVAL_MS = 3000;
const SVG_NS = 'http://www.w3.org/2000/svg';
const CHART_BOX = { width: 600, height: 120 };

const adminPath = (room, action) => `/api/v1/admin/rooms${room ? `/${encodeURIComponent(room)}/${action}` : ''}`;

// The controls a room card offers, each shown while `applies(room)` holds. A control
// POSTs to /api/v1/admin/rooms/{room}/{action}, with `body(value)` when it has an
// input, after the operator confirms. New operations (rate, stock) are added as
// entries here.
const controls = [
  {
    action: 'close-lobby',
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
    label: s.soldOutRoom,
    applies: (room) => !['sold_out', 'closed'].includes(room.state),
    confirm: (room) => s.soldOutConfirm(room.name),
  },
  {
    action: 'close',
    label: s.closeRoom,
    applies: (room) => room.state !== 'closed',
    confirm: (room) => s.closeRoomConfirm(room.name),
  },
];

let token = sessionStorage.getItem(TOKEN_KEY);
let samples = loadSamples();
let generation = 0;
let timer = null;
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

function confirmed(text) {
  const dialog = $('confirm');
  setText('confirm-text', text);
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
  });
}

function controlForm(roomId, control, result) {
  const form = document.createElement('form');
  form.dataset.control = control.action;
  let input = null;
  if (control.input) {
    const label = document.createElement('label');
    label.className = 'field';
    const caption = document.createElement('span');
    caption.textContent = control.input.label;
    input = document.createElement('input');
    input.required = true;
    input.pattern = control.input.pattern;
    input.autocomplete = 'off';
    input.spellcheck = false;
    label.append(caption, input);
    form.append(label);
  }
  const button = document.createElement('button');
  button.type = 'submit';
  button.className = 'button';
  button.textContent = control.label;
  form.append(button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!(await confirmed(control.confirm(cards.get(roomId).room)))) return;
    button.disabled = true;
    result.textContent = '';
    try {
      const res = await request('POST', adminPath(roomId, control.action), {
        bearer: token,
        body: input ? control.body(input.value.trim()) : undefined,
      });
      if (res.status === 401) return signOut(s.tokenRefused);
      result.textContent = res.ok ? s.actionDone(s.states[res.json.state] ?? res.json.state)
        : res.json?.message ?? `HTTP ${res.status}`;
      if (res.ok && input) input.value = '';
    } catch {
      result.textContent = s.noAnswer;
    } finally {
      button.disabled = false;
    }
    refresh();
  });
  return form;
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
    node.querySelector('.controls').append(form);
    return { control, form };
  });
  $('rooms').append(node);
  card = { node, forms, room };
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
    const badge = node.querySelector('.badge');
    badge.textContent = s.states[room.state] ?? room.state;
    badge.className = `badge ${room.state}`;
    const stats = { ...room, stock_left: room.stock == null ? null : Math.max(0, room.stock - room.served) };
    for (const dd of node.querySelectorAll('[data-stat]')) {
      const value = stats[dd.dataset.stat];
      dd.textContent = value == null ? '—' : formatNumber(value);
    }
    node.querySelector('.needs-beacon').hidden = !(room.needs_beacon && room.state === 'drawing');
    for (const { control, form } of card.forms) form.hidden = !control.applies(room);
    drawChart(node.querySelector('[data-chart="queue"]'), queueSeries(samples, room.id), from, at);
    drawChart(node.querySelector('[data-chart="admissions"]'), admissionSeries(samples, room.id), from, at);
  }
}

async function refresh() {
  clearTimeout(timer);
  const mine = ++generation;
  const res = await retrying(() => request('GET', adminPath(), { bearer: token }), { onWait: notice });
  if (mine !== generation) return;
  if (res.status === 401) return signOut(s.tokenRefused);
  if (res.ok) {
    samples = addSample(samples, res.json.at, res.json.rooms);
    saveSamples();
    render(res.json);
  }
  timer = setTimeout(refresh, SAMPLE_INTERVAL_MS);
}

function signOut(message = '') {
  generation++;
  clearTimeout(timer);
  token = null;
  samples = [];
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(SAMPLES_KEY);
  for (const { node } of cards.values()) node.remove();
  cards.clear();
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
    res = await request('GET', adminPath(), { bearer: candidate });
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
$('sign-out').addEventListener('click', () => signOut());
if (token) signedIn();

