// Every command the README shows runs here, against the real binary: a doc that lies is a
// failing test.
//
// A runnable ```sh block has the line `<!-- readme-test -->` just before it (GitHub shows
// nothing of it), optionally with options: `<!-- readme-test: setup=NAME continues -->`.
// Each such block runs in README order with bash (`set -euo pipefail`) against one real
// `foyer serve` on a loopback port, in a fresh directory (`continues`: the previous block's,
// as the same terminal), with `foyer` on the PATH and the tokens the README names in the
// environment. Then:
// - `localhost:8080` and `127.0.0.1:8080` are that server (a fresh port when the block starts
//   its own `foyer serve`), and any other `:80NN` port on loopback is a fresh one;
// - setup=demo runs the block against the demo the README's first command starts (`foyer
//   serve` with no config file: fresh tokens, proof of work on) instead, on a fresh port, and
//   starts it with the `export ...` line the demo printed, pasted as a reader would;
// - `/etc/foyer/` is the block's own `etc/foyer/` (setup=jwks puts the server's keys there),
//   and the waiting room a guard's `--foyer URL` names is that server;
// - `foyer serve` and `foyer guard` stay in the foreground for a reader; here they start in
//   the background, the block goes on once their /healthz answers, and they stop with it;
// - every curl's HTTP status is checked against the comment line under its command:
//   `# 201 {...}` is 201, `# {...}` is 200, no answer shown is any 2xx.
// A ```sh block without the mark must be in `notRun` below, with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, foyerBin, repo, spawnOwned, until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

// The ```sh blocks that are not run, by their first line, and why.
const notRun = new Map([
  ['bash packaging/deps.sh && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j"$(nproc)" --target foyer && ./build/foyer serve',
    'the first two commands are what CI runs (.ci/run): the whole build and the whole suite'],
  ['node tests/lib/run-node.js tests/js/        # formatting, timing, charts, pass reading, lottery, solver',
    'the test suite itself'],
  ['cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release',
    'a Release build, a .deb installed as root and a systemd unit (packaging/deb/test.sh installs it in a fresh root)'],
  ['foyer notify test-push --config /etc/foyer/foyer.toml \\',
    "a real browser's subscription at a real push service (tests/integration/push.test.js runs it against one on loopback)"],
  ['foyer notify test-email --config /etc/foyer/foyer.toml --to you@example.com',
    "a real mail relay and mailbox (tests/integration/email.test.js runs it against one on loopback)"],
  ['docker build -f packaging/docker/Dockerfile -t foyer .',
    'no container engine here (tests/js/dockerfile.test.js checks the file)'],
  ['adduser --system --group --home /var/lib/foyer --no-create-home foyer   # the .deb does this',
    'a system user and a systemd unit, as root'],
  ['cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release',
    'the benchmarks: a Release build and minutes of load each'],
  ['cmake -S . -B build-fuzz -DFOYER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \\',
    'the fuzz build (clang) and ten minutes a target; tests/run.sh replays the corpora'],
]);

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);
const MARK = /^<!--\s*readme-test(?::\s*(.*?))?\s*-->$/;
const BLOCK_TIMEOUT_MS = 20000;

// The tokens the README's commands name, and the server they work on.
const ADMIN = 'readme-admin-token-0123456789';
const SITE = 'readme-site-token-0123456789';
const opensInAnHour = () => new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
const serverConfig = () => ({
  server: { admin_token: ADMIN, site_token: SITE },
  rooms: [
    { id: 'demo', name: 'Demo', rate_per_minute: 600, target_url: '/welcome', stock: 1200, inventory: { total: 200 } },
    { id: 'spring-sale', name: 'Spring sale', rate_per_minute: 600, target_url: '/welcome', opens_at: opensInAnHour() },
  ],
});

/** The fenced blocks of a Markdown text: { line, lang, body, mark } (mark: the options, or null). */
function fencedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const mark = before >= 0 ? MARK.exec(lines[before].trim()) : null;
    blocks.push({
      line: i + 1,
      lang: open[2],
      body: lines.slice(i + 1, end).map((l) => l.slice(indent)).join('\n'),
      mark: mark ? options(mark[1] ?? '') : null,
    });
    i = end;
  }
  return blocks;
}

function options(text) {
  const out = {};
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const [key, value] = word.split('=');
    out[key] = value ?? true;
  }
  return out;
}

/**
 * The status each curl of a block must get, in order: the comment line right under its
 * command (`# 201 ...` is 201, `# {...}` or `# [...]` is 200), else null: any 2xx.
 */
function expectedStatuses(body) {
  const expected = [];
  let command = '';
  let awaiting = false; // the last curl has not had its comment yet
  const endCommand = () => {
    const curls = (command.match(/(^|[\s($|;&])curl\s/g) ?? []).length;
    for (let i = 0; i < curls; i++) expected.push(null);
    awaiting = curls > 0;
    command = '';
  };
  for (const line of body.split('\n')) {
    const t = line.trim();
    if (command) {
      command += ` ${t}`;
      if (!t.endsWith('\\')) endCommand();
      continue;
    }
    if (t.startsWith('#')) {
      if (awaiting) {
        const status = /^#\s*(\d{3})\b/.exec(t);
        if (status) expected[expected.length - 1] = Number(status[1]);
        else if (/^#\s*[{[]/.test(t)) expected[expected.length - 1] = 200;
        awaiting = false;
      }
      continue;
    }
    if (!t) continue;
    command = t;
    if (!t.endsWith('\\')) endCommand();
  }
  return expected;
}

const STATUS_LINE = /^README-CURL-STATUS (\d{3})$/gm;

// Sourced before every block: curl reports each status on stderr; servers go to the background.
const prelude = path.join(repo, 'tests/lib/readme-prelude.sh');

// The README's ports on loopback become the test's; `/etc/foyer/` the block's own.
async function rewrite(body, serverPort) {
  const startsServer = /(^|[\s;&|])foyer serve\b/m.test(body);
  const ports = new Map();
  for (const [, port] of body.matchAll(/(?:localhost|127\.0\.0\.1):(80\d\d)\b/g)) {
    if (ports.has(port)) continue;
    ports.set(port, port === '8080' && !startsServer ? serverPort : await freePort());
  }
  const script = body
    .replace(/(?:localhost|127\.0\.0\.1):(80\d\d)\b/g, (_, port) => `127.0.0.1:${ports.get(port)}`)
    .replaceAll('/etc/foyer/', 'etc/foyer/')
    .replace(/--foyer\s+https?:\/\/\S+/g, `--foyer http://127.0.0.1:${serverPort}`);
  return { script, port: ports.get('8080') ?? await freePort() };
}

function runBash(script, { cwd, env }) {
  const proc = spawnOwned('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c) => { stdout += c; });
  proc.stderr.on('data', (c) => { stderr += c; });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stderr += `\n(stopped after ${BLOCK_TIMEOUT_MS} ms)`;
      try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone */ }
    }, BLOCK_TIMEOUT_MS);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

// A pass for the demo room, as a visitor gets one: join, then poll until admitted.
async function demoPass(server) {
  const { ticket } = (await server.join('demo')).json;
  return until('a pass', async () => (await server.status(ticket, 'demo')).json.pass);
}

// The demo of the README's first command, once for the run: { proc, port, paste }, `paste`
// being the export line it printed for the README's examples.
let demo = null;
async function startDemo(root) {
  if (demo) return demo;
  const proc = spawnOwned(foyerBin, ['serve', '--listen', '127.0.0.1:0'], { cwd: mkdtempSync(path.join(root, 'demo-')),
    stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (c) => { output += c; });
  proc.stderr.on('data', (c) => { output += c; });
  const printed = await until('the demo guide',
    () => /Console: +http:\/\/127\.0\.0\.1:(\d+)\/admin[^\n]*\n[\s\S]*?\n {2}(export ADMIN=[0-9a-f]+ SITE=[0-9a-f]+)\n/.exec(output), 15000);
  demo = { proc, port: Number(printed[1]), paste: printed[2] };
  return demo;
}

// What a block needs that a reader would have at that point; a setup may name the server
// the block runs against and what the reader pasted first: { port, paste }.
const setups = {
  demo: (server, cwd, root) => startDemo(root),
  // The running server's data dir, where `foyer serve` keeps it: ./foyer-data.
  'server-data': (server, cwd) => symlinkSync(server.dataDir, path.join(cwd, 'foyer-data')),
  // A copy of the keys where the shop's machine keeps them.
  jwks: async (server, cwd) => {
    mkdirSync(path.join(cwd, 'etc/foyer'), { recursive: true });
    writeFileSync(path.join(cwd, 'etc/foyer/jwks.json'), (await server.request('GET', '/.well-known/jwks.json')).text);
  },
  // A visitor's lobby receipt in R.json, and the lobby closed and drawn.
  lottery: async (server, cwd) => {
    const join = await server.join('spring-sale');
    assert.equal(join.status, 201, join.text);
    writeFileSync(path.join(cwd, 'R.json'), JSON.stringify(join.json.receipt));
    const close = await server.request('POST', '/api/v1/admin/rooms/spring-sale/close-lobby',
      { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(close.status, 200, close.text);
    await until('the draw', async () => (await server.request('GET', '/api/v1/rooms/spring-sale/lottery')).json.seed);
  },
};

const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
const shellBlocks = fencedBlocks(readme).filter((b) => SHELL_LANGS.has(b.lang));

test('every shell block of the README is run below, or named in notRun with the reason', () => {
  const unaccounted = shellBlocks
    .filter((b) => !b.mark && !notRun.has(b.body.split('\n')[0]))
    .map((b) => `README.md:${b.line}: ${b.body.split('\n')[0]}`);
  assert.deepEqual(unaccounted, [], 'mark these <!-- readme-test --> or add them to notRun');
  const firstLines = new Set(shellBlocks.filter((b) => !b.mark).map((b) => b.body.split('\n')[0]));
  assert.deepEqual([...notRun.keys()].filter((l) => !firstLines.has(l)), [], 'notRun names blocks the README no longer has');
  for (const b of shellBlocks.filter((x) => x.mark)) {
    for (const key of Object.keys(b.mark)) {
      assert.ok(key === 'continues' || key === 'setup', `README.md:${b.line}: unknown option ${key}`);
    }
    if (b.mark.setup) assert.ok(setups[b.mark.setup], `README.md:${b.line}: unknown setup ${b.mark.setup}`);
  }
});

// A command in running text is not run, but what it names must exist: each `foyer ...`
// code span's subcommand answers --help, and that help names each of its flags.
test('every foyer command the docs show inline names a subcommand and flags the binary has', () => {
  const docs = ['README.md', ...readdirSync(path.join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const wrong = [];
  const helps = new Map();
  for (const doc of docs) {
    for (const [, span] of readFileSync(path.join(repo, doc), 'utf8').matchAll(/`foyer( [^`]*)`/g)) {
      const words = span.trim().split(/\s+/);
      const subcommand = [];
      while (/^[a-z][a-z-]*$/.test(words[subcommand.length] ?? '')) subcommand.push(words[subcommand.length]);
      const key = subcommand.join(' ');
      if (!helps.has(key)) {
        const run = spawnSync(foyerBin, [...subcommand, '--help'], { encoding: 'utf8' });
        helps.set(key, run.status === 0 ? run.stdout : null);
      }
      const help = helps.get(key);
      const flags = span.match(/--[a-z][a-z-]*/g) ?? [];
      const unknown = help === null ? [`no subcommand "${key}"`] : flags.filter((f) => !new RegExp(`${f}\\b`).test(help));
      if (unknown.length) wrong.push(`${doc}: foyer${span.replace(/\s+/g, ' ')}: ${unknown.join(', ')}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the comment under a curl command gives its status', () => {
  assert.deepEqual(expectedStatuses([
    'curl -s -X POST a/join',
    '# 201 {"ticket":"..."}',
    'X=$(curl -s a/status -H "h" \\',
    '  -d "{}" | jq -r .x)',
    '# {"state":"waiting"}',
    '# ... a moment later:',
    '# 409 {"later":"not this one"}',
    'curl -s a/jwks.json',
    'foyer keygen   # not a curl',
    'curl -s b && curl -s c',
    '# 404 {}',
  ].join('\n')), [201, 200, null, null, 404]);
});

test('every marked command of the README does what the README says', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'foyer-readme-'));
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(foyerBin, path.join(bin, 'foyer'));
  const server = new Foyer(serverConfig());
  try {
    await server.start();
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      ADMIN,
      SITE,
      PASS: await demoPass(server),
    };
    let cwd = null;
    for (const block of shellBlocks.filter((b) => b.mark)) {
      await t.test(`README.md:${block.line}: ${block.body.split('\n')[0]}`, async () => {
        if (!block.mark.continues || !cwd) cwd = mkdtempSync(path.join(root, 'block-'));
        const given = block.mark.setup ? await setups[block.mark.setup](server, cwd, root) : null;
        const { script, port } = await rewrite(block.body, given?.port ?? server.port);
        const run = await runBash(`source ${JSON.stringify(prelude)}\n${given?.paste ?? ''}\n${script}\n`, {
          cwd,
          env: { ...env, README_PORT: String(port), README_LOG: path.join(root, `servers-${block.line}.log`) },
        });
        const said = `the block said:\n${run.stdout}\n${run.stderr}`;
        assert.equal(run.code, 0, said);
        const statuses = [...run.stderr.matchAll(STATUS_LINE)].map((m) => Number(m[1]));
        const expected = expectedStatuses(block.body);
        assert.equal(statuses.length, expected.length, `curl ran ${statuses.length} times, the block shows ${expected.length}; ${said}`);
        statuses.forEach((status, i) => {
          if (expected[i] === null) assert.ok(status >= 200 && status < 300, `curl #${i + 1}: ${status}, not 2xx; ${said}`);
          else assert.equal(status, expected[i], `curl #${i + 1}: ${status}, the README says ${expected[i]}; ${said}`);
        });
      });
    }
  } finally {
    demo?.proc.kill('SIGKILL');
    await server.cleanup();
    rmSync(root, { recursive: true, force: true });
  }
});
