// The waiting room: joins (proof of work in workers), then polls the visitor's status
// and shows it until the visitor is admitted and sent to the site with their pass.

import { strings as s } from './strings.js';
import {
  formatCountdown, formatDuration, formatNumber, formatOdds, formatTime, progressFraction, queueNumber, withPass,
} from './format.js';
import { clockOffset, farPollDelay, pollDelay, retryDelay, startJitter } from './timing.js';
import { request, retrying, sleep } from './api.js';
import { solve } from './pow.js';
import { loadEntry, loadSends, saveEntry, saveSends } from './storage.js';
import { nextSend, refusalReason, wantedPage } from './bounce.js';
import { $, applyBranding, applyStrings, setText, show } from './page.js';
import { offerKeep, resumedEntry, withdrawKeep } from './keep.js';
import { offerNotices } from './notify.js';

// A refused proof is retried with a fresh challenge this many times before asking the visitor.
const MAX_PROOF_ATTEMPTS = 5;
// Screen readers hear a new state at once, position changes at most this often.
const ANNOUNCE_INTERVAL_MS = 30_000;
// The solver's hash count is an estimate: the bar stops short of full until the last puzzle is solved.
const WORK_ESTIMATE_CAP = 0.95;
// In the lobby the page asks the room's cacheable frontier this often whether the
// operator closed the lobby early; the status itself is asked as the server says.
const LOBBY_FRONTIER_POLL_MS = 5000;
// How often a room with lanes reads again how they share admission.
const LANES_REFRESH_MS = 60_000;
// The refusals of a join that the page answers with another way in: a code, or without the invite.
const ENTRY_REFUSALS = ['invalid_code', 'code_required', 'invite_required'];
const SECTIONS = [
  'code-form', 'lanes-split', 'work', 'countdown', 'drawn', 'figures', 'queue', 'odds', 'alternatives', 'receipt-note', 'action', 'continue',
];

const apiPath = (room, action) => `/api/v1/rooms/${encodeURIComponent(room)}${action ? `/${action}` : ''}`;

let roomName = s.roomTitle;
let serverAheadMs = 0;
let countdownTimer = null;
let drawAtMs = 0;
// How many were in the lobby, once it closed: read once from the published draw.
let lobbySize = null;
let lastTitle = '';
let lastAnnounceAt = 0;
// A room's lanes (from its info), and when they were read.
let lanes = null;
let lanesAt = 0;

function notice(kind, delayMs) {
  if (!kind) {
    setText('notice', '');
    return;
  }
  const when = s.inSeconds(Math.ceil(delayMs / 1000));
  setText('notice', kind === 'offline' ? s.offline(when) : s.busy(when));
}

const patient = (attempt) => retrying(attempt, { onWait: notice });

function announce(text) {
  lastAnnounceAt = Date.now();
  setText('announce', text);
}

/**
 * Shows one state: its title and lead, and only the named sections. A new state is
 * announced with `detail` after its lead; returns whether it was.
 */
function screen(title, lead, sections = [], detail = '') {
  setText('title', title);
  setText('lead', lead);
  for (const id of SECTIONS) show(id, sections.includes(id));
  document.title = `${title} · ${roomName}`;
  if (!sections.includes('countdown')) stopCountdown();
  if (title === lastTitle) return false;
  lastTitle = title;
  announce(`${title}. ${lead} ${detail}`.trim());
  return true;
}

/** Shows a button and resolves when it is pressed. */
function choice(label) {
  const button = $('action');
  button.textContent = label;
  show('action');
  button.focus();
  return new Promise((resolve) => {
    button.onclick = () => {
      show('action', false);
      resolve();
    };
  });
}

async function failed(res) {
  screen(s.errorTitle, s.errorLead(res.json?.message ?? `HTTP ${res.status}`));
  await choice(s.tryAgain);
}

/** The rooms a sold-out room offers instead, those still taking visitors, as links. */
function showAlternatives(alternatives = []) {
  const list = $('alternatives-list');
  list.replaceChildren();
  for (const room of alternatives) {
    const state = s.alternativeState[room.state];
    if (!state) continue;
    const link = document.createElement('a');
    link.href = room.url;
    link.textContent = room.name;
    const item = document.createElement('li');
    item.append(link, ` (${state})`);
    list.append(item);
  }
  return list.children.length > 0 ? ['alternatives'] : [];
}

function ended(code, alternatives) {
  if (code === 'sold_out') screen(s.soldOutTitle, s.soldOutLead, showAlternatives(alternatives));
  else if (code === 'expired') screen(s.turnEndedTitle, s.turnEndedLead);
  else screen(s.closedTitle, s.closedLead);
  return null;
}

function stopCountdown() {
  clearInterval(countdownTimer);
  countdownTimer = null;
}

function tickCountdown() {
  const left = (drawAtMs - serverAheadMs - Date.now()) / 1000;
  setText('countdown-clock', left > 0 ? formatCountdown(left) : s.countdownDone);
}

function startCountdown(atMs, label = s.countdownLabel) {
  setText('countdown-label', label);
  drawAtMs = atMs;
  tickCountdown();
  if (!countdownTimer) countdownTimer = setInterval(tickCountdown, 1000);
}

async function measureClock(room) {
  const sent = Date.now();
  try {
    const res = await request('GET', apiPath(room, 'frontier'));
    if (res.ok) serverAheadMs = clockOffset(sent, res.json.at);
  } catch {
    // Unreachable for now: the countdown trusts this device's clock.
  }
}

async function findRoom() {
  const m = /^\/r\/([^/]+)\/?$/.exec(location.pathname);
  if (m) return decodeURIComponent(m[1]);
  const res = await patient(() => request('GET', '/api/v1/rooms'));
  return res.ok && res.json.rooms.length === 1 ? res.json.rooms[0].id : null;
}

async function solveChallenge(challenge) {
  const bar = $('work-bar');
  bar.value = 0;
  return solve(challenge, {
    onProgress: ({ solved, puzzles, hashes, expectedHashes }) => {
      bar.value = Math.max(solved / puzzles, Math.min(WORK_ESTIMATE_CAP, hashes / expectedHashes));
    },
  });
}

/**
 * The site's invite (?invite=<token>), which names the visitor's account and lane, or its
 * account hint (?account=..&account_hint=..), when it sent the visitor here with one.
 */
function siteFields() {
  const params = new URLSearchParams(location.search);
  const invite = params.get('invite');
  if (invite) return { invite };
  const account = params.get('account');
  const hint = params.get('account_hint');
  return account && hint ? { account, account_hint: hint } : {};
}

/**
 * Gets a ticket: challenge, proof of work, join, with `fields` (the site's invite or
 * account hint, or an access code). Returns the new entry, null when the room takes
 * nobody, or {refused: problem} when the server refused the code or the invite (or
 * wanted one), with `waitMs` when it refused because too many codes were tried.
 */
async function join(room, previous, fields) {
  // A challenge the server handed back with a refusal because the price rose meanwhile.
  let offered = null;
  for (let refused = 0; ;) {
    screen(s.joiningTitle, s.joiningLead, ['work']);
    let challenge = offered;
    offered = null;
    if (!challenge) {
      const res = await patient(() => request('POST', apiPath(room, 'challenge')));
      if (res.status === 410) return ended(res.json?.error);
      if (!res.ok) {
        await failed(res);
        continue;
      }
      challenge = res.json;
    }
    let proof;
    try {
      proof = await solveChallenge(challenge);
    } catch (error) {
      await failed({ json: { message: error.message } });
      continue;
    }
    // Too many codes tried from this network is the visitor's to wait out, at the form.
    const res = await retrying(() => request('POST', apiPath(room, 'join'), { body: { ...proof, ...fields } }),
      { onWait: notice, settled: (answer) => answer.status === 429 && Boolean(fields.code) });
    if (res.status === 201 || res.status === 200) {
      notice(null);
      const entry = { ticket: res.json.ticket, receipt: res.json.receipt ?? (res.json.existing ? previous.receipt : undefined) };
      saveEntry(room, entry);
      return entry;
    }
    // The price is capped, so a run of rises ends; each is solved without asking the visitor.
    if (res.status === 409 && res.json?.error === 'price_rose' && res.json.new_challenge) {
      setText('notice', s.priceRose);
      offered = res.json.new_challenge;
      continue;
    }
    if (res.status === 403 && res.json?.error === 'proof_rejected' && ++refused < MAX_PROOF_ATTEMPTS) {
      setText('notice', s.proofRetry);
      continue;
    }
    if (res.status === 429) {
      notice(null);
      return { refused: res.json ?? {}, waitMs: res.retryAfter ?? retryDelay(null, 0, Math.random()) };
    }
    if (res.status === 403 && ENTRY_REFUSALS.includes(res.json?.error)) return { refused: res.json };
    if (res.status === 410) return ended(res.json?.error);
    await failed(res);
  }
}

// Counts down while the code form is closed after too many codes were tried.
let codeWaitTimer = null;

function reopenCodeForm() {
  clearInterval(codeWaitTimer);
  codeWaitTimer = null;
  setText('code-submit', s.codeSubmit);
  $('code').disabled = false;
  $('code-submit').disabled = false;
}

/**
 * Keeps the code form closed for `waitMs`: the submit button counts the seconds down (a
 * button is not announced at each change, the refusal above it was, once), then the
 * field takes the focus again.
 */
function closeCodeForm(waitMs) {
  const until = Date.now() + waitMs;
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left > 0) {
      setText('code-submit', s.codeSubmitIn(formatNumber(left)));
      return;
    }
    reopenCodeForm();
    $('code').focus();
  };
  clearInterval(codeWaitTimer);
  $('code').disabled = true;
  $('code-submit').disabled = true;
  codeWaitTimer = setInterval(tick, 250);
  tick();
}

/** What the code form says above the field for the last refusal: the server's words about a code, or how long to wait. */
function codeProblemText(problem, waitMs) {
  if (waitMs) {
    const seconds = Math.ceil(waitMs / 1000);
    return s.codesTooMany(formatNumber(seconds), seconds);
  }
  return problem ? problem.detail ?? problem.message : '';
}

/**
 * Asks for an access code, beside a button to join without one while the general lane
 * is `open`, under `title` and `lead` when given. Shows the server's `problem` with the
 * last code, which stays typed, and keeps the form closed for `waitMs` if given.
 * Resolves to the code, or '' to join without.
 */
function askCode({ open, problem = null, waitMs = 0, title, lead }) {
  const input = $('code');
  const error = $('code-error');
  error.textContent = codeProblemText(problem, waitMs);
  input.setAttribute('aria-invalid', String(Boolean(problem) && !waitMs));
  screen(title ?? (open ? s.enterTitle : s.codeOnlyTitle), lead ?? (open ? s.enterLead : s.codeOnlyLead),
    open ? ['code-form', 'action'] : ['code-form']);
  show('code-title', open);
  if (open) $('action').textContent = s.joinWithoutCode;
  if (waitMs) closeCodeForm(waitMs);
  // The field takes the focus (and a phone's keyboard) when it is the way in or needs correcting.
  else if (problem || !open) input.focus();
  return new Promise((resolve) => {
    $('code-form').onsubmit = (event) => {
      event.preventDefault();
      if (codeWaitTimer) return;
      const code = input.value.trim();
      input.setAttribute('aria-invalid', String(!code));
      if (code) resolve(code);
      else error.textContent = s.codeMissing;
    };
    $('action').onclick = () => {
      reopenCodeForm();
      resolve('');
    };
  });
}

/**
 * Joins: with the site's invite when it sent one, through the access code form in a
 * room where a lane takes codes or the general lane wants one, or straight in. A
 * refused invite is said as such and dropped: the visitor may still enter a code or
 * join the general lane, when the room lets them. Resolves to the entry, or null when
 * there is no way in left.
 */
async function enter(room, previous) {
  const general = lanes?.find((lane) => lane.id === 'general')?.entry ?? 'open';
  let open = general === 'open';
  let takesCodes = lanes?.some((lane) => lane.entry === 'code' && lane.declared) ?? false;
  let site = siteFields();
  let inviteRefused = false;
  let refusal = null;
  for (;;) {
    let fields = site;
    if (!site.invite && (inviteRefused || !open || takesCodes)) {
      const title = inviteRefused ? s.inviteRefusedTitle : !open && !takesCodes ? s.inviteOnlyTitle : undefined;
      const lead = inviteRefused ? s.inviteRefusedLead : !open && !takesCodes ? s.inviteOnlyLead : undefined;
      if (takesCodes) {
        const more = inviteRefused ? ` ${s.inviteRefusedCode}` : '';
        const code = await askCode({ open, ...refusal, title, lead: lead && `${lead}${more}` });
        fields = code ? { ...site, code } : site;
      } else if (open) {
        // An invite refused in a room whose general lane is open to all.
        screen(title, `${lead} ${s.inviteRefusedOpen}`);
        await choice(s.joinWithoutInvite);
      } else {
        screen(title, lead);
        return null;
      }
    }
    const result = await join(room, previous, fields);
    // The visitor's lane now has one more waiting: its share is read afresh.
    lanesAt = 0;
    if (!result?.refused) return result;
    const { error } = result.refused;
    refusal = fields.code ? { problem: result.refused, waitMs: result.waitMs } : null;
    if (fields.invite && error === 'invalid_code') {
      inviteRefused = true;
      site = {};
    }
    if (error === 'code_required' || error === 'invite_required') open = false;
    if (error === 'code_required') takesCodes = true;
  }
}

/** Reads the room's lanes again when they are old: how they share admission moves with who waits. */
async function refreshLanes(room) {
  if (!lanes || Date.now() - lanesAt < LANES_REFRESH_MS) return;
  lanesAt = Date.now();
  try {
    const res = await request('GET', apiPath(room));
    if (res.ok && res.json.lanes) lanes = res.json.lanes;
  } catch {
    // Unreachable for now: the shares shown stay as they were.
  }
}

/** The visitor's lane by name, and how the lanes share admission now; [] outside a room with lanes. */
function showLane(st) {
  const mine = st.lane && lanes?.find((lane) => lane.id === st.lane);
  show('lane-figure', Boolean(mine));
  if (!mine) return [];
  setText('lane', mine.name);
  // The lanes sharing admission now: those with visitors waiting, the visitor's among them.
  const sharing = lanes.filter((lane) => lane.waiting > 0 || lane.id === mine.id);
  const parts = sharing.map((lane) => s.laneShare(lane.name, formatNumber(Math.round(lane.share_now * 100))));
  setText('lanes-split', s.lanesSplit(parts));
  return ['lanes-split'];
}

function renderQueue(st, entry) {
  const paused = st.state === 'paused';
  const sections = ['figures', ...showLane(st), 'queue'];
  // A lobby's entrant sees, in words, the number the draw gave them.
  const drawn = st.lobby_index == null ? '' : s.drawn(queueNumber(st.place), lobbySize == null ? null : formatNumber(lobbySize));
  setText('drawn', drawn);
  if (drawn) sections.unshift('drawn');
  setText('place', queueNumber(st.place));
  setText('ahead', formatNumber(st.position));
  const now = Date.now();
  // No expected wait while admission is paused or held (seats or passes all taken): none is made up.
  const held = paused || st.eta_seconds == null;
  const duration = paused ? s.pausedWait : formatDuration(st.eta_seconds);
  setText('eta', duration);
  setText('eta-time', held ? '' : s.around(formatTime(now + st.eta_seconds * 1000, now)));
  $('queue-bar').value = progressFraction(entry.firstPosition, st.position);
  if (st.stock_left != null) {
    // Honest odds: of those ahead, only the share who claim their turn buy.
    const buyersAhead = Math.round(st.position * (st.claim_ratio ?? 1));
    setText('odds', formatOdds(st.stock_left, buyersAhead));
    sections.push('odds');
  }
  const say = paused ? s.announcePaused : held ? s.announceHeld : s.announceWaiting;
  const where = say(formatNumber(st.position), st.position, duration);
  const announced = screen(paused ? s.pausedTitle : s.waitingTitle, paused ? s.pausedLead : s.waitingLead, sections,
    drawn ? `${drawn}. ${where}` : where);
  if (!announced && Date.now() - lastAnnounceAt >= ANNOUNCE_INTERVAL_MS) announce(where);
}

/**
 * Sends an admitted visitor to the site with their pass, unless the site keeps sending
 * the same pass back: then the loop stops here and the page says why, as the site's
 * guard gave it; the link still lets the visitor try once more. Only a redirect counts
 * as coming back: a reload or the Back button is the visitor's own doing.
 */
function sendOn(room, st) {
  const url = withPass(st.target_url, st.pass, location.href, wantedPage(location.search));
  $('continue').href = url;
  const arrival = performance.getEntriesByType('navigation')[0]?.type ?? 'navigate';
  const { loop, record } = nextSend(arrival === 'navigate' ? loadSends(room) : null, st.pass, Date.now());
  saveSends(room, record);
  if (loop) {
    screen(s.passRefusedTitle, s.passRefusedLead(refusalReason(location.search)), ['continue']);
    return;
  }
  screen(s.admittedTitle, s.admittedLead, ['continue']);
  location.assign(url);
}

function render(st, entry, room) {
  if (entry.receipt && st.lobby_index != null) setText('receipt-note', s.lobbyNumber(formatNumber(st.lobby_index + 1)));
  const receipt = entry.receipt ? ['receipt-note'] : [];
  switch (st.state) {
    case 'lobby': {
      const atMs = st.draw_at * 1000;
      screen(s.lobbyTitle, s.lobbyLead(formatTime(atMs - serverAheadMs, Date.now())), ['countdown', ...receipt]);
      startCountdown(atMs);
      break;
    }
    case 'drawing':
      screen(s.drawingTitle, s.drawingLead, receipt);
      break;
    case 'waiting':
    case 'paused':
      renderQueue(st, entry);
      break;
    case 'holding': {
      // A hold took the pass's slot: the seats are the visitor's until the shop confirms
      // them or their time runs out.
      $('continue').href = new URL(st.target_url, location.href).href;
      screen(s.holdingTitle, s.holdingLead(st.hold_seats), ['countdown', 'continue']);
      startCountdown(Date.parse(st.hold_expires_at), s.holdCountdownLabel);
      break;
    }
    case 'waitlisted':
      // In line for seats that come back: held in order, or the place lapses.
      screen(s.waitlistedTitle, s.waitlistedLead(st.hold_seats, formatNumber(st.waitlist_position)), ['countdown']);
      startCountdown(Date.parse(st.hold_expires_at), s.waitlistCountdownLabel);
      break;
    case 'admitted':
      sendOn(room, st);
      break;
    default:
      ended(st.state, st.alternatives);
  }
}

/**
 * Far from the front: polls the room's frontier, which a CDN can answer for everyone,
 * and shows the position it gives this place, until the visitor comes within the
 * server's `frontier_above` places. Resolves to the room's end state if it ends.
 */
async function watchFrontier(room, entry, st) {
  let view = st;
  let delay = pollDelay(st.poll_after_ms, Math.random());
  for (;;) {
    await sleep(delay);
    const res = await patient(() => request('GET', apiPath(room, 'frontier'), { cache: 'default' }));
    if (!res.ok) {
      await failed(res);
      continue;
    }
    // In a room with lanes, the visitor's lane has its own frontier and rate.
    const lane = st.lane ? res.json.lanes?.[st.lane] : null;
    const { state } = res.json;
    const served = lane ? lane.served : res.json.served;
    const rate = lane ? lane.rate_per_minute : res.json.rate_per_minute;
    if (state === 'sold_out' || state === 'closed') return state;
    const position = Math.max(0, view.place - served);
    const wasPaused = view.state === 'paused';
    // Admission the status said was held stays so until the frontier moves: no time is made up.
    const held = st.eta_seconds == null && served === st.served;
    view = {
      ...view,
      state: state === 'paused' ? 'paused' : 'waiting',
      served,
      position,
      eta_seconds: held || state === 'paused' ? null : Math.ceil(((position + 1) * 60) / Math.max(1, rate)),
    };
    render(view, entry, room);
    // A reopening brings everyone back at once: spread the first requests after it.
    const resumed = wasPaused && view.state !== 'paused';
    if (position <= st.frontier_above) {
      if (resumed) await sleep(startJitter(Math.random()));
      return null;
    }
    delay = farPollDelay(position, rate, Math.random()) + (resumed ? startJitter(Math.random()) : 0);
  }
}

/** The wait before the next status poll; a lobby's poll that would pass the draw lands just after it, spread. */
function statusDelay(st) {
  const delay = pollDelay(st.poll_after_ms, Math.random());
  if (st.state !== 'lobby') return delay;
  const untilDraw = st.draw_at * 1000 - serverAheadMs - Date.now();
  return untilDraw >= 0 && untilDraw < delay ? untilDraw + startJitter(Math.random()) : delay;
}

/**
 * In the lobby, until the next status poll is due: asks the room's frontier (which a
 * CDN can answer for everyone) every few seconds, and returns early once the lobby has
 * closed, so that an early draw shows within one of these polls.
 */
async function waitInLobby(room, st) {
  const until = Date.now() + statusDelay(st);
  for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
    await sleep(Math.min(left, pollDelay(LOBBY_FRONTIER_POLL_MS, Math.random())));
    if (Date.now() >= until) return;
    try {
      const res = await request('GET', apiPath(room, 'frontier'), { cache: 'default' });
      if (res.ok && res.json.state !== 'lobby') return;
    } catch {
      // No answer: the status poll, when due, retries patiently.
    }
  }
}

/** The lobby's size once it has closed, from the published draw; null until known. */
async function closedLobbySize(room) {
  try {
    const res = await request('GET', apiPath(room, 'lottery'), { cache: 'default' });
    return res.ok ? res.json.lobby_size : null;
  } catch {
    return null;
  }
}

/** Polls until the visitor is admitted ('admitted'), the room ends ('ended') or the ticket is refused ('expired'). */
async function watch(room, entry) {
  for (;;) {
    const res = await patient(() => request('GET', apiPath(room, 'status'), { bearer: entry.ticket }));
    if (res.status === 401 || res.status === 403) {
      saveEntry(room, { receipt: entry.receipt });
      return 'expired';
    }
    if (!res.ok) {
      await failed(res);
      continue;
    }
    const st = res.json;
    const before = JSON.stringify(entry);
    if (st.ticket) entry.ticket = st.ticket;
    if (st.position != null && entry.firstPosition == null) entry.firstPosition = st.position;
    if (JSON.stringify(entry) !== before) saveEntry(room, entry);
    if (st.lobby_index != null && ['waiting', 'paused'].includes(st.state) && lobbySize == null) {
      lobbySize = await closedLobbySize(room);
    }
    await refreshLanes(room);
    render(st, entry, room);
    if (st.state === 'admitted') return 'admitted';
    if (['sold_out', 'closed', 'expired'].includes(st.state)) return 'ended';
    if (st.frontier_above != null && st.position > st.frontier_above) {
      const end = await watchFrontier(room, entry, st);
      if (!end) continue;
      ended(end);
      return 'ended';
    }
    await (st.state === 'lobby' ? waitInLobby(room, st) : sleep(statusDelay(st)));
  }
}

async function main() {
  applyStrings();
  addEventListener('offline', () => setText('notice', s.offlineNow));
  const room = await findRoom();
  if (!room) return screen(s.unknownRoomTitle, s.unknownRoomLead);
  $('verify-link').href = `/verify?room=${encodeURIComponent(room)}`;
  const info = await patient(() => request('GET', apiPath(room)));
  if (info.status === 404) return screen(s.unknownRoomTitle, s.unknownRoomLead);
  if (info.ok) {
    roomName = info.json.name;
    lanes = info.json.lanes ?? null;
    lanesAt = Date.now();
    applyBranding(info.json.branding);
  }
  await measureClock(room);
  const resumed = await resumedEntry(room);
  if (resumed) saveEntry(room, resumed);
  for (;;) {
    let entry = loadEntry(room);
    if (!entry.ticket) {
      if (info.json?.state === 'sold_out' || info.json?.state === 'closed') return ended(info.json.state, info.json.alternatives);
      entry = await enter(room, entry);
      if (!entry) return;
    }
    offerKeep(room, () => entry.ticket);
    offerNotices(room, () => entry.ticket, info.json?.notifications);
    const outcome = await watch(room, entry);
    withdrawKeep();
    if (outcome !== 'expired') return;
    screen(s.expiredTitle, s.expiredLead);
    await choice(s.rejoin);
  }
}

main();
