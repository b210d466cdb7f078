// The Worker connector's test entry (tests/connectors/conformance.test.js, worker.test.js),
// run by workerd beside connectors/worker/foyer-pass-worker.js: POST /__vectors with the
// shared vectors answers the verdicts, computed in workerd with its WebCrypto; POST /__done
// with a list of jti reports them with the connector's done() (to the Foyer at ?foyer= if
// given); /__open/... goes to the
// origin unchecked (the benchmark's unprotected page); every other request goes to the
// connector.
import connector, { done, entryLocation, loadKeys, refusalLocation, upstreamUrl, verifyPass } from './foyer-pass-worker.js';

async function vectors(v) {
  const keys = {};
  for (const [name, set] of Object.entries(v.keys)) keys[name] = await loadKeys(JSON.stringify(set));
  const expect = { issuer: v.issuer, room: v.room, leeway: v.leeway_seconds };
  const out = { passes: {}, destinations: {}, refusals: {} };
  for (const p of v.passes) out.passes[p.name] = await verifyPass(p.token, keys[p.keys], expect, p.now);
  for (const d of v.destinations) out.destinations[d.target] = entryLocation(d.target);
  for (const r of v.refusals) out.refusals[r.name] = refusalLocation(v.login_url, r.error, r.target);
  return Response.json(out);
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === '/__vectors') return vectors(await request.json());
    if (url.pathname === '/__done') {
      const foyer = url.searchParams.get('foyer');
      return Response.json(await done(await request.json(), foyer ? { ...env, FOYER_URL: foyer } : env));
    }
    if (url.pathname.startsWith('/__open/')) return fetch(upstreamUrl(env.ORIGIN, url));
    return connector.fetch(request, env, ctx);
  },
};
