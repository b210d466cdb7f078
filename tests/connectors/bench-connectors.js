// Bench: what a connector's check costs per request, in one run on this machine (needs wrk).
//   FOYER_BIN=$PWD/build/foyer node tests/connectors/bench-connectors.js [seconds per run, default 5]
// - HAProxy (native jwt_verify) and the edge Worker (workerd): a protected page with a good
//   pass against the same page unprotected, in front of the same nginx origin answering 200.
// - PHP (built-in server) and Node (node:http): a page behind the connector with a good pass
//   against the same page behind a no-op.
// Prints a table and one JSON line (for bench/RESULTS.md). Only the ratios within one run mean
// anything.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo, runFoyer } from '../lib/foyer.js';
import { Guard, admit, freePort, launchNginx, nginxConfig } from '../nginx/harness.js';
import { startDriver, startFoyer, startHaproxy, startWorkerd, stopAll, vectors } from './harness.js';

const seconds = Number(process.argv[2] ?? 5);
const connections = 16;

// wrk as a child that this process does not block on: its loop keeps reading the servers'
// output (PHP's built-in server logs each request, and stalls on a full pipe) and serves Node.
async function wrk(url, headers = {}) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const out = await new Promise((resolve, reject) => {
    execFile('wrk', [...args, url], { encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad) throw new Error(`${url}: ${bad[1]} answers were not 2xx:\n${out}`);
  return Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]));
}

// A row: requests/s without and with the check, and the cost per request the check adds.
function row(name, base, checked) {
  const costUs = (1e6 / checked - 1e6 / base).toFixed(1);
  return { name, base, checked, ratio: Number((checked / base).toFixed(3)), cost_us: Number(costUs) };
}

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-bench-connectors-'));
const foyer = await startFoyer();
const stops = [];
try {
  // ES256 for HAProxy; the other connectors check both profiles alike.
  const keygen = await runFoyer(['keygen', '--alg', 'ES256', '--data-dir', foyer.dataDir]);
  if (keygen.code !== 0) throw new Error(keygen.stderr);
  await foyer.stop();
  await foyer.start();
  const jwks = `${foyer.url}/.well-known/jwks.json`;
  const loginUrl = `${foyer.url}/r/${vectors.room}`;
  const { pass } = await admit(foyer, vectors.room);
  const cookie = { cookie: `foyer_pass=${pass}` };

  // The origin: nginx answering a fixed 200 on every path.
  const origin = { dir: path.join(dir, 'nginx'), port: await freePort() };
  mkdirSync(origin.dir);
  launchNginx(origin, nginxConfig(origin.dir, `server { listen 127.0.0.1:${origin.port};
    location / { default_type application/json; return 200 '{"from":"origin"}'; } }`));
  stops.push(async () => { origin.proc.kill('SIGQUIT'); await origin.exited; });
  const guard = await new Guard(['--jwks', jwks, '--room', vectors.room, '--issuer', vectors.issuer, '--login-url', loginUrl]).start();
  stops.push(() => guard.stop());
  await new Promise((resolve) => setTimeout(resolve, 300));

  const rows = [];
  const haproxy = await startHaproxy(dir, 'haproxy', jwks, guard.port, origin.port);
  stops.push(stopAll);
  rows.push(row('HAProxy jwt_verify (ES256)', await wrk(`${haproxy.url}/open/`), await wrk(`${haproxy.url}/shop/`, cookie)));

  const worker = await startWorkerd(dir, {
    FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: jwks, FOYER_LOGIN_URL: loginUrl,
    ORIGIN: `http://127.0.0.1:${origin.port}`,
  });
  stops.push(() => worker.stop());
  rows.push(row('Worker in workerd (ES256, WebCrypto)', await wrk(`${worker.url}/__open/shop/`), await wrk(`${worker.url}/shop/`, cookie)));

  const php = async (script) => {
    const port = await freePort();
    const shop = await startDriver('php', ['-S', `127.0.0.1:${port}`, path.join(repo, 'tests/connectors/php', script)], {
      pattern: /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/,
      env: {
        FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: jwks, FOYER_LOGIN_URL: loginUrl,
        FOYER_JWKS_CACHE: path.join(dir, 'php-jwks.json'),
      },
    });
    // The built-in server answers one request per connection: wrk reconnects for each.
    const rate = await wrk(`${shop.url}/shop/`, { ...cookie, connection: 'close' });
    await shop.stop();
    return rate;
  };
  rows.push(row('PHP built-in server (ES256, openssl)', await php('noop.php'), await php('shop.php')));

  const { PassChecker, protect } = await import(path.join(repo, 'connectors/node/foyer-pass.js'));
  const checker = await new PassChecker({ issuer: vectors.issuer, room: vectors.room, jwksUrl: jwks, loginUrl }).ready();
  const page = (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"node"}');
  const node = async (handler) => {
    const server = createServer(handler);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${server.address().port}/shop/`;
    const rate = await wrk(url, cookie);
    await new Promise((resolve) => server.close(resolve));
    return rate;
  };
  rows.push(row('Node node:http (ES256, node:crypto)', await node((req, res) => page(req, res)), await node(protect(checker, page))));
  checker.close();

  console.log('| connector | unprotected or no-op, req/s | protected, req/s | ratio | added per request |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.base} | ${r.checked} | ${r.ratio} | ${r.cost_us} µs |`);
  console.log(JSON.stringify({ seconds, connections, rows }));
} finally {
  for (const stop of stops.reverse()) await stop();
  await foyer.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
