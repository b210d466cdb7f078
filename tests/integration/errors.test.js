// Errors as the real binary answers them: 404 for paths no route has, 405 with Allow for
// known paths asked with another method, and every error as RFC 9457 problem details.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rawRequest, withFoyer } from '../lib/foyer.js';

const admin_token = 'test-admin-token-0123456789';
const admin = { authorization: `Bearer ${admin_token}` };

// A problem-details answer with this status and code, its members as RFC 9457 has them
// and `error`/`message` as the first API had them.
function expectProblem(r, status, code) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.equal(r.headers.get('cache-control'), 'no-store');
  assert.ok(r.json, `a JSON body: ${r.text}`);
  assert.equal(r.json.type, `urn:foyer:problem:${code}`);
  assert.equal(typeof r.json.title, 'string');
  assert.ok(r.json.title.length > 0);
  assert.equal(r.json.status, status);
  assert.equal(typeof r.json.detail, 'string');
  assert.equal(r.json.error, code);
  assert.equal(r.json.message, r.json.detail);
}

test('a path no route has is 404 not_found, admin paths included', async () => {
  await withFoyer({ server: { admin_token } }, async (f) => {
    for (const path of ['/nope', '/api/v1', '/api/v1/nothing', '/api/v1/rooms/demo/nothing',
      '/api/v1/rooms/demo/status/more', '/r/demo/extra', '/js/missing.js']) {
      expectProblem(await f.request('GET', path), 404, 'not_found');
    }
    // Matched segment by segment: not the room list, nor any admin action.
    for (const path of ['/api/v1/admin/roomsX', '/api/v1/admin', '/api/v1/admin/rooms/demo/explode']) {
      expectProblem(await f.request('GET', path, { headers: admin }), 404, 'not_found');
    }
    expectProblem(await f.request('GET', '/api/v1/rooms/nope'), 404, 'unknown_room');
    expectProblem(await f.request('GET', '/r/nope'), 404, 'unknown_room');
    // The pages and the API still answer around them.
    assert.equal((await f.request('GET', '/api/v1/admin/rooms', { headers: admin })).status, 200);
    assert.equal((await f.request('GET', '/r/demo')).status, 200);
  });
});

test('admin paths answer nothing before the token: not which exist, nor their methods', async () => {
  await withFoyer({ server: { admin_token } }, async (f) => {
    for (const [method, path] of [['GET', '/api/v1/admin/roomsX'], ['GET', '/api/v1/admin/nothing'],
      ['DELETE', '/api/v1/admin/rooms'], ['GET', '/api/v1/admin/rooms/demo/pause']]) {
      expectProblem(await f.request(method, path), 401, 'admin_token_required');
      expectProblem(await f.request(method, path, { headers: { authorization: 'Bearer wrong' } }), 401, 'admin_token_required');
    }
  });
  await withFoyer({}, async (f) => {
    expectProblem(await f.request('GET', '/api/v1/admin/roomsX'), 404, 'admin_disabled');
  });
});

test('a known path asked with another method is 405 with Allow', async () => {
  await withFoyer({ server: { admin_token } }, async (f) => {
    for (const [method, path, allow, headers] of [
      ['GET', '/api/v1/rooms/demo/join', 'POST'],
      ['GET', '/api/v1/rooms/demo/challenge', 'POST'],
      ['POST', '/api/v1/rooms/demo/status', 'GET, HEAD'],
      ['DELETE', '/api/v1/rooms/demo', 'GET, HEAD'],
      ['PUT', '/api/v1/rooms', 'GET, HEAD'],
      ['POST', '/api/v1/rooms/demo/lottery/proof', 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['POST', '/readyz', 'GET, HEAD'],
      ['POST', '/metrics', 'GET, HEAD'],
      ['POST', '/api/v1/admin/ops', 'GET, HEAD', admin],
      ['POST', '/.well-known/jwks.json', 'GET, HEAD'],
      ['POST', '/', 'GET, HEAD'],
      ['POST', '/js/room.js', 'GET, HEAD'],
      ['PUT', '/api/v1/admin/rooms', 'GET, HEAD, POST', admin],
      ['PUT', '/api/v1/admin/rooms/demo', 'DELETE, GET, HEAD, PATCH', admin],
      ['GET', '/api/v1/admin/rooms/demo/pause', 'POST', admin],
      ['GET', '/api/v1/rooms/demo/holds', 'POST'],
      ['POST', '/api/v1/rooms/demo/holds/00', 'GET, HEAD'],
      ['GET', '/api/v1/rooms/demo/holds/00/confirm', 'POST'],
      ['GET', '/api/v1/rooms/demo/holds/00/payment-pending', 'POST'],
      ['DELETE', '/api/v1/rooms/demo/holds/00/release', 'POST'],
      ['POST', '/api/v1/rooms/demo/inventory', 'GET, HEAD'],
    ]) {
      const r = await f.request(method, path, { headers });
      expectProblem(r, 405, 'method_not_allowed');
      assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
    }
  });
});

test('refusals of the visitor API and of the server itself are problems too', async () => {
  await withFoyer({ server: { max_body_bytes: 2048 } }, async (f) => {
    expectProblem(await f.status(undefined), 401, 'missing_ticket');
    expectProblem(await f.request('POST', '/api/v1/rooms/demo/join', { body: '[1]' }), 400, 'bad_join_body');
    expectProblem(await f.request('GET', '/api/v1/rooms/demo/lottery/proof'), 400, 'bad_index');
    expectProblem(await f.request('POST', '/api/v1/rooms/demo/join', { body: 'x'.repeat(4096) }), 413, 'body_too_large');
    const huge = await rawRequest(f.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20000)}\r\n\r\n`);
    assert.match(huge, /^HTTP\/1\.1 431 /);
    assert.match(huge, /\r\nContent-Type: application\/problem\+json\r\n/);
    const body = JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4));
    assert.equal(body.type, 'urn:foyer:problem:headers_too_large');
    assert.equal(body.status, 431);
  });
});

test('HEAD gets the length of what GET would get, and no body, errors included', async () => {
  await withFoyer({}, async (f) => {
    const get = await f.request('GET', '/api/v1/rooms/demo/nothing');
    // Pipelined: a body after a HEAD answer would be read as the next answer.
    const answers = await rawRequest(f.port, 'HEAD /api/v1/rooms/demo/nothing HTTP/1.1\r\nHost: x\r\n\r\n' +
      'HEAD /api/v1/rooms/demo HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const parts = answers.split('\r\n\r\n');
    assert.match(parts[0], /^HTTP\/1\.1 404 /);
    assert.match(parts[0], new RegExp(`\r\nContent-Length: ${Buffer.byteLength(get.text)}(\r\n|$)`));
    assert.match(parts[1], /^HTTP\/1\.1 200 /);
    assert.match(parts[2], /^HTTP\/1\.1 200 /);
    assert.equal(parts[3], '{"status":"ok"}');
  });
});
