// The public verify page: shows a room's published draw, checks SHA-256(seed) against
// the commitment, and checks a lobby receipt (the visitor's own, prefilled, or any
// pasted one): its signature, its inclusion under the lobby root, and its place. "Check
// the whole draw" runs the full audit (web/js/audit) with a progress bar and draws the
// draw's timeline. In a room with lanes it also shows how the lanes share admission and
// each lane's own draw; a lane's receipt is checked against its lane's draw.

import { strings as s } from './strings.js';
import { formatNumber, formatTime, queueNumber } from './format.js';
import { checkCommitment, defaultHashes, laneDraw, verifyEntry } from './lottery.js';
import { request, retrying } from './api.js';
import { storedReceipts } from './storage.js';
import { $, applyBranding, applyStrings, setText, show } from './page.js';
import { auditDraw } from './audit/audit.js';
import { timelineEvents, timelineSvg } from './audit/timeline.js';

const hashes = defaultHashes();
const roomPath = (room) => `/api/v1/rooms/${encodeURIComponent(room)}`;
let lottery = null;
let lanes = []; // the room's lanes (room info), [] in a room without lanes

function fact(id, value) {
  setText(id, value ?? s.notYet);
}

/** A lane's name from its id; '' is the general lane's, whose draw is the room's own. */
function laneName(id) {
  const wanted = id === '' ? 'general' : id;
  return lanes.find((lane) => lane.id === wanted)?.name ?? (id === '' ? s.generalLane : id);
}

async function seedCheck(element, draw) {
  element.className = 'result';
  if (draw.seed == null) {
    element.textContent = s.seedPending;
    return;
  }
  const ok = await checkCommitment(draw.seed, draw.commitment, { hashes });
  element.textContent = ok ? `✓ ${s.seedCheckPass}` : `✗ ${s.seedCheckFail}`;
  element.classList.add(ok ? 'pass' : 'fail');
}

// How the lanes share admission, and each lane's own draw but the general lane's (above).
async function showLanes() {
  show('lanes', lanes.length > 0);
  const percent = (fraction) => formatNumber(Math.round(fraction * 100));
  setText('lanes-share', s.lanesShare(lanes.map((lane) => s.laneSharePart(lane.name, percent(lane.share), percent(lane.share_now)))));
  const draws = Object.entries(lottery?.lanes ?? {});
  show('lanes-draw-lead', draws.length > 0);
  const list = $('lane-draws');
  list.replaceChildren();
  for (const [id, draw] of draws) {
    const section = document.createElement('section');
    section.dataset.lane = id;
    const title = document.createElement('h4');
    title.textContent = s.laneDrawTitle(laneName(id));
    const facts = document.createElement('dl');
    facts.className = 'facts';
    for (const [label, value, hex] of [
      [s.fieldCommitment, draw.commitment, true],
      [s.fieldLobbySize, draw.lobby_size == null ? null : formatNumber(draw.lobby_size)],
      [s.fieldLobbyRoot, draw.lobby_root, true],
      [s.fieldSeed, draw.seed, true],
    ]) {
      const dt = document.createElement('dt');
      dt.textContent = label;
      const dd = document.createElement('dd');
      dd.textContent = value ?? s.notYet;
      if (hex) dd.className = 'hex';
      facts.append(dt, dd);
    }
    const check = document.createElement('p');
    section.append(title, facts, check);
    list.append(section);
    await seedCheck(check, draw);
  }
}

async function loadRoom(room) {
  const url = new URL(location.href);
  url.searchParams.set('room', room);
  history.replaceState(null, '', url);
  const [info, draw] = await Promise.all([
    retrying(() => request('GET', roomPath(room))),
    retrying(() => request('GET', `${roomPath(room)}/lottery`)),
  ]);
  if (info.ok) applyBranding(info.json.branding);
  lanes = info.ok ? info.json.lanes ?? [] : [];
  lottery = draw.ok ? draw.json : null;
  await showLanes();
  if (!lottery) return;
  const fifo = lottery.state === 'fifo';
  show('fifo', fifo);
  show('facts', !fifo);
  fact('f-state', s.states[lottery.state] ?? lottery.state);
  fact('f-commitment', lottery.commitment);
  fact('f-draw', lottery.draw_at == null ? null : formatTime(lottery.draw_at * 1000, Date.now()));
  fact('f-size', lottery.lobby_size == null ? null : formatNumber(lottery.lobby_size));
  fact('f-root', lottery.lobby_root);
  fact('f-rule', lottery.beacon_rule);
  fact('f-beacon', lottery.beacon);
  fact('f-seed', lottery.seed);
  show('beacon-rows', Boolean(lottery.beacon_rule));
  show('no-beacon', !fifo && !lottery.beacon_rule);
  // A value the operator types in is no public beacon: the grinding guarantee is absent too.
  show('operator-beacon', !fifo && lottery.draw?.beacon === 'operator');
  // A drand round: whether two relays agreed on it, never more (the server checks no BLS signature).
  const drand = !fifo && lottery.draw?.beacon === 'drand-quicknet';
  const agreed = lottery.draw?.beacon_check === 'two_relays';
  show('drand-check', drand);
  // Named, so that anyone can judge whether the two are independent; while the draw waits
  // for its round, what for (room info's draw.beacon_waiting).
  setText('drand-check', agreed ? s.drandTwoRelays(lottery.draw.beacon_relays ?? [])
    : lottery.draw?.beacon_waiting ?? s.drandUnconfirmed);
  $('drand-check').className = `small ${agreed ? '' : 'absent'}`.trim();
  const check = $('seed-check');
  if (fifo) {
    check.className = 'result';
    check.textContent = '';
  } else {
    await seedCheck(check, lottery);
  }
}

function showChecks(result, lane) {
  const list = $('checks');
  list.replaceChildren();
  const label = { pass: s.checkPass, fail: s.checkFail, skipped: s.checkSkipped };
  for (const c of result.checks) {
    const item = document.createElement('li');
    const name = document.createElement('span');
    name.textContent = `${s.checkNames[c.name] ?? c.name}: `;
    const status = document.createElement('span');
    status.className = c.status;
    status.textContent = label[c.status];
    const detail = document.createElement('span');
    detail.className = 'detail';
    detail.textContent = c.detail;
    item.append(name, status, detail);
    list.append(item);
  }
  // A place is only worth showing when every check that ran passed.
  const placeResult = $('place-result');
  delete placeResult.dataset.lane;
  if (result.place == null || !result.ok) {
    placeResult.textContent = '';
    delete placeResult.dataset.place;
  } else {
    const number = queueNumber(Number(result.place));
    // A lane's place is within the lane's own queue.
    placeResult.textContent = lane
      ? s.lanePlaceResult(laneName(lane), number, formatNumber(result.place))
      : s.placeResult(number, formatNumber(result.place));
    placeResult.dataset.place = String(result.place);
    if (lane) placeResult.dataset.lane = lane;
  }
  // Only what passed counts: a check that could not run here is not a pass.
  const passed = result.checks.filter((c) => c.status === 'pass').length;
  const all = passed === result.checks.length;
  setText('verdict', !result.ok ? s.someFailed : all ? s.allPassed : s.someNotChecked(passed, result.checks.length));
  $('verdict').className = `result ${!result.ok ? 'fail' : all ? 'pass' : 'skipped'}`;
  setText('hashes', s.hashesUsed(hashes.name));
}

async function checkReceipt() {
  let receipt;
  try {
    receipt = JSON.parse($('receipt').value);
    if (typeof receipt?.room !== 'string' || !Number.isSafeInteger(receipt.lobby_index)) throw new Error();
    $('receipt').value = JSON.stringify(receipt, null, 2);
  } catch {
    $('checks').replaceChildren();
    setText('place-result', '');
    setText('verdict', s.receiptInvalidJson);
    $('verdict').className = 'result fail';
    return;
  }
  const button = $('check');
  button.disabled = true;
  setText('verdict', s.checking);
  $('verdict').className = 'result';
  try {
    if ($('room').value !== receipt.room) {
      $('room').value = receipt.room;
      await loadRoom(receipt.room);
    }
    if (!lottery) return;
    let proof;
    const lane = typeof receipt.lane === 'string' && receipt.lane !== '' ? receipt.lane : null;
    if (laneDraw(lottery, lane)?.lobby_root != null) {
      const query = `index=${receipt.lobby_index}${lane ? `&lane=${encodeURIComponent(lane)}` : ''}`;
      const res = await retrying(() => request('GET', `${roomPath(receipt.room)}/lottery/proof?${query}`));
      if (res.ok) proof = res.json;
    }
    showChecks(await verifyEntry({ lottery, receipt, proof }, { hashes }), lane);
  } finally {
    button.disabled = false;
  }
}

function showCheckList(list, checks, names) {
  list.replaceChildren();
  for (const c of checks) {
    const item = document.createElement('li');
    item.dataset.check = c.name;
    if (c.lane) item.dataset.lane = c.lane;
    const name = document.createElement('span');
    const label = names[c.name] ?? c.name;
    name.textContent = `${c.lane ? s.auditCheckLane(label, laneName(c.lane)) : label}: `;
    const status = document.createElement('span');
    status.className = c.status;
    status.textContent = { pass: s.checkPass, fail: s.checkFail, absent: s.checkAbsent }[c.status];
    const detail = document.createElement('span');
    detail.className = 'detail';
    detail.textContent = c.detail;
    item.append(name, status, detail);
    list.append(item);
  }
}

const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

function formatGap(ms) {
  const seconds = Math.round(ms / 1000);
  if (Math.abs(seconds) < 120) return `+${seconds} s`;
  if (Math.abs(seconds) < 7200) return `+${Math.round(seconds / 60)} min`;
  if (Math.abs(seconds) < 172800) return `+${Math.round(seconds / 3600)} h`;
  return `+${Math.round(seconds / 86400)} d`;
}

const uniformityText = (u) => (u?.pValue == null ? s.uniformityTooSmall : s.uniformity(u.pValue.toFixed(3), u.bands));

function showFairness({ lobbySize, uniformity, timeline, lanes: laneReports = [] }) {
  const figure = $('timeline');
  figure.querySelector('svg')?.remove();
  const events = timelineEvents(timeline, { ...s.timelineLabels, laneName });
  figure.prepend(timelineSvg(events, { formatTime: (ms) => timeOfDay.format(ms), formatGap, title: s.timelineTitle }));
  show('timeline', events.length > 0);
  setText('fr-size', lobbySize == null ? s.notYet : formatNumber(lobbySize));
  setText('fr-uniformity', uniformityText(uniformity));
  // Each other lane's lobby and shuffle, after the general lane's.
  const rows = $('fr-lanes');
  rows.replaceChildren();
  for (const lane of laneReports) {
    const name = laneName(lane.lane);
    for (const [label, value] of [
      [s.fieldLaneLobbySize(name), lane.lobbySize == null ? s.notYet : formatNumber(lane.lobbySize)],
      [s.fieldLaneUniformity(name), uniformityText(lane.uniformity)],
    ]) {
      const dt = document.createElement('dt');
      dt.textContent = label;
      const dd = document.createElement('dd');
      dd.textContent = value;
      dd.dataset.lane = lane.lane;
      rows.append(dt, dd);
    }
  }
  show('fairness', lobbySize != null);
}

async function auditRoom() {
  const button = $('audit');
  const bar = $('audit-progress');
  button.disabled = true;
  bar.value = 0;
  show('audit-progress');
  show('timeline', false);
  show('fairness', false);
  $('audit-checks').replaceChildren();
  setText('audit-verdict', s.checking);
  $('audit-verdict').className = 'result';
  const started = performance.now();
  try {
    // The pinned keys (from a source the reader trusts) instead of the published ones.
    const witnesses = $('pin-witnesses').value.split('\n').map((line) => line.trim()).filter(Boolean);
    const report = await auditDraw(location.origin, $('room').value, {
      vkey: $('pin-vkey').value.trim() || undefined,
      witnesses: witnesses.length > 0 ? witnesses : undefined,
      onProgress: ({ phase, done, total, lane }) => {
        bar.value = total === 0 ? 1 : done / total;
        const text = s.auditPhase[phase](formatNumber(done), formatNumber(total));
        setText('audit-phase', lane ? s.auditPhaseLane(laneName(lane), text) : text);
      },
    });
    showCheckList($('audit-checks'), report.checks, s.auditCheckNames);
    showFairness(report.fairness);
    setText('audit-phase', s.auditDone(((performance.now() - started) / 1000).toFixed(1)));
    const [verdict, state] = report.failed > 0 ? [s.auditFailed, 'fail']
      : report.ok ? [s.auditPassed, 'pass'] : [s.auditIncomplete(report.passed, report.checks.length), 'absent'];
    setText('audit-verdict', verdict);
    $('audit-verdict').className = `result ${state}`;
  } catch {
    setText('audit-verdict', s.auditError);
    $('audit-verdict').className = 'result fail';
  } finally {
    show('audit-progress', false);
    button.disabled = false;
  }
}

async function main() {
  applyStrings();
  const mine = storedReceipts();
  const res = await retrying(() => request('GET', '/api/v1/rooms'));
  const rooms = res.json?.rooms ?? [];
  const select = $('room');
  for (const room of rooms) select.append(new Option(room.name, room.id));
  const wanted = new URL(location.href).searchParams.get('room') ?? mine[0]?.room ?? rooms[0]?.id;
  const receipt = mine.find((r) => r.room === wanted);
  if (receipt) $('receipt').value = JSON.stringify(receipt, null, 2);
  select.addEventListener('change', () => loadRoom(select.value));
  $('check').addEventListener('click', checkReceipt);
  $('audit').addEventListener('click', auditRoom);
  // ?vkey= fills the ledger key field, as a link from a trusted announcement may.
  $('pin-vkey').value = new URL(location.href).searchParams.get('vkey') ?? '';
  if (wanted) {
    select.value = wanted;
    await loadRoom(wanted);
  }
}

main();
