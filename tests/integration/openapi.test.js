// docs/openapi.yaml against the server: (a) the router's table (`foyer routes`) and the
// document's paths are the same, (b) every example in the document fits its schema, and
// (c) real answers of the binary fit the schemas the document gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

import Ajv2020 from 'ajv/dist/2020.js';
import { parse } from 'yaml';

import { Foyer, foyerBin, repo, until } from '../lib/foyer.js';

const documentText = readFileSync(path.join(repo, 'docs/openapi.yaml'), 'utf8');
const doc = parse(documentText);
const methods = ['get', 'put', 'post', 'delete', 'patch'];
const base = 'https://foyer.invalid/openapi.yaml';

// The document's schemas as one JSON Schema 2020-12 document, whose #/components/schemas/
// references point there. Strict: an unknown keyword or format fails; `required` names
// properties an `allOf` brings, as composed OpenAPI schemas do.
const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
const rebase = (schema) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${base}#/$defs/`));
ajv.addSchema({ $id: base, $defs: rebase(doc.components.schemas) });

// A $ref to another part of the document, followed.
function resolve(node) {
  if (!node?.$ref) return node;
  return resolve(node.$ref.slice(2).split('/').reduce((at, key) => at[key], doc));
}

function validator(schema) {
  return ajv.compile(rebase(schema));
}

function check(schema, value, what) {
  const validate = validator(schema);
  assert.ok(validate(value), `${what}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}

// Every media type object in the document, with where it is.
function* mediaTypes(node, where) {
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'content' && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [type, media] of Object.entries(value)) yield { where: `${where} ${type}`, media };
    } else {
      yield* mediaTypes(value, `${where}/${key}`);
    }
  }
}

test('(a) every route of the router is in the document, and every path of the document is routed', () => {
  const table = execFileSync(foyerBin, ['routes'], { encoding: 'utf8' }).trim().split('\n');
  assert.ok(table.length > 40, `foyer routes printed ${table.length} lines`);
  // The embedded files of web/ are routed one by one; they are files, not the API.
  const webFiles = new Set(readdirSync(path.join(repo, 'web'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile()).map((e) => `/${path.relative(path.join(repo, 'web'), path.join(e.parentPath ?? e.path, e.name))}`));
  const routed = new Set(table
    .map((line) => line.split(' '))
    // HEAD is answered wherever GET is, and said once here.
    // So are the library files embedded from web/node_modules, under /vendor/.
    .filter(([method, pattern]) => method !== 'HEAD' && !webFiles.has(pattern) && !pattern.startsWith('/vendor/'))
    .map(([method, pattern]) => `${method} ${pattern}`));
  assert.ok(webFiles.size > 0 && table.some((line) => webFiles.has(line.split(' ')[1])), 'the web files are routed');
  assert.ok(table.every((line) => !line.startsWith('HEAD ') || table.includes(`GET ${line.slice(5)}`)));
  const documented = new Set(Object.entries(doc.paths).flatMap(([p, item]) =>
    methods.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`)));
  const undocumented = [...routed].filter((r) => !documented.has(r));
  const unrouted = [...documented].filter((d) => !routed.has(d));
  assert.deepEqual(undocumented, [], 'routed but not in docs/openapi.yaml');
  assert.deepEqual(unrouted, [], 'in docs/openapi.yaml but not routed');
});

test('(b) the document is OpenAPI 3.1, its schemas compile and every example fits its schema', () => {
  assert.equal(doc.openapi, '3.1.0');
  for (const name of Object.keys(doc.components.schemas)) {
    assert.ok(ajv.getSchema(`${base}#/$defs/${name}`), `schema ${name} compiles`);
  }
  let examples = 0;
  for (const { where, media } of mediaTypes({ paths: doc.paths, components: doc.components }, '')) {
    const schema = media.schema;
    assert.ok(schema, `${where} has a schema`);
    for (const [name, example] of Object.entries(media.examples ?? {})) {
      check(schema, resolve(example).value, `${where} example ${name}`);
      examples++;
    }
  }
  assert.ok(examples >= 40, `only ${examples} examples`);
});

test('(b) the problem codes are the server\'s, and every operation says how it fails or is public', () => {
  const codes = [...readFileSync(path.join(repo, 'src/core/errc.cpp'), 'utf8').matchAll(/case errc::(\w+): return "\1";/g)]
    .map((m) => m[1]);
  assert.ok(codes.length > 40);
  const documented = doc.components.schemas.ErrorCode.enum;
  for (const code of codes) assert.ok(documented.includes(code), `${code} is not in ErrorCode`);
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of methods.filter((x) => item[x])) {
      const op = item[m];
      assert.ok(op.operationId && op.summary && op.responses, `${m} ${p}`);
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      for (const [, name] of p.matchAll(/\{(\w+)\}/g)) {
        assert.ok(params.some((x) => x.in === 'path' && x.name === name), `${m} ${p}: path parameter ${name}`);
      }
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement)) {
          assert.ok(doc.components.securitySchemes[scheme], `${m} ${p}: security scheme ${scheme}`);
        }
      }
      for (const [status, response] of Object.entries(op.responses)) {
        const r = resolve(response);
        if (/^[45]/.test(status)) assert.ok(r.content['application/problem+json'], `${m} ${p} ${status} is a problem`);
      }
    }
  }
  // The outgoing events, one webhook each, named after their CloudEvents type.
  const types = Object.values(doc.webhooks).map((w) => resolve(w).post.summary);
  const source = readFileSync(path.join(repo, 'src/core/ops/cloud_event.cpp'), 'utf8');
  const sent = [...new Set([...source.matchAll(/"(dev\.foyer\.room\.\w+)"/g)].map((m) => m[1]))];
  assert.deepEqual([...types].sort(), [...sent].sort());
  for (const w of Object.values(doc.webhooks)) {
    const post = resolve(w).post;
    const headers = post.parameters.map(resolve).map((x) => x.name);
    assert.deepEqual(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const schema = resolve(post.requestBody.content['application/cloudevents+json'].schema);
    assert.equal(schema.properties.type.const, post.summary);
  }
});

// The schema the document gives this answer; fails if it gives none.
function answerSchema(method, template, res) {
  const op = doc.paths[template]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${template} is documented`);
  const response = resolve(op.responses[String(res.status)]);
  assert.ok(response, `${method} ${template} documents ${res.status}`);
  const type = res.headers.get('content-type').split(';')[0];
  const media = response.content?.[type];
  assert.ok(media, `${method} ${template} ${res.status} documents ${type}`);
  return media.schema;
}

async function fits(f, method, urlPath, template, options, expected) {
  const res = await f.request(method, urlPath, options);
  assert.equal(res.status, expected, `${method} ${urlPath}: ${res.text}`);
  check(answerSchema(method, template, res), res.json, `${method} ${urlPath} ${res.status}`);
  return res;
}

test('(c) the binary\'s answers fit the document\'s schemas', async () => {
  const SITE = 'site-token-for-the-openapi-test';
  const f = new Foyer({
    server: { site_token: SITE },
    rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 6000, target_url: '/welcome', inventory: { total: 10 } }],
  });
  try {
    await f.start();
    await fits(f, 'GET', '/api/v1/rooms', '/api/v1/rooms', {}, 200);
    await fits(f, 'GET', '/api/v1/rooms/demo', '/api/v1/rooms/{room}', {}, 200);
    await fits(f, 'GET', '/api/v1/rooms/nope', '/api/v1/rooms/{room}', {}, 404);
    await fits(f, 'GET', '/api/v1/rooms/demo/inventory', '/api/v1/rooms/{room}/inventory', {}, 200);
    await fits(f, 'GET', '/api/v1/rooms/demo/frontier', '/api/v1/rooms/{room}/frontier', {}, 200);
    await fits(f, 'GET', '/api/v1/rooms/demo/lottery', '/api/v1/rooms/{room}/lottery', {}, 200);
    await fits(f, 'POST', '/api/v1/rooms/demo/challenge', '/api/v1/rooms/{room}/challenge', {}, 200);
    await fits(f, 'GET', '/healthz', '/healthz', {}, 200);
    await fits(f, 'GET', '/readyz', '/readyz', {}, 200);
    await fits(f, 'GET', '/.well-known/jwks.json', '/.well-known/jwks.json', {}, 200);

    const join = '/api/v1/rooms/{room}/join';
    const problem = await fits(f, 'POST', '/api/v1/rooms/demo/join', join, { body: '[1, 2]' }, 400);
    assert.equal(problem.json.error, 'bad_join_body');
    assert.equal(problem.headers.get('content-type'), 'application/problem+json');
    const joined = await fits(f, 'POST', '/api/v1/rooms/demo/join', join, {}, 201);
    const status = '/api/v1/rooms/{room}/status';
    await fits(f, 'GET', '/api/v1/rooms/demo/status', status, {}, 401);
    const admitted = await until('admission', async () => {
      const res = await fits(f, 'GET', '/api/v1/rooms/demo/status', status, { ticket: joined.json.ticket }, 200);
      return res.json.state === 'admitted' ? res.json : null;
    });

    const hold = await fits(f, 'POST', '/api/v1/rooms/demo/holds', '/api/v1/rooms/{room}/holds',
      { ticket: admitted.pass, headers: { 'idempotency-key': 'cart-1' }, body: { seats: 2 } }, 201);
    const holdPath = `/api/v1/rooms/demo/holds/${hold.json.hold_id}`;
    const holdTemplate = '/api/v1/rooms/{room}/holds/{hold}';
    await fits(f, 'GET', holdPath, holdTemplate, { ticket: SITE }, 200);
    await fits(f, 'POST', `${holdPath}/confirm`, `${holdTemplate}/confirm`,
      { ticket: SITE, headers: { 'idempotency-key': 'pay-1' } }, 200);
    await fits(f, 'POST', `${holdPath}/confirm`, `${holdTemplate}/confirm`, { ticket: SITE }, 400);
    const after = await fits(f, 'GET', '/api/v1/rooms/demo/inventory', '/api/v1/rooms/{room}/inventory', {}, 200);
    assert.equal(after.json.confirmed, 2);

    const served = await f.request('GET', '/api/v1/openapi.yaml');
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'application/yaml');
    assert.equal(served.text, documentText, 'the server serves docs/openapi.yaml as it is');
    const specification = await f.request('GET', '/docs/fairness.md');
    assert.equal(specification.status, 200);
    assert.equal(specification.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.equal(specification.text, readFileSync(path.join(repo, 'docs/fairness.md'), 'utf8'));
  } finally {
    await f.cleanup();
  }
});
