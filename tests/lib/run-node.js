// Runs node:test files the same way on Debian's Node 18 and on Node 20 and later:
//
//   node tests/lib/run-node.js [--timeout=MS] [--concurrency=N] FILE|DIR...
//
// Each file runs as `node --test FILE` in its own process group. A file that stalls is
// stopped, its whole group with it, after --timeout (default ten minutes) and counts as
// failed, instead of holding the run; a file whose tests are done exits even if a failure
// left a browser or server open (tests/lib/preload.js, preloaded into every file, which
// also lets Node 18 load the pages' ES modules).
// Node 18 has neither --test-timeout nor --test-force-exit, hence this script.
//
// Directories are searched as `node --test DIR` does (NAME.test.js, test-NAME.js, ...) and
// the files run in path order, --concurrency at a time: by default one less than the CPUs,
// at least one, as `node --test` does. One file at a time streams its output; several at
// a time print each file's output whole when it ends.
//
// The last line is the total, alone on its line: `N passed, N failed` and, when tests
// were skipped, `, N skipped`. The exit status is 0 only if something passed and nothing
// failed, stalled or crashed.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

const preload = new URL('./preload.js', import.meta.url).href;
// Node 18 has the Web Crypto global (crypto.subtle, which the pages' modules and jose use)
// only behind a flag; Node 19 and later have it always.
const nodeFlags = ['--import', preload, ...(globalThis.crypto ? [] : ['--experimental-global-webcrypto'])];
const KILL_AFTER_MS = 5000; // after SIGTERM, before SIGKILL

function usage(message) {
  console.error(`run-node: ${message}\nusage: node tests/lib/run-node.js [--timeout=MS] [--concurrency=N] FILE|DIR...`);
  process.exit(2);
}

function options(argv) {
  const opts = { timeoutMs: 600_000, concurrency: Math.max(availableParallelism() - 1, 1), paths: [] };
  for (const arg of argv) {
    const m = /^--(timeout|concurrency)=(\d+)$/.exec(arg);
    if (m && Number(m[2]) > 0) {
      if (m[1] === 'timeout') opts.timeoutMs = Number(m[2]);
      else opts.concurrency = Number(m[2]);
    } else if (arg.startsWith('--')) {
      usage(`bad option ${arg}`);
    } else {
      opts.paths.push(arg);
    }
  }
  if (opts.paths.length === 0) usage('no test files or directories given');
  return opts;
}

// `node --test DIR`'s rule: a .js, .cjs or .mjs file named test, test-*, *.test, *-test or
// *_test, or any such file under a directory named test; never in node_modules.
function isTestFile(file, inTestDir) {
  const ext = path.extname(file);
  if (!['.js', '.cjs', '.mjs'].includes(ext)) return false;
  const base = path.basename(file, ext);
  return inTestDir || base === 'test' || base.startsWith('test-') || /[._-]test$/.test(base);
}

function collect(dir, inTestDir, files) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) collect(full, inTestDir || entry.name === 'test', files);
    else if (entry.isFile() && isTestFile(full, inTestDir)) files.add(path.resolve(full));
  }
}

function testFiles(paths) {
  const files = new Set();
  for (const p of paths) {
    let stat;
    try {
      stat = statSync(p);
    } catch {
      usage(`no such file or directory: ${p}`);
    }
    if (stat.isDirectory()) collect(p, false, files);
    else files.add(path.resolve(p));
  }
  return [...files].sort();
}

// The closing block of `node --test`'s TAP: the root plan `1..N` at the start of a line
// (a test's own output comes indented or as `# ` comments), then `# pass N` and the rest.
// Without it (the file was stopped), the results reported so far are counted.
function tapCounts(tap) {
  const lines = tap.split(/\r?\n/);
  let plan = -1;
  for (let i = lines.length - 1; i >= 0 && plan < 0; i--) if (/^1\.\.\d+(\s|$)/.test(lines[i])) plan = i;
  const summary = {};
  if (plan >= 0) {
    for (const line of lines.slice(plan + 1)) {
      const m = /^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
      if (m) summary[m[1]] = Number(m[2]);
    }
  }
  if (summary.pass !== undefined && summary.fail !== undefined) {
    return {
      complete: true,
      passed: summary.pass,
      failed: summary.fail + (summary.cancelled ?? 0),
      skipped: (summary.skipped ?? 0) + (summary.todo ?? 0),
    };
  }
  const counts = { complete: false, passed: 0, failed: 0, skipped: 0 };
  for (const line of lines) {
    const m = /^\s*(not )?ok \d+\b.*?(# (SKIP|TODO)\b.*)?$/i.exec(line);
    if (!m) continue;
    if (m[2]) counts.skipped++;
    else if (m[1]) counts.failed++;
    else counts.passed++;
  }
  return counts;
}

const running = new Set(); // the children whose process groups are alive

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

// SIGTERM first: a file's 'exit' handlers then kill the servers it started in groups of
// their own (tests/lib/foyer.js). SIGKILL for what is left.
function stop(child) {
  signalGroup(child, 'SIGTERM');
  setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_AFTER_MS).unref();
}

function runFile(file, { timeoutMs, stream }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT; // run as a test runner, even under another one
    const child = spawn(process.execPath, [...nodeFlags, '--test', '--test-reporter=tap', file], {
      detached: true,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let tap = '';
    let log = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      tap += chunk;
      if (stream) process.stdout.write(chunk);
      else log += chunk;
    });
    child.stderr.on('data', (chunk) => {
      if (stream) process.stderr.write(chunk);
      else log += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop(child);
    }, timeoutMs);

    let ended = null;
    const finish = () => {
      if (!ended) return;
      const { code, signal } = ended;
      ended = null;
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ file, tap, log, code, signal, timedOut, ms: Date.now() - started });
    };
    const end = (code, signal) => {
      if (!running.has(child)) return;
      running.delete(child);
      clearTimeout(timer);
      // Whatever the file left in its group goes with it.
      signalGroup(child, 'SIGKILL');
      ended = { code, signal };
      // The output is complete once both pipes close; a leftover holding them gets two seconds.
      let open = 2;
      for (const pipe of [child.stdout, child.stderr]) {
        if (pipe.closed) open--;
        else pipe.once('close', () => { if (--open === 0) finish(); });
      }
      if (open === 0) finish();
      setTimeout(finish, 2000).unref();
    };
    child.on('exit', end);
    child.on('error', (error) => {
      log += `run-node: cannot run ${file}: ${error.message}\n`;
      if (stream) process.stderr.write(`run-node: cannot run ${file}: ${error.message}\n`);
      end(null, null);
    });
  });
}

function verdict(result, timeoutMs) {
  const counts = tapCounts(result.tap);
  const problems = [];
  if (result.timedOut) problems.push(`stopped after ${timeoutMs / 1000} s`);
  else if (result.signal) problems.push(`killed by ${result.signal}`);
  else if (result.code !== 0 && counts.failed === 0) problems.push(`exited with status ${result.code}`);
  else if (!counts.complete) problems.push('ended without a test summary');
  // A stop or crash is a failure of its own, on top of the tests that failed.
  if (problems.length) counts.failed++;
  return { ...counts, problems };
}

function total({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

async function main() {
  const opts = options(process.argv.slice(2));
  const files = testFiles(opts.paths);
  const stream = opts.concurrency === 1;
  const sums = { passed: 0, failed: 0, skipped: 0 };
  const failures = [];
  let interrupted = null;

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = signal;
      console.error(`run-node: ${signal}: stopping the running test files`);
      for (const child of running) stop(child);
    });
  }
  process.on('exit', () => {
    for (const child of running) signalGroup(child, 'SIGKILL');
  });

  const report = (result) => {
    const name = path.relative(process.cwd(), result.file) || result.file;
    const v = verdict(result, opts.timeoutMs);
    if (!stream) {
      console.log(`=== ${name}`);
      process.stdout.write(result.log);
    }
    const note = v.problems.length ? ` (${v.problems.join(', ')})` : '';
    console.log(`=== ${name}: ${total(v)} in ${(result.ms / 1000).toFixed(1)} s${note}`);
    sums.passed += v.passed;
    sums.failed += v.failed;
    sums.skipped += v.skipped;
    if (v.failed) failures.push(`${name}${note}`);
  };

  let next = 0;
  const worker = async () => {
    while (next < files.length && !interrupted) {
      const file = files[next++];
      if (stream) console.log(`=== ${path.relative(process.cwd(), file) || file}`);
      report(await runFile(file, { timeoutMs: opts.timeoutMs, stream }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, files.length) }, worker));

  if (files.length === 0) console.log('run-node: no test files found');
  if (failures.length) console.log(`failed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
  if (interrupted) console.log(`run-node: interrupted by ${interrupted}`);
  console.log(total(sums));
  process.exitCode = sums.failed > 0 || sums.passed === 0 || interrupted ? 1 : 0;
}

await main();
