// The Java connector (connectors/java/foyer: JDK 17's Ed25519 and P-256, a javax.servlet
// Filter): the shared vectors, then Debian's Jetty 9 with the filter in front of a servlet
// and a real `foyer serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repo } from '../lib/foyer.js';
import {
  assertVectors, runJson, siteToken, startDriver, startFoyer, vectors, vectorsPath, walkFromQueue,
} from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'foyer-java-'));
const jars = ['jetty9-server', 'jetty9-servlet', 'jetty9-util', 'jetty9-http', 'jetty9-io', 'jetty9-security', 'servlet-api']
  .map((name) => `/usr/share/java/${name}.jar`);
const classpath = [dir, ...jars].join(':');
let foyer;
let shop;

before(async () => {
  const sources = (sub) => readdirSync(path.join(repo, sub)).filter((f) => f.endsWith('.java')).map((f) => path.join(repo, sub, f));
  execFileSync('javac', ['-Xlint:all', '-Werror', '-d', dir, '-cp', classpath,
    ...sources('connectors/java/foyer'), ...sources('tests/connectors/java/foyer')], { stdio: 'pipe' });
  foyer = await startFoyer();
  shop = await startDriver('java', ['-cp', classpath, 'foyer.Check', 'serve', vectors.issuer, vectors.room,
    `${foyer.url}/.well-known/jwks.json`, `${foyer.url}/r/${vectors.room}`]);
});

after(async () => {
  await shop?.stop();
  await foyer?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('the Java connector agrees with the shared vectors', () => {
  assertVectors(runJson('java', ['-cp', classpath, 'foyer.Check', 'vectors', vectorsPath]));
});

test('a visitor goes from the queue to a servlet behind the filter in Jetty 9, and the pass is reported done', async () => {
  const pass = await walkFromQueue(foyer, shop.url, `${foyer.url}/r/${vectors.room}`, async (res, visitor) => {
    assert.equal((await res.json()).visitor, visitor);
  });
  const { jti } = JSON.parse(Buffer.from(pass.split('.')[1], 'base64url'));
  assert.equal(runJson('java', ['-cp', classpath, 'foyer.Check', 'done', foyer.url, vectors.room, siteToken, jti]).done, 1);
});
