// packaging/docker/Dockerfile read as Docker reads it (no engine runs it here): its
// stages, the runtime's user, volume, port, health check and stop signal, and a build
// stage that makes the .deb the way packaging/deb does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

// Instructions as [{ keyword, args, line }]: comment lines dropped (also inside a
// continuation, as Docker drops them), a trailing backslash joins the next line.
function parseDockerfile(text) {
  const instructions = [];
  let pending = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith('#') || (!pending && line === '')) return;
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1).trim() : line;
    pending = pending ? { ...pending, text: `${pending.text} ${part}`.trim() } : { text: part, line: index + 1 };
    if (continued) return;
    const [, keyword, args = ''] = /^(\S+)\s*(.*)$/.exec(pending.text);
    instructions.push({ keyword: keyword.toUpperCase(), args, line: pending.line });
    pending = null;
  });
  assert.equal(pending, null, 'the last line continues into nothing');
  return instructions;
}

// Stages as [{ base, name, instructions }], one per FROM.
function stages(instructions) {
  const out = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [base, as, name] = ins.args.split(/\s+/);
      out.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      assert.ok(out.length, `${ins.keyword} on line ${ins.line} comes before any FROM`);
      out.at(-1).instructions.push(ins);
    }
  }
  return out;
}

// An exec-form (JSON array) or shell-form argument as words.
const words = (args) => (args.startsWith('[') ? JSON.parse(args) : args.split(/\s+/));
const all = (stage, keyword) => stage.instructions.filter((i) => i.keyword === keyword);
const last = (stage, keyword) => all(stage, keyword).at(-1);
const runs = (stage) => all(stage, 'RUN').map((i) => i.args).join(' && ');
const optionValue = (list, name) => list[list.indexOf(name) + 1];

const dockerfile = parseDockerfile(read('packaging/docker/Dockerfile'));
const [build, runtime, ...extra] = stages(dockerfile);

test('the parser joins continuation lines and drops comments, also inside a continuation', () => {
  const parsed = parseDockerfile('# top\nFROM a AS b\nRUN one \\\n# inside\n  two \\\n  three\n\nuser  x\n');
  assert.deepEqual(parsed.map(({ keyword, args }) => [keyword, args]),
    [['FROM', 'a AS b'], ['RUN', 'one two three'], ['USER', 'x']]);
  assert.throws(() => parseDockerfile('FROM a\nRUN b \\'), /continues into nothing/);
  assert.throws(() => stages(parseDockerfile('RUN a\nFROM b\n')), /before any FROM/);
});

test('two stages: a Debian 12 build stage and a debian:12-slim runtime', () => {
  assert.equal(extra.length, 0);
  assert.equal(build.base, 'debian:12');
  assert.ok(build.name, 'the build stage is named');
  assert.equal(runtime.base, 'debian:12-slim');
});

test("the build stage installs the build packages of packaging/deps.sh", () => {
  const deps = /packages=\(([^)]*)\)/.exec(read('packaging/deps.sh'))[1].split(/\s+/).filter(Boolean);
  // The build's tools and every library CMakeLists.txt finds; clang's runtime is for the
  // fuzz targets only, and Go's modules for the tests' check of the public logs.
  const needed = deps.filter((p) => /^(build-essential|cmake|pkg-config|catch2)$|-dev$/.test(p) && !/clang|golang/.test(p));
  assert.ok(needed.length >= 12, `deps.sh lists ${needed}`);
  const installed = new Set(runs(build).split(/\s+/));
  for (const p of needed) assert.ok(installed.has(p), `the build stage does not install ${p}`);
});

test('the build stage makes the .deb with the same Release build and cpack as packaging/deb', () => {
  const steps = runs(build);
  assert.match(steps, /cmake -S \. -B build-release -DCMAKE_BUILD_TYPE=Release(\s|$)/);
  assert.match(steps, /cmake --build build-release\b.*--target foyer\b/);
  assert.match(steps, /\(cd build-release && cpack -G DEB\)/);
  // ...and the README's Install section says the same for the .deb.
  const install = /## Install\n([\s\S]*?)\n## /.exec(read('README.md'))?.[1] ?? '';
  assert.match(install, /cmake -S \. -B build-release -DCMAKE_BUILD_TYPE=Release/);
  assert.match(install, /cd build-release && cpack -G DEB/);
});

test('the runtime installs that .deb, with curl for the health check', () => {
  const copy = all(runtime, 'COPY').find((c) => c.args.includes(`--from=${build.name}`));
  assert.ok(copy, 'the runtime copies from the build stage');
  assert.match(copy.args, /build-release\/foyer_\*\.deb/);
  const install = runs(runtime);
  assert.match(install, /apt-get install [^&]*\/tmp\/foyer_\*\.deb/);
  assert.match(install, /apt-get install [^&]*\bcurl\b/);
});

test('the runtime runs as a user that is not root', () => {
  const user = last(runtime, 'USER');
  assert.ok(user, 'no USER in the runtime stage');
  const [name, group] = user.args.split(':');
  assert.ok(!['root', '0'].includes(name), `USER ${user.args}`);
  assert.ok(group === undefined || !['root', '0'].includes(group), `USER ${user.args}`);
  const entry = last(runtime, 'ENTRYPOINT') ?? last(runtime, 'CMD');
  assert.ok(user.line < entry.line, 'USER comes before the command');
});

test('the data dir is a volume, the listen port is exposed and the server takes both', () => {
  const command = [...words(last(runtime, 'ENTRYPOINT').args), ...words(last(runtime, 'CMD').args)];
  assert.deepEqual(command.slice(0, 2), ['/usr/bin/foyer', 'serve']);
  const volumes = all(runtime, 'VOLUME').flatMap((v) => words(v.args));
  assert.ok(volumes.includes('/var/lib/foyer'), `VOLUME ${volumes}`);
  assert.equal(optionValue(command, '--data-dir'), '/var/lib/foyer');
  const listen = optionValue(command, '--listen');
  assert.match(listen, /^0\.0\.0\.0:\d+$/, 'the server answers outside the container');
  const exposed = all(runtime, 'EXPOSE').flatMap((e) => words(e.args)).map((p) => p.replace(/\/tcp$/, ''));
  assert.ok(exposed.includes(listen.split(':')[1]), `EXPOSE ${exposed}, --listen ${listen}`);
});

test('the health check asks /readyz on that port, and SIGTERM stops it', () => {
  const health = last(runtime, 'HEALTHCHECK');
  assert.ok(health, 'no HEALTHCHECK');
  const [, probe] = /\bCMD\s+(.*)$/.exec(health.args);
  const port = optionValue([...words(last(runtime, 'CMD').args)], '--listen').split(':')[1];
  assert.match(probe, new RegExp(`^curl -fsS http://127\\.0\\.0\\.1:${port}/readyz\\b`));
  assert.equal(last(runtime, 'STOPSIGNAL')?.args, 'SIGTERM');
});
