// The demo room's target page: it receives the pass as ?foyer_pass= (as a site's guard
// endpoint would), takes it out of the address bar and shows what it says.

import { strings as s } from './strings.js';
import { formatTime } from './format.js';
import { checkPassSignature, readPass } from './passcheck.js';
import { applyBranding, applyStrings, setText, show } from './page.js';

const KEPT = 'foyer:welcome-pass';

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
    fetch(`/api/v1/rooms/${encodeURIComponent(claims.aud)}`).then((r) => (r.ok ? r.json() : null)).catch(() => null),
    fetch('/.well-known/jwks.json').then((r) => r.json()).catch(() => null),
  ]);
  if (room) applyBranding(room.branding);
  const verdict = jwks ? await checkPassSignature(token, jwks) : 'not checked';
  const { kid } = readPass(token).header;
  setText('pass-signature', {
    valid: s.passSignatureValid(kid),
    invalid: s.passSignatureInvalid,
    'not checked': s.passSignatureUnchecked,
  }[verdict]);
}

main();
