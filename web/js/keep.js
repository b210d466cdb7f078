// "Keep my place": a resume link (and its QR code) that restores this visitor's ticket,
// and so their place, in another browser or on another device; the visitor may revoke
// it. A browser that opened such a link comes back to the waiting page with ?resumed,
// holding the ticket as its cookie: the page takes it up as its entry.

import { strings as s } from './strings.js';
import { request, retrying } from './api.js';
import { $, setText, show } from './page.js';

const linkPath = (room) => `/api/v1/rooms/${encodeURIComponent(room)}/resume-link`;

function showLink(link) {
  $('keep-link').value = link.url ?? new URL(link.path, location.href).href;
  const qr = $('keep-qr');
  if (link.qr_svg) qr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(link.qr_svg)}`;
  show('keep-qr', Boolean(link.qr_svg));
  show('keep-panel');
  show('keep-open', false);
}

/**
 * Offers the link while the visitor waits, for the ticket `ticket()` gives at the time
 * (a lobby ticket is reissued with its place after the draw).
 */
export function offerKeep(room, ticket) {
  show('keep');
  $('keep-open').onclick = async () => {
    setText('keep-status', '');
    const res = await request('POST', linkPath(room), { bearer: ticket() }).catch(() => null);
    if (res?.ok) {
      showLink(res.json);
      $('keep-link').select();
    } else {
      setText('keep-status', s.keepFailed(res?.json?.detail ?? s.keepOffline));
    }
  };
  $('keep-revoke').onclick = async () => {
    const res = await request('DELETE', linkPath(room), { bearer: ticket() }).catch(() => null);
    if (res?.ok) {
      show('keep-panel', false);
      show('keep-open');
      setText('keep-status', s.keepRevoked);
    } else {
      setText('keep-status', s.keepFailed(res?.json?.detail ?? s.keepOffline));
    }
  };
}

export function withdrawKeep() {
  show('keep', false);
}

/**
 * On arrival from a resume link: the entry of the ticket the link set as this browser's
 * cookie (a join that presents a ticket answers its entry, with no proof of work), or
 * null if there is none. The ?resumed mark leaves the address either way.
 */
export async function resumedEntry(room) {
  const params = new URLSearchParams(location.search);
  if (!params.has('resumed')) return null;
  params.delete('resumed');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}`);
  const res = await retrying(() => request('POST', `/api/v1/rooms/${encodeURIComponent(room)}/join`));
  return res.status === 200 && res.json?.existing ? { ticket: res.json.ticket } : null;
}
