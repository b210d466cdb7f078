// A room card's Lanes panel in the operator console: each lane's share and funnel
// (joined, served, waiting) from the room's public info, a live change of a lane's
// share, and the room's access code batches: generate, download as CSV, revoke.

import { strings as s } from './strings.js';
import { formatNumber } from './format.js';
import { request } from './api.js';

const adminPath = (room, tail = '') => `/api/v1/admin/rooms/${encodeURIComponent(room)}${tail}`;
const codesPath = (room, batch) => adminPath(room, `/codes${batch == null ? '' : `/${encodeURIComponent(batch)}`}`);
const percent = (fraction) => `${formatNumber(Math.round(fraction * 1000) / 10)} %`;
// A CSV's object URL lives long enough for the browser to start saving it.
const DOWNLOAD_URL_LIFETIME_MS = 60_000;

/** Whether the room declares lanes, so that its card shows the panel. */
export const hasLanes = (room) => Object.keys(room.config?.lanes ?? {}).length > 0;

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

/**
 * Wires the panel of one room card. `ctx` gives the console's token(), confirmed(text,
 * ok), problemFor(res) and signOut(message). Returns update(room), which reads the
 * room's lanes and batches and shows them.
 */
export function lanesPanel(node, roomId, ctx) {
  const panel = node.querySelector('.lanes');
  const result = panel.querySelector('.lanes-result');
  // Lane names by id, for the batches.
  const laneNames = new Map();
  const say = (text) => {
    result.textContent = text;
  };

  // Sends an admin request; a refusal is said as the server's problem detail. Resolves to the answer when ok.
  async function send(method, path, body) {
    let res;
    try {
      res = await request(method, path, { bearer: ctx.token(), body });
    } catch {
      say(s.noAnswer);
      return null;
    }
    if (res.status === 401) {
      ctx.signOut(s.tokenRefused);
      return null;
    }
    if (!res.ok) say(ctx.problemFor(res).message);
    return res.ok ? res.json : null;
  }

  function laneRow(lane) {
    const row = document.createElement('tr');
    row.dataset.lane = lane.id;
    const name = document.createElement('th');
    name.scope = 'row';
    row.append(name);
    for (const key of ['entry', 'share', 'share_now', 'joined', 'served', 'waiting']) cell(row, '').dataset.key = key;
    const form = document.createElement('form');
    form.className = 'share-form';
    const label = document.createElement('label');
    const caption = document.createElement('span');
    caption.className = 'sr-only';
    const input = document.createElement('input');
    Object.assign(input, { type: 'number', min: '0', max: '100', step: 'any', required: true, name: 'share' });
    label.append(caption, input);
    const apply = button(s.applyShare, 'button');
    apply.type = 'submit';
    form.append(label, apply);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const laneName = row.querySelector('th').textContent;
      const share = Number(input.value) / 100;
      apply.disabled = true;
      const answer = await send('PATCH', adminPath(roomId), { lanes: { [lane.id]: { share } } });
      apply.disabled = false;
      if (!answer) return;
      say(s.shareDone(laneName, percent(share)));
      input.value = '';
      update();
    });
    cell(row, '').append(form);
    return row;
  }

  function showLanes(lanes) {
    const body = panel.querySelector('.lanes-table tbody');
    for (const lane of lanes) {
      laneNames.set(lane.id, lane.name);
      const row = body.querySelector(`tr[data-lane="${CSS.escape(lane.id)}"]`) ?? body.appendChild(laneRow(lane));
      row.querySelector('th').textContent = lane.declared ? lane.name : s.laneRemoved(lane.name);
      for (const td of row.querySelectorAll('td[data-key]')) {
        const value = lane[td.dataset.key];
        if (td.dataset.key === 'entry') td.textContent = s.laneEntries[value] ?? value;
        else if (td.dataset.key.startsWith('share')) td.textContent = percent(value);
        else td.textContent = formatNumber(value);
      }
      row.querySelector('.share-form span').textContent = s.shareInputLabel(lane.name);
      row.querySelector('.share-form input').placeholder = String(Math.round(lane.share * 1000) / 10);
    }
    const ids = new Set(lanes.map((lane) => lane.id));
    for (const row of body.querySelectorAll('tr[data-lane]')) if (!ids.has(row.dataset.lane)) row.remove();
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

  const form = panel.querySelector('.codes-form');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const field = (name) => form.elements[name].value.trim();
    const body = { batch: field('batch'), lane: field('lane'), count: Number(field('count')) };
    if (field('uses')) body.uses_per_code = Number(field('uses'));
    const submit = form.querySelector('button[type="submit"]');
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
    form.reset();
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
  }

  return (room) => {
    panel.hidden = !hasLanes(room);
    return panel.hidden ? null : update();
  };
}
