// Bench: guard verifications per second with and without its cache, against nginx serving
// the same upstream without auth_request, in one run on this machine. Needs wrk.
//   FOYER_BIN=build/foyer node tests/nginx/bench-guard.js [seconds per run, default 10]
// Prints a table and one JSON line (for bench/RESULTS.md). Figures are only comparable
// within one run: the ratios are the result.
import { execFileSync } from 'node:child_process';
import { Foyer } from '../lib/foyer.js';
import { Guard, Nginx, admit } from './harness.js';

const seconds = Number(process.argv[2] ?? 10);
const connections = 64;
const issuer = 'https://queue.bench';

function wrk(url, headers = {}) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const out = execFileSync('wrk', [...args, url], { encoding: 'utf8' });
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const p99 = /99%\s+(\S+)/.exec(out)[1];
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad) throw new Error(`${url}: ${bad[1]} answers were not 2xx:\n${out}`);
  return { rate: Math.round(rate), p99 };
}

const foyer = await new Foyer({
  server: { issuer },
  rooms: [{ id: 'sale', name: 'Sale', rate_per_minute: 600000, pass_ttl_seconds: 3600, target_url: '/' }],
}).start();
const { pass } = await admit(foyer, 'sale');
const guardArgs = ['--jwks', `${foyer.url}/.well-known/jwks.json`, '--room', 'sale', '--issuer', issuer, '--login-url', `${foyer.url}/r/sale`];
const cached = await new Guard(guardArgs).start();
const uncached = await new Guard([...guardArgs, '--cache-size', '0']).start();
const siteCached = await new Nginx({ guardPort: cached.port }).start();
const siteUncached = await new Nginx({ guardPort: uncached.port }).start();
const cookie = { Cookie: `foyer_pass=${pass}` };

try {
  const results = {
    nginx_no_auth: wrk(`${siteCached.url}/`),
    nginx_auth_guard_cached: wrk(`${siteCached.url}/shop/`, cookie),
    nginx_auth_guard_uncached: wrk(`${siteUncached.url}/shop/`, cookie),
    guard_direct_cached: wrk(`${cached.url}/auth`, cookie),
    guard_direct_uncached: wrk(`${uncached.url}/auth`, cookie),
  };
  const reference = results.nginx_no_auth.rate;
  console.log(`wrk -t1 -c${connections} -d${seconds}s; nginx 1 worker; guard 1 thread; ${new Date().toISOString()}`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(28)} ${String(r.rate).padStart(8)} req/s  p99 ${r.p99.padStart(8)}  ${(r.rate / reference).toFixed(2)}x nginx without auth`);
  }
  const health = await cached.health();
  console.log(`cached guard: ${health.checks} checks, ${health.signature_checks} signature checks`);
  console.log(JSON.stringify({ bench: 'guard', seconds, connections, results }));
} finally {
  await siteCached.stop();
  await siteUncached.stop();
  await cached.stop();
  await uncached.stop();
  await foyer.cleanup();
}
