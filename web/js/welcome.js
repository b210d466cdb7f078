// The demo room's target page: it receives the pass as ?foyer_pass= (as a site's guard
// endpoint would), takes it out of the address bar and shows what it says. In a room
// with seats it is also the demo shop: the pass holds seats, the page counts the hold's
// time down and shows the shop's confirmation as it lands.

import { strings as s } from './strings.js';
import { formatCountdown, formatTime } from './format.js';
import { checkPassSignature, readPass } from './passcheck.js';
import { request, sleep } from './api.js';
import { clockOffset } from './timing.js';
import { $, applyBranding, applyStrings, setText, show } from './page.js';

const KEPT = 'foyer:welcome-pass';
const KEPT_HOLD = 'foyer:welcome-hold';
const HOLD_POLL_MS = 2000;
const RETRIES = 3;

const roomPath = (room, rest = '') => `/api/v1/rooms/${encodeURIComponent(room)}${rest}`;

/** A POST that counts once however often it is retried: one Idempotency-Key for all its tries. */
async function postOnce(path, token, body) {
  const headers = { 'idempotency-key': crypto.randomUUID() };
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await request('POST', path, { bearer: token, headers, body });
      if (res.status < 500 || attempt >= RETRIES) return res;
    } catch (error) {
      if (attempt >= RETRIES) throw error;
    }
    await sleep(1000);
  }
}

/** The seats panel: a hold's state, its countdown while held, the shop's part. */
function seatsPanel(room, token) {
  let serverAheadMs = 0;
  let timer = null;

  const stopClock = () => {
    clearInterval(timer);
    timer = null;
    show('hold-countdown', false);
  };
  const startClock = (expiresMs) => {
    const tick = () => setText('hold-clock', formatCountdown((expiresMs - serverAheadMs - Date.now()) / 1000));
    tick();
    show('hold-countdown');
    if (!timer) timer = setInterval(tick, 1000);
  };

  // Shows the hold as the server has it; true while it may still change.
  const render = (hold) => {
    const held = hold.state === 'held';
    const canHold = !held && hold.state !== 'confirmed' && hold.state !== 'waitlisted';
    show('hold-form', canHold);
    show('seats-lead', canHold);
    show('hold-shop', held);
    if (held) {
      setText('hold-state', s.holdHeld(hold.seats));
      setText('hold-confirm', [
        `curl -X POST -H "Authorization: Bearer $SITE" -H "Idempotency-Key: pay-${hold.hold_id}" \\`,
        `  ${location.origin}${roomPath(room, `/holds/${hold.hold_id}/confirm`)}`,
      ].join('\n'));
      startClock(Date.parse(hold.expires_at));
      return true;
    }
    stopClock();
    setText('hold-state', {
      confirmed: () => s.holdConfirmed(hold.confirmation_id),
      released: () => s.holdReleased,
      expired: () => s.holdExpired,
      refund_required: () => s.holdRefund,
      waitlisted: () => s.holdWaitlisted(hold.waitlist_position),
    }[hold.state]?.() ?? hold.state);
    if (hold.state !== 'waitlisted') sessionStorage.removeItem(KEPT_HOLD);
    return hold.state === 'waitlisted';
  };

  const follow = async (holdId) => {
    sessionStorage.setItem(KEPT_HOLD, holdId);
    for (;;) {
      const res = await request('GET', roomPath(room, `/holds/${holdId}`), { bearer: token }).catch(() => null);
      if (res?.ok && !render(res.json)) return;
      if (res && (res.status === 401 || res.status === 404)) {
        sessionStorage.removeItem(KEPT_HOLD);
        return;
      }
      await sleep(HOLD_POLL_MS);
    }
  };

  const place = async (event) => {
    event.preventDefault();
    const seats = Number($('hold-count').value);
    const res = await postOnce(roomPath(room, '/holds'), token, { seats }).catch(() => null);
    if (res?.status === 201) {
      render(res.json);
      follow(res.json.hold_id);
    } else if (res?.json?.error === 'waitlist_offered') {
      render({ state: 'waitlisted', waitlist_position: res.json.waitlist_position });
      follow(res.json.hold_id);
    } else {
      setText('hold-state', res?.json?.detail ?? s.holdNoAnswer);
    }
  };

  const release = async () => {
    const holdId = sessionStorage.getItem(KEPT_HOLD);
    if (!holdId) return;
    const res = await postOnce(roomPath(room, `/holds/${holdId}/release`), token).catch(() => null);
    if (res?.ok) render(res.json);
  };

  return {
    async start(inventory) {
      const sent = Date.now();
      const frontier = await request('GET', roomPath(room, '/frontier')).catch(() => null);
      if (frontier?.ok) serverAheadMs = clockOffset(sent, frontier.json.at);
      setText('seats-lead', s.seatsLead(inventory.available, inventory.total));
      const count = $('hold-count');
      for (let n = 1; n <= inventory.max_seats_per_hold; n++) count.append(new Option(String(n), String(n)));
      $('hold-form').addEventListener('submit', place);
      $('hold-release').addEventListener('click', release);
      show('seats');
      const kept = sessionStorage.getItem(KEPT_HOLD);
      if (kept) follow(kept);
    },
  };
}

async function main() {
  applyStrings();
  const url = new URL(location.href);
  const fromQuery = url.searchParams.get('foyer_pass');
  if (fromQuery) {
    // A pass in the address bar ends up in bookmarks and screenshots: keep it for reloads only.
    sessionStorage.setItem(KEPT, fromQuery);
    url.searchParams.delete('foyer_pass');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  const token = fromQuery ?? sessionStorage.getItem(KEPT);
  let claims;
  try {
    claims = readPass(token).claims;
  } catch {
    setText('lead', s.welcomeNoPass);
    return;
  }
  setText('lead', s.welcomeLead);
  setText('pass-room', claims.aud);
  setText('pass-visitor', claims.sub);
  setText('pass-expires', formatTime(claims.exp * 1000, Date.now()));
  show('pass');
  const [room, jwks] = await Promise.all([
    fetch(roomPath(claims.aud)).then((r) => (r.ok ? r.json() : null)).catch(() => null),
    fetch('/.well-known/jwks.json').then((r) => r.json()).catch(() => null),
  ]);
  if (room) applyBranding(room.branding);
  if (room?.inventory) await seatsPanel(claims.aud, token).start(room.inventory);
  const verdict = jwks ? await checkPassSignature(token, jwks) : 'not checked';
  const { kid } = readPass(token).header;
  setText('pass-signature', {
    valid: s.passSignatureValid(kid),
    invalid: s.passSignatureInvalid,
    'not checked': s.passSignatureUnchecked,
  }[verdict]);
}

main();
