// A room card's Lanes panel in the operator console: each lane's entry, share and funnel
// (joined, served, waiting, claimed, never came) from the room's public info; a form that declares a lane,
// changes its settings or removes it, live, through the admin API, with the server's
// refusal beside it and everything typed kept; and the room's access code batches:
// generate, download as CSV, revoke.

import { strings as s } from './strings.js';
import { formatNumber } from './format.js';
import { request } from './api.js';

const adminPath = (room, tail = '') => `/api/v1/admin/rooms/${encodeURIComponent(room)}${tail}`;
const codesPath = (room, batch) => adminPath(room, `/codes${batch == null ? '' : `/${encodeURIComponent(batch)}`}`);
const percent = (fraction) => `${formatNumber(Math.round(fraction * 1000) / 10)} %`;
// A CSV's object URL lives long enough for the browser to start saving it.
const DOWNLOAD_URL_LIFETIME_MS = 60_000;
const GENERAL_LANE = 'general';
// The lane settings the form edits, in the order a new lane's body lists them.
const LANE_KEYS = ['name', 'share', 'entry', 'priority', 'claim_window_seconds', 'hold_seconds', 'max_seats_per_pass'];


/** What the form shows for a lane's settings: share in per cent, empty where the lane takes the room's. */
function laneTexts(settings) {
  return {
    name: settings.name ?? '',
    share: settings.share == null ? '' : String(Math.round(settings.share * 1000) / 10),
    entry: settings.entry ?? 'code',
    priority: Boolean(settings.priority),
    claim_window_seconds: settings.claim_window_seconds ? String(settings.claim_window_seconds) : '',
    hold_seconds: settings.hold_seconds ? String(settings.hold_seconds) : '',
    max_seats_per_pass: settings.max_seats_per_pass ? String(settings.max_seats_per_pass) : '',
  };
}

/**
 * The value sent for a setting's text: a number when it is one (a share from per cent),
 * else as typed, for the server to name; an empty name is the lane's id, said outright
 * (the server answers a lane it named itself as a change that did not stick).
 */
function laneValue(key, text, id) {
  if (typeof text === 'boolean' || key === 'entry') return text;
  const trimmed = text.trim();
  if (key === 'name') return trimmed || id;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return trimmed;
  return key === 'share' ? Number(trimmed) / 100 : Number(trimmed);
}

/**
 * The settings to send: every one given for a lane the room does not declare yet (the
 * general lane's shown share included, so that declaring it keeps its share), else
 * only those that differ from what the form showed.
 */
function laneBody(id, shown, texts, declared) {
  const body = {};
  for (const key of LANE_KEYS) {
    const text = texts[key];
    const given = typeof text === 'boolean' || key === 'name' || text.trim() !== '';
    if (given && (!declared || text !== shown[key])) body[key] = laneValue(key, text, id);
  }
  return body;
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.append(td);
  return td;
}

function button(label, className = 'button secondary') {
  const el = document.createElement('button');
  el.type = 'button';
  el.className = className;
  el.textContent = label;
  return el;
}

function badge(text, kind) {
  const el = document.createElement('span');
  el.className = `lane-badge ${kind}`;
  el.textContent = text;
  return el;
}

/**
 * Wires the panel of one room card. `ctx` gives the console's token(), confirmed(text,
 * ok), problemFor(res) and signOut(message). Returns update(room), which reads the
 * room's lanes and batches and shows them.
 */
export function lanesPanel(node, roomId, ctx) {
  const panel = node.querySelector('.lanes');
  const result = panel.querySelector('.lanes-result');
  const status = panel.querySelector('.lane-status');
  const form = panel.querySelector('.lane-form');
  const formError = form.querySelector('.lane-form-error');
  // Lane names by id, for the batches; the lanes as the room's info and settings give them.
  const laneNames = new Map();
  let infoLanes = [];
  let settings = {};
  // The lane the form edits (null: a new one), what it showed, and the button that opened it.
  let editing = null;
  let shown = null;
  let opener = null;
  const say = (text) => {
    result.textContent = text;
  };

  /**
   * Sends an admin request. Resolves to {json} when done, {problem} (the server's message
   * and the setting it is about) when refused, or null when signed out.
   */
  async function call(method, path, body) {
    let res;
    try {
      res = await request(method, path, { bearer: ctx.token(), body });
    } catch {
      return { problem: { message: s.noAnswer } };
    }
    if (res.status === 401) {
      ctx.signOut(s.tokenRefused);
      return null;
    }
    return res.ok ? { json: res.json } : { problem: { ...ctx.problemFor(res), about: res.json?.field ?? null } };
  }

  // A batch request: a refusal is said as the server's problem detail. Resolves to the answer when ok.
  async function send(method, path, body) {
    const answer = await call(method, path, body);
    if (answer?.problem) say(answer.problem.message);
    return answer?.json ?? null;
  }

  const input = (name) => form.elements[name];

  function formTexts() {
    const texts = {};
    for (const key of LANE_KEYS) texts[key] = key === 'priority' ? input(key).checked : input(key).value;
    return texts;
  }

  /** Shows the server's refusal beside the form, and marks the setting it is about ("lanes.<id>.<key>"). */
  function formProblem(problem) {
    formError.textContent = problem?.message ?? '';
    const key = problem?.about?.split('.')[2];
    for (const el of form.querySelectorAll('input, select')) {
      if (key && el.name === key) el.setAttribute('aria-invalid', 'true');
      else el.removeAttribute('aria-invalid');
    }
  }

  function openForm(lane, from) {
    editing = lane;
    opener = from;
    shown = laneTexts(lane ? settings[lane.id] ?? lane : {});
    input('id').value = lane?.id ?? '';
    input('id').readOnly = Boolean(lane);
    for (const key of LANE_KEYS) {
      if (key === 'priority') input(key).checked = shown.priority;
      else input(key).value = shown[key];
    }
    form.querySelector('.lane-form-title').textContent = lane ? s.editLaneTitle(lane.name) : s.newLaneTitle;
    form.querySelector('button[type="submit"]').textContent = lane ? s.saveLane : s.createLane;
    // The general lane is the room's own queue: it is changed, never removed.
    form.querySelector('.lane-remove').hidden = !lane || lane.id === GENERAL_LANE || !settings[lane.id];
    formProblem(null);
    status.textContent = '';
    form.hidden = false;
    panel.querySelector('.add-lane').hidden = true;
    input(lane ? 'name' : 'id').focus();
  }

  function closeForm() {
    form.hidden = true;
    editing = null;
    panel.querySelector('.add-lane').hidden = false;
  }

  // Applies a lane change; on a refusal the form stays as typed, with the server's words beside it.
  async function changeLane(id, lane, done) {
    const buttons = form.querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    const answer = await call('PATCH', adminPath(roomId), { lanes: { [id]: lane } });
    for (const b of buttons) b.disabled = false;
    if (!answer) return;
    if (answer.problem) {
      formProblem(answer.problem);
      return;
    }
    settings = answer.json.config?.lanes ?? {};
    const focus = opener?.isConnected ? opener : panel.querySelector('.add-lane');
    closeForm();
    status.textContent = done(settings[id]);
    update();
    focus.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const id = input('id').value.trim();
    const texts = formTexts();
    const declared = Boolean(editing && settings[editing.id]);
    const body = laneBody(id, shown, texts, declared);
    if (Object.keys(body).length === 0) {
      formProblem({ message: s.laneUnchanged });
      return;
    }
    const said = editing ? s.laneSaved : s.laneAdded;
    await changeLane(id, body, (after) => said(after?.name ?? id, percent(after?.share ?? 0)));
  });
  form.querySelector('.lane-cancel').addEventListener('click', () => {
    const focus = opener;
    closeForm();
    focus?.focus();
  });
  form.querySelector('.lane-remove').addEventListener('click', async () => {
    const lane = editing;
    if (!(await ctx.confirmed(s.removeLaneConfirm(lane.name), s.removeLane))) return;
    opener = panel.querySelector('.add-lane');
    await changeLane(lane.id, null, () => s.laneGone(lane.name));
  });
  // Typing answers the problem about a setting: its mark goes until the server says otherwise.
  form.addEventListener('input', (event) => event.target.removeAttribute('aria-invalid'));
  panel.querySelector('.add-lane').addEventListener('click', (event) => openForm(null, event.currentTarget));
  const entry = input('entry');
  entry.replaceChildren(...Object.entries(s.laneEntryOptions).map(([value, label]) => new Option(label, value)));
  const describedBy = [`lane-form-error-${roomId}`, `lane-form-hint-${roomId}`];
  formError.id = describedBy[0];
  form.querySelector('.lane-form-hint').id = describedBy[1];
  for (const el of form.querySelectorAll('input, select')) el.setAttribute('aria-describedby', describedBy.join(' '));

  function laneRow(lane) {
    const row = document.createElement('tr');
    row.dataset.lane = lane.id;
    const name = document.createElement('th');
    name.scope = 'row';
    row.append(name);
    for (const key of ['entry', 'share', 'share_now', 'joined', 'served', 'waiting', 'claimed', 'no_shows']) cell(row, '').dataset.key = key;
    const edit = button(s.editLane);
    edit.className += ' lane-edit';
    edit.addEventListener('click', () => openForm(infoLanes.find((l) => l.id === lane.id), edit));
    cell(row, '').append(edit);
    return row;
  }

  function showLanes(lanes) {
    infoLanes = lanes;
    const body = panel.querySelector('.lanes-table tbody');
    for (const lane of lanes) {
      laneNames.set(lane.id, lane.name);
      const row = body.querySelector(`tr[data-lane="${CSS.escape(lane.id)}"]`) ?? body.appendChild(laneRow(lane));
      const name = row.querySelector('th');
      name.replaceChildren(lane.declared ? lane.name : s.laneRemoved(lane.name));
      if (lane.priority) name.append(' ', badge(s.lanePriority, 'priority'));
      for (const td of row.querySelectorAll('td[data-key]')) {
        const value = lane[td.dataset.key];
        // A removed lane takes nobody: it stays for its funnel, without an entry.
        if (td.dataset.key === 'entry') td.replaceChildren(...(lane.declared ? [badge(s.laneEntries[value] ?? value, value)] : []));
        else if (td.dataset.key.startsWith('share')) td.textContent = percent(value);
        else td.textContent = formatNumber(value);
      }
      const edit = row.querySelector('.lane-edit');
      edit.hidden = !lane.declared;
      edit.setAttribute('aria-label', s.editLaneLabel(lane.name));
    }
    const ids = new Set(lanes.map((lane) => lane.id));
    for (const row of body.querySelectorAll('tr[data-lane]')) if (!ids.has(row.dataset.lane)) row.remove();
    panel.querySelector('.lanes-table').closest('.table-scroll').hidden = lanes.length === 0;
    panel.querySelector('.lanes-none').hidden = lanes.length > 0;
    // Batches are for the lanes that take codes.
    const select = panel.querySelector('.codes-form select');
    const chosen = select.value;
    select.replaceChildren(...lanes.filter((lane) => lane.entry === 'code' && lane.declared).map((lane) => {
      const option = new Option(lane.name, lane.id);
      option.selected = lane.id === chosen;
      return option;
    }));
  }

  async function download(batch) {
    let res;
    try {
      res = await fetch(codesPath(roomId, batch), { headers: { authorization: `Bearer ${ctx.token()}` }, cache: 'no-store' });
    } catch {
      say(s.noAnswer);
      return;
    }
    if (!res.ok) {
      const json = await res.json().catch(() => null);
      say(ctx.problemFor({ status: res.status, json }).message);
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = `${roomId}-${batch}.csv`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), DOWNLOAD_URL_LIFETIME_MS);
  }

  function batchRow(batch) {
    const row = document.createElement('tr');
    row.dataset.batch = batch.batch;
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = batch.batch;
    row.append(name);
    for (const key of ['lane', 'codes', 'codes_redeemed', 'redemptions', 'revoked']) cell(row, '').dataset.key = key;
    const actions = cell(row, '');
    const csv = button(s.downloadCsv);
    csv.addEventListener('click', () => download(batch.batch));
    const revoke = button(s.revokeBatch, 'button danger revoke');
    revoke.addEventListener('click', async () => {
      if (!(await ctx.confirmed(s.revokeConfirm(batch.batch), s.revokeBatch))) return;
      if (await send('DELETE', codesPath(roomId, batch.batch))) say(s.batchRevoked(batch.batch));
      update();
    });
    actions.append(csv, revoke);
    return row;
  }

  function showBatches(batches) {
    const body = panel.querySelector('.batches tbody');
    for (const batch of batches) {
      const row = body.querySelector(`tr[data-batch="${CSS.escape(batch.batch)}"]`) ?? body.appendChild(batchRow(batch));
      for (const td of row.querySelectorAll('td[data-key]')) {
        const value = batch[td.dataset.key];
        if (td.dataset.key === 'lane') td.textContent = laneNames.get(value) ?? value;
        else if (td.dataset.key === 'revoked') td.textContent = value ? s.batchStateRevoked : s.batchStateLive;
        else td.textContent = formatNumber(value);
      }
      row.querySelector('.revoke').hidden = batch.revoked;
    }
    panel.querySelector('.batches').hidden = batches.length === 0;
  }

  const codesForm = panel.querySelector('.codes-form');
  codesForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const field = (name) => codesForm.elements[name].value.trim();
    const body = { batch: field('batch'), lane: field('lane'), count: Number(field('count')) };
    if (field('uses')) body.uses_per_code = Number(field('uses'));
    const submit = codesForm.querySelector('button[type="submit"]');
    submit.disabled = true;
    const batch = await send('POST', codesPath(roomId), body);
    submit.disabled = false;
    if (!batch) return;
    // The codes are shown this once; the CSV can be downloaded again later.
    const fresh = panel.querySelector('.codes-new');
    fresh.querySelector('textarea').value = (batch.generated ?? []).join('\n');
    fresh.querySelector('.codes-new-title').textContent = s.codesGenerated(formatNumber(batch.codes), batch.batch);
    fresh.querySelector('button').onclick = () => download(batch.batch);
    fresh.hidden = false;
    say('');
    codesForm.reset();
    update();
  });

  async function update() {
    // The funnel is the room's public info; the batches are the admin's.
    const [info, codes] = await Promise.all([
      request('GET', `/api/v1/rooms/${encodeURIComponent(roomId)}`).catch(() => null),
      request('GET', codesPath(roomId), { bearer: ctx.token() }).catch(() => null),
    ]);
    if (info?.ok) showLanes(info.json.lanes ?? []);
    if (codes?.ok) showBatches(codes.json.batches);
    // Codes are for a room with a lane that takes them, or batches to show.
    panel.querySelector('.codes').hidden = codesForm.elements.lane.options.length === 0 && panel.querySelector('.batches').hidden;
  }

  return (room) => {
    settings = room.config?.lanes ?? {};
    panel.hidden = false;
    return update();
  };
}
