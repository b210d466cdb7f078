// nginx e2e harness: a real nginx from Debian on a loopback port with a temp prefix, the
// shipped snippets (packaging/nginx/), `foyer guard`, and a tiny upstream.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { repo, foyerBin, spawnOwned } from '../lib/foyer.js';

export const nginxBin = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
const snippets = path.join(repo, 'packaging/nginx');

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function waitForOutput(proc, pattern, what, timeoutMs = 15000) {
  let output = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), timeoutMs);
    const onData = (chunk) => {
      output += chunk;
      const m = pattern.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`${what} exited (${code}):\n${output}`)); });
  });
  return { ready, exited, output: () => output };
}

// `foyer guard` on a loopback port chosen by the kernel.
export class Guard {
  constructor(args) {
    this.args = args;
  }

  async start() {
    this.proc = spawnOwned(foyerBin, ['guard', '--listen', '127.0.0.1:0', ...this.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const started = waitForOutput(this.proc, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 'foyer guard');
    this.exited = started.exited;
    this.output = started.output;
    this.port = Number((await started.ready)[1]);
    this.url = `http://127.0.0.1:${this.port}`;
    return this;
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill('SIGTERM');
    await this.exited;
  }

  health() { return fetch(`${this.url}/healthz`).then((r) => r.json()); }

  // Asks /auth directly, as nginx does: { status, error, visitor }.
  async auth(token, { cookie = false, originalUri = '/shop/' } = {}) {
    const headers = { 'x-original-uri': originalUri };
    if (token !== undefined) headers[cookie ? 'cookie' : 'authorization'] = cookie ? `foyer_pass=${token}` : `Bearer ${token}`;
    const res = await fetch(`${this.url}/auth`, { headers });
    return { status: res.status, error: res.headers.get('x-foyer-error'), visitor: res.headers.get('x-foyer-visitor') };
  }
}

// Runs `foyer` once with these arguments; resolves to { code, output }.
export function foyerOnce(args) {
  const proc = spawnOwned(foyerBin, args);
  let output = '';
  proc.stdout.on('data', (c) => { output += c; });
  proc.stderr.on('data', (c) => { output += c; });
  return new Promise((resolve) => proc.on('exit', (code) => resolve({ code, output })));
}

// The upstream application: answers every request with what it saw.
export async function startUpstream() {
  const server = createServer((req, res) => {
    const body = JSON.stringify({ from: 'upstream', path: req.url, visitor: req.headers['x-foyer-visitor'] ?? null });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Node 18's close() waits for idle keep-alive connections (nginx keeps its upstream
  // connections open) until they time out: they are closed at once instead.
  return { port: server.address().port, close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }) };
}

// A whole nginx.conf for a test: one worker, its files under `dir`, and `http` (the
// upstreams and servers) in the http {} block.
export function nginxConfig(dir, http, connections = 4096) {
  return `
worker_processes 1;
worker_rlimit_nofile ${connections * 2};
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${connections}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${http}
}
`;
}

// Checks and runs nginx with `config` in `server.dir`, listening on `server.port`.
export function launchNginx(server, config) {
  const conf = path.join(server.dir, 'nginx.conf');
  writeFileSync(conf, config);
  const args = ['-p', server.dir, '-e', path.join(server.dir, 'error.log'), '-c', conf];
  execFileSync(nginxBin, [...args, '-t'], { stdio: 'pipe' });
  server.proc = spawnOwned(nginxBin, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.exited = new Promise((resolve) => server.proc.on('exit', resolve));
  server.url = `http://127.0.0.1:${server.port}`;
}

// nginx in front of an upstream: / open (or, with `protectAll`, behind the guard too, as a
// shop that protects `location /` has it), /shop/ behind the guard, with the snippets
// exactly as shipped. Without `upstreamPort` the upstream is a second nginx server answering
// a fixed 200 (for benchmarks: the same cheap upstream with and without auth_request).
// `port`: one chosen beforehand (freePort()), for a waiting room that must name the site first.
export class Nginx {
  constructor({ guardPort, upstreamPort, protectAll = false, port, underscoresInHeaders = false }) {
    this.dir = mkdtempSync(path.join(tmpdir(), 'foyer-nginx-'));
    this.port = port;
    this.guardPort = guardPort;
    this.upstreamPort = upstreamPort;
    this.protectAll = protectAll;
    this.underscoresInHeaders = underscoresInHeaders;
  }

  config() {
    const d = this.dir;
    const protect = `include ${snippets}/foyer-protect.conf;
      proxy_set_header Connection "";`;
    return nginxConfig(d, `
  upstream foyer_guard { server 127.0.0.1:${this.guardPort}; keepalive 32; }
  upstream app { server 127.0.0.1:${this.upstreamPort ?? this.staticPort}; keepalive 32; }
  ${this.staticPort ? `server {
    listen 127.0.0.1:${this.staticPort};
    location / { default_type application/json; return 200 '{"from":"upstream"}'; }
  }` : ''}
  server {
    listen 127.0.0.1:${this.port};
    include ${snippets}/foyer-guard.conf;
    ${this.underscoresInHeaders ? 'underscores_in_headers on;' : ''}
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    location / {
      ${this.protectAll ? protect : ''}
      proxy_pass http://app;
    }
    location /shop/ {
      ${protect}
      proxy_pass http://app;
    }
  }`);
  }

  async start() {
    this.port ??= await freePort();
    if (this.upstreamPort === undefined) this.staticPort = await freePort();
    launchNginx(this, this.config());
    // Ready once it answers (a redirect to the waiting room, too).
    for (let i = 0; ; i++) {
      try {
        await fetch(`${this.url}/`, { redirect: 'manual' });
        return this;
      } catch (e) {
        if (i === 100) throw new Error(`nginx did not start: ${e.message}\n${this.errors()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  errors() {
    try { return readFileSync(path.join(this.dir, 'error.log'), 'utf8'); } catch { return ''; }
  }

  // GET without following redirects.
  get(urlPath, headers = {}) {
    return fetch(this.url + urlPath, { headers, redirect: 'manual' });
  }

  // GET with the request target sent byte for byte (latin1), as no URL parser would leave
  // it: { status, headers } with lower-case names.
  rawGet(target) {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.port, '127.0.0.1');
      const chunks = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const [statusLine, ...lines] = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
        const headers = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        resolve({ status: Number(statusLine.split(' ')[1]), headers });
      });
      // Not half-closed: nginx would take that for a client gone away.
      socket.write(Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 'latin1'));
    });
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGQUIT');
      await this.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// Joins a room with the work off and polls until admitted: { pass, visitor, ticket, targetUrl }.
export async function admit(foyer, room) {
  const joined = await foyer.join(room);
  if (joined.status !== 201) throw new Error(`join: ${joined.status} ${joined.text}`);
  for (let i = 0; i < 200; i++) {
    const st = await foyer.status(joined.json.ticket, room);
    if (st.json?.state === 'admitted') {
      return { pass: st.json.pass, visitor: joined.json.visitor_id, ticket: joined.json.ticket, targetUrl: st.json.target_url };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('not admitted in time');
}

export const b64url = (bytes) => Buffer.from(bytes).toString('base64url');

// The server's signing key from its key file, to sign the passes a forger cannot (expired
// ones, other algorithms) and prove that only the checks refuse them.
export function serverKey(dataDir, index = 0) {
  const ring = JSON.parse(readFileSync(path.join(dataDir, 'pass-keys.json'), 'utf8'));
  const k = ring.keys[index];
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, Buffer.from(k.seed, 'base64url')]), format: 'der', type: 'pkcs8' });
  return { kid: k.kid, privateKey, publicJwk: createPublicKey(privateKey).export({ format: 'jwk' }) };
}

export function signJws(privateKey, header, claims, algorithm = null) {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = algorithm === 'ES256'
    ? sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' })
    : sign(null, Buffer.from(input), privateKey);
  return `${input}.${b64url(signature)}`;
}

export function claimsOf(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
