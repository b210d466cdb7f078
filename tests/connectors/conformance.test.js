// The connectors' contract (docs/security.md, "Connectors at the site"), held the same way
// against every connector in its own runtime: the proxies in front of a real nginx shop, the
// middlewares inside their platform's own server, with a real `foyer serve` (ES256, so that
// HAProxy checks its passes too) and `foyer guard` where a connector asks it. It checks each
// against the shared vectors (tests/data/connector-vectors.json), walks a visitor from the
// queue to the protected page and reports the pass done, and checks that no spelling of a
// protected path reaches the shop's page without a pass, that no request leaves for another
// host, that a JWKS answer of 200 MB served slowly and one that never ends cost a bounded
// memory and time and leave the last good keys, and that a key cache file someone else could
// have written is not trusted. A new connector is one entry of CONNECTORS.
// (tests/connectors/<platform>.test.js test what is a platform's own: other adapters, key
// rotation, HAProxy's native checks.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repo, runFoyer } from '../lib/foyer.js';
import { Guard, Nginx, admit, freePort, launchNginx, nginxConfig } from '../nginx/harness.js';
import {
  assertVectors, assertVectorsThroughProxy, plantedKeys, runJson, siteToken, startDriver, startFoyer, startHaproxy,
  startVectorGuard, startWorkerd, stopAll, vectors, vectorsPath, walkFromQueue,
} from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-conformance-'));
const python = '/usr/bin/python3';
const javaJars = ['jetty9-server', 'jetty9-servlet', 'jetty9-util', 'jetty9-http', 'jetty9-io', 'jetty9-security', 'servlet-api']
  .map((name) => `/usr/share/java/${name}.jar`);
const javaClasspath = [path.join(dir, 'java'), ...javaJars].join(':');
const goBin = path.join(dir, 'go', 'connectorcheck');
const pythonDriver = path.join(repo, 'tests/connectors/python/check.py');
const phpDir = path.join(repo, 'tests/connectors/php');
const nodeConnector = path.join(repo, 'connectors/node/foyer-pass.js');

function subdir(name) {
  const d = path.join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

// The arguments every middleware driver takes.
const driverArgs = (c) => [vectors.issuer, vectors.room, c.jwksUrl, c.loginUrl];
// done() in a process of its own, waited for without blocking this one (which may be the
// Foyer it reports to), and stopped after 30 s (its own limit is 5 s).
const execFileAsync = promisify(execFile);
const runDone = async (command, args) => (await execFileAsync(command, args, { encoding: 'utf8', timeout: 30000 })).stdout;
const driverConfig = (c) => ({ issuer: vectors.issuer, room: vectors.room, jwksUrl: c.jwksUrl, loginUrl: c.loginUrl });

async function postJson(url, body, bearer) {
  const res = await fetch(url, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
  });
  assert.equal(res.status, 200, `${url}: ${res.status}`);
  return res.json();
}

// Every connector, in its own runtime. `start(c)` resolves to { url, pid, stop }. `kind`:
// 'proxy' (in front of the nginx shop at c.shopUrl: its own path rule decides what is
// protected) or 'app' (the platform's server is the shop: its routing decides, /shop/
// protected); `protectsAll`: a proxy with no public path (its route decides where it runs).
// `vectors(c, me)` asserts the shared vectors; `done(c, jti, me)` reports a pass done with the
// connector (`me`: what its start gave). `fetchesKeys`: it reads the JWKS itself, at c.jwksUrl, in the process `pid`.
// `cacheFile(c)`: where its file cache is. `done` takes another Foyer's address as `foyerUrl`.
const CONNECTORS = [
  {
    name: 'Worker', kind: 'proxy', protectsAll: true, fetchesKeys: true,
    start: (c) => startWorkerd(subdir('worker'), {
      FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: c.jwksUrl, FOYER_LOGIN_URL: c.loginUrl,
      ORIGIN: c.shopUrl, FOYER_URL: c.foyer.url, FOYER_SITE_TOKEN: siteToken,
    }),
    // Computed in workerd, with its WebCrypto (tests/connectors/worker/check-worker.js).
    vectors: async (c, me) => assertVectors(await postJson(`${me.url}/__vectors`, vectors)),
    done: (c, jti, me, foyerUrl = c.foyer.url) => postJson(`${me.url}/__done?foyer=${encodeURIComponent(foyerUrl)}`, [jti]),
  },
  {
    name: 'HAProxy', kind: 'proxy',
    start: (c) => startHaproxy(subdir('haproxy'), 'keys', c.foyerJwks, c.guard.port, c.shopPort),
    // Refused natively by jwt_verify, then given their codes by a guard with the vectors' keys.
    vectors: async (c, me) => {
      const file = path.join(dir, 'vector-jwks.json');
      writeFileSync(file, JSON.stringify(vectors.keys.rotated));
      const withVectorKeys = await startHaproxy(subdir('haproxy'), 'vectors', `file://${file}`, c.vectorGuard.port, c.shopPort);
      await assertVectorsThroughProxy(me.url, `${withVectorKeys.url}/shop/`, c.loginUrl, pass);
    },
  },
  {
    name: 'Caddy', kind: 'proxy', start: startCaddy,
    vectors: (c, me) => assertVectorsThroughProxy(me.url, `${me.url}/vectors/`, c.loginUrl, pass),
  },
  {
    name: 'nginx', kind: 'proxy',
    start: async (c) => {
      // Passing on headers with '_' in their names, the harder case for X-Foyer-Visitor.
      const n = await new Nginx({ guardPort: c.guard.port, upstreamPort: c.shopPort, underscoresInHeaders: true }).start();
      return { url: n.url, stop: () => n.stop() };
    },
    vectors: async (c, me) => {
      const withVectorKeys = await new Nginx({ guardPort: c.vectorGuard.port, upstreamPort: c.shopPort }).start();
      try {
        await assertVectorsThroughProxy(me.url, `${withVectorKeys.url}/shop/`, c.loginUrl, pass, { tooLargeForServer: true });
      } finally {
        await withVectorKeys.stop();
      }
    },
  },
  {
    name: 'Node', kind: 'app', fetchesKeys: true,
    start: (c) => startDriver('node', [path.join(repo, 'tests/connectors/node/serve.js'), ...driverArgs(c)]),
    vectors: async () => {
      const { entryLocation, loadKeys, refusalLocation, verifyPass } = await import(nodeConnector);
      const keys = Object.fromEntries(Object.entries(vectors.keys).map(([name, set]) => [name, loadKeys(set)]));
      const expect = { issuer: vectors.issuer, room: vectors.room, leeway: vectors.leeway_seconds };
      assertVectors({
        passes: Object.fromEntries(vectors.passes.map((p) => [p.name, verifyPass(p.token, keys[p.keys], expect, p.now)])),
        destinations: Object.fromEntries(vectors.destinations.map((d) => [d.target, entryLocation(d.target)])),
        refusals: Object.fromEntries(vectors.refusals.map((r) => [r.name, refusalLocation(vectors.login_url, r.error, r.target)])),
      });
    },
    done: async (c, jti, me, foyerUrl = c.foyer.url) => {
      const { PassChecker } = await import(nodeConnector);
      return new PassChecker({ ...driverConfig(c), foyerUrl, siteToken }).done([jti]);
    },
  },
  {
    name: 'Go', kind: 'app', fetchesKeys: true,
    start: (c) => {
      subdir('go');
      // Offline: the connector has no dependency to fetch.
      execFileSync('go', ['build', '-o', goBin, '.'], {
        cwd: path.join(repo, 'tests/connectors/go'),
        env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: process.env.GOCACHE ?? path.join(tmpdir(), 'foyer-go-cache') },
        stdio: 'pipe',
      });
      return startDriver(goBin, ['serve', ...driverArgs(c)]);
    },
    vectors: () => assertVectors(runJson(goBin, ['vectors', vectorsPath])),
    done: (c, jti, me, foyerUrl = c.foyer.url) => runDone(goBin, ['done', foyerUrl, vectors.room, siteToken, jti]),
  },
  {
    name: 'Python', kind: 'app', fetchesKeys: true,
    start: (c) => startDriver(python, [pythonDriver, 'wsgi', ...driverArgs(c)]),
    vectors: () => assertVectors(runJson(python, [pythonDriver, 'vectors', vectorsPath])),
    done: (c, jti, me, foyerUrl = c.foyer.url) => runDone(python, [pythonDriver, 'done', foyerUrl, vectors.room, siteToken, jti]),
  },
  {
    name: 'PHP', kind: 'app', fetchesKeys: true,
    // The connector's own default: a directory it makes under the temp dir.
    cacheFile: (c) => path.join(c.phpTmp, `foyer-pass-${process.getuid()}`, `jwks-${createHash('md5').update(c.jwksUrl).digest('hex')}.json`),
    start: async (c) => {
      c.phpTmp = subdir('php-tmp');
      const port = await freePort();
      return startDriver('php', ['-S', `127.0.0.1:${port}`, path.join(phpDir, 'shop.php')], {
        pattern: /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/,
        env: {
          TMPDIR: c.phpTmp, FOYER_ISSUER: vectors.issuer, FOYER_ROOM: vectors.room, FOYER_JWKS_URL: c.jwksUrl,
          FOYER_LOGIN_URL: c.loginUrl, FOYER_JWKS_CACHE: '',
        },
      });
    },
    vectors: () => assertVectors(runJson('php', [path.join(phpDir, 'vectors.php'), vectorsPath])),
    done: (c, jti, me, foyerUrl = c.foyer.url) => runDone('php', [path.join(phpDir, 'done.php'), foyerUrl, vectors.room, siteToken, jti]),
  },
  {
    name: 'Java', kind: 'app', fetchesKeys: true,
    start: (c) => {
      const sources = (sub) => readdirSync(path.join(repo, sub)).filter((f) => f.endsWith('.java')).map((f) => path.join(repo, sub, f));
      execFileSync('javac', ['-Xlint:all', '-Werror', '-d', subdir('java'), '-cp', javaClasspath,
        ...sources('connectors/java/foyer'), ...sources('tests/connectors/java/foyer')], { stdio: 'pipe' });
      return startDriver('java', ['-cp', javaClasspath, 'foyer.Check', 'serve', ...driverArgs(c)]);
    },
    vectors: () => assertVectors(runJson('java', ['-cp', javaClasspath, 'foyer.Check', 'vectors', vectorsPath])),
    done: (c, jti, me, foyerUrl = c.foyer.url) => runDone('java', ['-cp', javaClasspath, 'foyer.Check', 'done', foyerUrl, vectors.room, siteToken, jti]),
  },
];

async function startCaddy(c) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const d = subdir('caddy');
  const caddyfile = path.join(d, 'Caddyfile');
  writeFileSync(caddyfile, `{
	admin off
	auto_https off
}
import ${path.join(repo, 'connectors/caddy/foyer.caddy')}
${url} {
	route /shop/* {
		import foyer_protect 127.0.0.1:${c.guard.port}
		reverse_proxy ${c.shopAddress}
	}
	route /vectors/* {
		import foyer_protect 127.0.0.1:${c.vectorGuard.port}
		reverse_proxy ${c.shopAddress}
	}
	reverse_proxy ${c.shopAddress}
}
`);
  const proc = await startDriver('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    pattern: /(serving initial configuration)/, env: { HOME: d, XDG_DATA_HOME: d, XDG_CONFIG_HOME: d },
  });
  return { ...proc, url };
}

// The request target sent byte for byte (no URL parser in between): { status, headers, body }.
function rawGet(url, target, headers = {}) {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks = [];
    socket.setTimeout(20000, () => socket.destroy(new Error(`${url}: no answer to ${target} in 20 s`)));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const [statusLine, ...lines] = head.split('\r\n');
      const h = {};
      for (const line of lines) h[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers: h, body: text.slice(head.length + 4) });
    });
    const all = { host: `127.0.0.1:${port}`, ...headers };
    const head = Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(Buffer.from(`GET ${target} HTTP/1.1\r\n${head}Connection: close\r\n\r\n`, 'latin1'));
  });
}

// The protected page's answer: the nginx shop's /shop/, or a middleware's admitted handler.
const isShopPage = (r) => r.status === 200 && /"page":"shop"|"visitor": ?"/.test(r.body);

const ctx = {};
const running = new Map();
let pass;
let passVisitor;
let trap;
let trapConnections = 0;
// The JWKS as the connectors see it: Foyer's, or a hostile answer.
let jwksMode = 'real';
const slowOpen = new Set();
// A JWKS of 256 MiB decoded, compressed.
const bomb = (() => {
  const decoded = Buffer.alloc(256 << 20, 0x20);
  decoded.write('{"keys":[');
  decoded.write(']}', decoded.length - 2);
  return {
    gzip: gzipSync(decoded, { level: 9 }),
    br: brotliCompressSync(decoded, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }),
  };
})();

before(async () => {
  const foyer = await startFoyer();
  const r = await runFoyer(['keygen', '--alg', 'ES256', '--data-dir', foyer.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  await foyer.stop();
  await foyer.start();
  ctx.foyer = foyer;
  ctx.foyerJwks = `${foyer.url}/.well-known/jwks.json`;
  ctx.loginUrl = `${foyer.url}/r/${vectors.room}`;
  ctx.guard = await new Guard(['--jwks', ctx.foyerJwks, '--room', vectors.room, '--issuer', vectors.issuer,
    '--login-url', ctx.loginUrl]).start();
  ctx.vectorGuard = await startVectorGuard(subdir('vector-guard'), ctx.loginUrl);

  // What the shop's application is given as the visitor: every header a CGI-style reading
  // takes for X-Foyer-Visitor ('_' as '-'), whichever of them it would pick.
  const visitorHeaders = createServer((req, res) => {
    const visitors = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (/^x[-_]foyer[-_]visitor$/i.test(req.rawHeaders[i])) visitors.push(req.rawHeaders[i + 1]);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ page: 'shop', visitors }));
  });
  await new Promise((resolve) => visitorHeaders.listen(0, '127.0.0.1', resolve));
  ctx.visitorHeaders = visitorHeaders;

  // A Foyer whose passes/done answers are hostile (/<mode>/api/...), its keys Foyer's own.
  const hostileFoyer = createServer(async (req, res) => {
    if (req.url.endsWith('/.well-known/jwks.json')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(await (await fetch(ctx.foyerJwks)).text());
    } else if (req.url.startsWith('/slow-head/')) {
      res.socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: ');
      const timer = setInterval(() => res.socket.write('a'), 200);
      res.socket.on('close', () => clearInterval(timer));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"done":0,');
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    }
  });
  await new Promise((resolve) => hostileFoyer.listen(0, '127.0.0.1', resolve));
  ctx.hostileFoyer = hostileFoyer;

  // The shop: nginx, which normalises paths as most servers and frameworks do.
  const shop = { dir: subdir('shop'), port: await freePort() };
  launchNginx(shop, nginxConfig(shop.dir, `
  server {
    listen 127.0.0.1:${shop.port};
    underscores_in_headers on;
    default_type application/json;
    location /shop/ { return 200 '{"page":"shop","visitor":"$http_x_foyer_visitor"}'; }
    location = /shop/visitor { proxy_pass http://127.0.0.1:${visitorHeaders.address().port}; }
    location / { return 200 '{"page":"open"}'; }
  }`));
  ctx.shopNginx = shop;
  ctx.shopPort = shop.port;
  ctx.shopAddress = `127.0.0.1:${shop.port}`;
  ctx.shopUrl = `http://${ctx.shopAddress}`;

  // Another host on loopback: whatever a connector sends it is a request that left the shop.
  trap = net.createServer((socket) => { trapConnections++; socket.destroy(); });
  await new Promise((resolve) => trap.listen(0, '127.0.0.1', resolve));

  const relay = createServer(async (req, res) => {
    if (jwksMode === 'huge') {
      // 200 MiB, a MiB every 10 ms: read whole, it would all be there within 5 s.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
      const chunk = Buffer.alloc(1 << 20, 0x20);
      for (let i = 0; i < 200 && !res.destroyed; i++) {
        if (!res.write(chunk)) await new Promise((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      res.end(']}');
    } else if (jwksMode === 'gzip' || jwksMode === 'br') {
      // Under 1 MiB on the wire, 256 MiB decoded: a connector must count what it decodes.
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': jwksMode });
      res.end(jwksMode === 'gzip' ? bomb.gzip : bomb.br);
    } else if (jwksMode === 'slow-head') {
      // The headers a byte every 200 ms, never ending: the time limit is the whole answer's.
      res.socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: ');
      const timer = setInterval(() => res.socket.write('a'), 200);
      slowOpen.add(res);
      res.socket.on('close', () => { clearInterval(timer); slowOpen.delete(res); });
    } else if (jwksMode === 'redirect') {
      res.writeHead(302, { location: `http://127.0.0.1:${trap.address().port}/jwks.json` }).end();
    } else if (jwksMode === 'slow') {
      // A byte every 200 ms, never ending.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 200);
      slowOpen.add(res);
      res.on('close', () => { clearInterval(timer); slowOpen.delete(res); });
    } else {
      const answer = await fetch(ctx.foyerJwks);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    }
  });
  await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
  ctx.relay = relay;
  ctx.jwksUrl = `http://127.0.0.1:${relay.address().port}/jwks.json`;

  ({ pass, visitor: passVisitor } = await admit(foyer, vectors.room));
  for (const conn of CONNECTORS) {
    const started = await conn.start(ctx);
    running.set(conn.name, started);
    // The first fetch of the keys (PHP's comes with its first request).
    const r2 = await rawGet(started.url, '/shop/item', { cookie: `foyer_pass=${pass}` });
    assert.ok(isShopPage(r2), `${conn.name}: a good pass is let in (${r2.status} ${r2.body})`);
    started.keysFetchedAt = Date.now();
  }
});

after(async () => {
  for (const res of slowOpen) res.destroy();
  for (const r of running.values()) await r.stop?.();
  await stopAll();
  trap?.close();
  ctx.visitorHeaders?.close();
  ctx.hostileFoyer?.closeAllConnections();
  ctx.hostileFoyer?.close();
  ctx.relay?.closeAllConnections();
  ctx.relay?.close();
  if (ctx.shopNginx?.proc) {
    ctx.shopNginx.proc.kill('SIGQUIT');
    await ctx.shopNginx.exited;
  }
  await ctx.guard?.stop();
  await ctx.vectorGuard?.stop();
  await ctx.foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

// Spellings of /shop/item that a server normalising paths reads as /shop/item, or that are
// refused (an encoded '/' or '\'), plus ';' parameters (Java's containers strip them).
const SPELLINGS = [
  '/%73hop/item', '/%73%68%6F%70/item', '//shop/item', '///shop/item', '/./shop/item', '/x/../shop/item',
  '/x/%2e%2e/shop/item', '/%2e/shop/item', '/x/.%2E/shop/item', '/.%2e/shop/item', '/%2Fshop/item', '/%2fshop%2fitem',
  '/x%2F..%2Fshop/item', '/%5Cshop/item', '/\\shop/item', '/shop;x=1/item', '/shop/./item', '/shop//item', '/SHOP/item',
  '/shop%2Fitem', '/shop%2fitem', '/%5cshop/item', '/%252Fshop/item', '/%2E%2E/shop/item', '/x/..;/shop/item', '/shop;/item',
  '/;x/shop/item', '/shop/item;jsessionid=1', '/%3Bx/shop/item', '/shop/item%00', '/shop/item%09', '/%0Ashop/item',
  '/shop/item%0D%0AX-A:%20b', '/.;/shop/item', '/Shop/item', '/shop%3B/item', '/?/../shop/item',
];
// Those of the review, which the nginx shop serves as its /shop/ page.
const REVIEWED = ['/%73hop/item', '//shop/item', '/./shop/item', '/x/../shop/item', '/%2e/shop/item'];

test('the nginx shop serves the reviewed spellings as its protected page (the holes are real)', async () => {
  for (const target of REVIEWED) assert.ok(isShopPage(await rawGet(ctx.shopUrl, target)), target);
});

for (const conn of CONNECTORS) {
  test(`${conn.name}: agrees with the shared vectors`, () => conn.vectors(ctx, running.get(conn.name)));

  test(`${conn.name}: a visitor goes from the queue to the protected page${conn.done ? ', and the pass is reported done' : ''}`, async () => {
    const me = running.get(conn.name);
    const walked = await walkFromQueue(ctx.foyer, me.url, ctx.loginUrl, async (res, visitor) => {
      assert.equal(JSON.parse(await res.text()).visitor, visitor);
    });
    if (!conn.done) return;
    const { jti } = JSON.parse(Buffer.from(walked.split('.')[1], 'base64url'));
    await conn.done(ctx, jti, me);
    // Foyer has it done already: the connector's report reached it.
    assert.equal((await postJson(`${ctx.foyer.url}/api/v1/rooms/${vectors.room}/passes/done`, { passes: [jti] }, siteToken)).done, 0);
  });

  test(`${conn.name}: no spelling of a protected path reaches the shop's page without a pass`, async () => {
    const c = running.get(conn.name);
    // Each spelling, also in absolute form, and under a Host naming another site.
    const tries = ['/shop/item', ...SPELLINGS].flatMap((target) => [[target], [`${c.url}${target}`], [target, { host: 'evil.example' }]]);
    const problems = [];
    for (const [target, headers] of tries) {
      const r = await rawGet(c.url, target, headers);
      const as = `${JSON.stringify(target)}${headers ? ` (Host: ${headers.host})` : ''}`;
      if (isShopPage(r)) problems.push(`${as} reached the shop's page without a pass: ${r.status} ${r.body}`);
      // (Caddy answers a Host it does not serve with an empty 200.)
      else if (!([302, 301, 400, 404].includes(r.status) || (r.status === 200 && /^$|"page":"open"|"visitor": ?null/.test(r.body)))) {
        problems.push(`${as}: ${r.status} ${r.body}`);
      }
    }
    assert.deepEqual(problems, [], conn.name);
    // An open page stays open.
    if (conn.kind === 'proxy' && !conn.protectsAll) assert.equal((await rawGet(c.url, '/about')).body, '{"page":"open"}');
  });

  if (conn.kind === 'proxy') {
    test(`${conn.name}: the shop reads the visitor from the pass alone, whatever the client sends as X-Foyer-Visitor`, async () => {
      const c = running.get(conn.name);
      const problems = [];
      for (const name of ['X-Foyer-Visitor', 'x-foyer-visitor', 'X-FOYER-VISITOR', 'X_Foyer_Visitor', 'x_foyer_visitor', 'X-Foyer_Visitor', 'X_Foyer-Visitor']) {
        const r = await rawGet(c.url, '/shop/visitor', { [name]: 'forged', cookie: `foyer_pass=${pass}` });
        // (The body as sent, chunked or not.)
        const visitors = JSON.parse(/\{.*\}/s.exec(r.body)?.[0] ?? '{}').visitors;
        if (r.status !== 200 || JSON.stringify(visitors) !== JSON.stringify([passVisitor])) {
          problems.push(`${name}: ${r.status} ${r.body}`);
        }
      }
      assert.deepEqual(problems, [], conn.name);
    });
  }

  test(`${conn.name}: no request leaves for another host, whatever its path`, async () => {
    const c = running.get(conn.name);
    const host = `127.0.0.1:${trap.address().port}`;
    const before = trapConnections;
    for (const target of [`//${host}/x`, `/\\${host}/x`, `/%2F%2F${host}/x`, `/%5C${host}/x`, `/%5c%5c${host}/x`,
      `//user@${host}/x`, `/@${host}/x`, `/.//${host}/x`, `///${host}/x`, `/\\\\${host}/x`, `http://${host}/x`,
      `/shop/..//${host}/x`, `/%2F${host}/x`, `/%252F%252F${host}/x`, `/shop/item?/../..//${host}/x`]) {
      // As given, and under a Host (or an absolute form) naming the other host.
      const tries = [[target, {}], [target, { host }], ...(target.startsWith('/') ? [[`http://${host}${target}`, { host }]] : [])];
      for (const [t, headers] of tries) {
        const r = await rawGet(c.url, t, { ...headers, cookie: `foyer_pass=${pass}`, authorization: `Bearer ${pass}` });
        assert.equal(trapConnections - before, 0, `${conn.name} sent ${t} (Host: ${headers.host ?? 'its own'}) to ${host}`);
        assert.ok(r.status > 0, `${conn.name}: ${t}: no answer`);
      }
    }
  });
}

// Memory: the high-water mark of the runtime's own process, reset before the refresh.
function vm(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

// Resets the process's high-water mark to its resident size, and returns that; where the
// kernel refuses, the peak so far (a JWKS read whole would still rise far above it).
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return vm(pid, 'VmRSS');
  } catch {
    return vm(pid, 'VmHWM');
  }
}

// A pass under a kid no JWKS has: the connector refreshes its keys early (at most every 10 s).
const unknownKid = `${Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'not-yet-seen', typ: 'JWT' })).toString('base64url')}.e30.${'A'.repeat(86)}`;

async function afterEarlyRefreshWindow(conns) {
  const last = Math.max(...conns.map((c) => running.get(c.name).keysFetchedAt));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, last + 10500 - Date.now())));
}

const fetchers = CONNECTORS.filter((c) => c.fetchesKeys);

// Each connector's problems with a hostile JWKS answer, all of them named at once.
async function withJwks(mode, check) {
  await afterEarlyRefreshWindow(fetchers);
  jwksMode = mode;
  const problems = [];
  try {
    for (const conn of fetchers) {
      const c = running.get(conn.name);
      try {
        await check(conn, c, (problem) => problems.push(`${conn.name}: ${problem}`));
        if (!isShopPage(await rawGet(c.url, '/shop/item', { cookie: `foyer_pass=${pass}` }))) problems.push(`${conn.name}: the last keys are lost`);
      } catch (e) {
        problems.push(`${conn.name}: ${e.message}`);
      }
      c.keysFetchedAt = Date.now();
      // Whatever it left open is not counted against the next.
      for (const res of slowOpen) res.destroy();
    }
  } finally {
    jwksMode = 'real';
  }
  assert.deepEqual(problems, []);
}

for (const [mode, what] of [['huge', 'of 200 MB, served slowly,'], ['gzip', 'of 256 MiB gzip-encoded'], ['br', 'of 256 MiB brotli-encoded']]) {
  test(`a JWKS answer ${what} is dropped at 64 KiB with the memory bounded; the last keys stay`, () => withJwks(mode, async (conn, c, problem) => {
    const base = resetPeak(c.pid);
    const r = await rawGet(c.url, '/shop/item', { cookie: `foyer_pass=${unknownKid}` });
    if (!/foyer_refused=unknown_kid/.test(r.headers.location ?? '')) problem(`answered ${r.status} ${r.headers.location}`);
    const grown = vm(c.pid, 'VmHWM') - base;
    if (grown >= 150 << 20) problem(`its memory grew by ${grown >> 20} MiB reading the JWKS`);
  }));
}

for (const [mode, what] of [['slow', 'whose body never ends'], ['slow-head', 'whose headers never end']]) {
  test(`a JWKS answer ${what} is given up within the time limit; the last keys stay`, () => withJwks(mode, async (conn, c, problem) => {
    const start = Date.now();
    const r = await rawGet(c.url, '/shop/item', { cookie: `foyer_pass=${unknownKid}` });
    if (!/foyer_refused=unknown_kid/.test(r.headers.location ?? '')) problem(`answered ${r.status} ${r.headers.location}`);
    if (Date.now() - start >= 12000) problem(`answered after ${Date.now() - start} ms`);
    // It hung up on the endless answer.
    for (let i = 0; slowOpen.size > 0 && i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    if (slowOpen.size > 0) problem('still reads the endless JWKS');
  }));
}

test('done() returns within the time limit from a Foyer whose answer never ends (its headers or its body)', async () => {
  const problems = [];
  for (const conn of CONNECTORS.filter((c) => c.done)) {
    for (const mode of ['slow-head', 'slow']) {
      const start = Date.now();
      // Refused, or (Go, which reads no answer) done once the status came: in time?
      await conn.done(ctx, 'some-jti', running.get(conn.name), `http://127.0.0.1:${ctx.hostileFoyer.address().port}/${mode}`)
        .catch(() => {});
      // Under 5 s, and the runtime's own start (Java's is the slowest).
      if (Date.now() - start >= 9000) problems.push(`${conn.name}, ${mode}: gave up after ${Date.now() - start} ms`);
    }
  }
  assert.deepEqual(problems, []);
});

test('a JWKS answer that redirects elsewhere is not followed: the keys come from the URL given; the last keys stay', async () => {
  await withJwks('redirect', async (conn, c, problem) => {
    const before = trapConnections;
    const r = await rawGet(c.url, '/shop/item', { cookie: `foyer_pass=${unknownKid}` });
    if (!/foyer_refused=unknown_kid/.test(r.headers.location ?? '')) problem(`answered ${r.status} ${r.headers.location}`);
    if (trapConnections !== before) problem('followed the redirect to another host');
  });
});

for (const conn of CONNECTORS.filter((c) => c.cacheFile)) {
  test(`${conn.name}: a key cache file someone else could have written is not trusted`, async (t) => {
    const c = running.get(conn.name);
    const file = conn.cacheFile(ctx);
    const cacheDir = lstatSync(path.dirname(file));
    assert.ok(cacheDir.isDirectory());
    assert.equal(cacheDir.mode & 0o777, 0o700, 'the cache directory is the running user\'s alone');
    assert.equal(cacheDir.uid, process.getuid());
    const { jwks, token } = plantedKeys();
    const now = Date.now() / 1000;
    const plant = (how) => {
      rmSync(file, { force: true });
      if (how === 'symlink') {
        const elsewhere = path.join(dir, 'elsewhere.json');
        writeFileSync(elsewhere, jwks, { mode: 0o600 });
        symlinkSync(elsewhere, file);
        return;
      }
      writeFileSync(file, jwks, { mode: 0o600 });
      if (how === 'nobody') chownSync(file, 65534, 65534);
      if (how === 'world-writable') chmodSync(file, 0o666);
      if (how === 'group-writable') chmodSync(file, 0o620);
      utimesSync(file, now, how === 'future' ? now + 365 * 86400 : now);
    };
    const asks = async () => isShopPage(await rawGet(c.url, '/shop/item', { cookie: `foyer_pass=${token}` }));
    // The control: a file of this user's alone, dated now, is the cache (so the plants would work).
    plant('own');
    assert.ok(await asks(), `${conn.name}: the cache file is not where the test plants it`);
    // Only root can make a file another user owns.
    const plants = [...(process.getuid() === 0 ? ['nobody'] : []), 'world-writable', 'group-writable', 'future', 'symlink'];
    if (process.getuid() !== 0) t.diagnostic('not root: no file of another owner planted');
    for (const how of plants) {
      plant(how);
      assert.ok(!(await asks()), `${conn.name}: a planted cache file (${how}) was trusted`);
    }
    rmSync(file, { force: true });
    // A good file in a directory that is not the user's alone: a symbolic link to another
    // directory, another user's, or one group or others can write in.
    const cacheDirPath = path.dirname(file);
    const plantDir = (how) => {
      if (how === 'symlink') {
        renameSync(cacheDirPath, `${cacheDirPath}.real`);
        const elsewhere = mkdtempSync(path.join(dir, 'elsewhere-'));
        symlinkSync(elsewhere, cacheDirPath);
      }
      if (how === 'nobody') chownSync(cacheDirPath, 65534, 65534);
      if (how === 'world-writable') chmodSync(cacheDirPath, 0o777);
      if (how === 'group-writable') chmodSync(cacheDirPath, 0o770);
      plant('own');
    };
    const restoreDir = () => {
      rmSync(file, { force: true });
      if (lstatSync(cacheDirPath).isSymbolicLink()) {
        rmSync(cacheDirPath);
        renameSync(`${cacheDirPath}.real`, cacheDirPath);
      }
      chownSync(cacheDirPath, process.getuid(), process.getgid());
      chmodSync(cacheDirPath, 0o700);
    };
    for (const how of [...(process.getuid() === 0 ? ['nobody'] : []), 'world-writable', 'group-writable', 'symlink']) {
      plantDir(how);
      try {
        assert.ok(!(await asks()), `${conn.name}: a cache file in a planted directory (${how}) was trusted`);
      } finally {
        restoreDir();
      }
    }
    // The genuine keys again.
    assert.ok(isShopPage(await rawGet(c.url, '/shop/item', { cookie: `foyer_pass=${pass}` })));
  });
}
