// One rule for JSON bodies on every endpoint: a body must be sent as application/json
// (parameters allowed); no Content-Type, or another, is 415 before anything is read or
// written. A request without a body needs none.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { withFoyer } from '../lib/foyer.js';

const SITE = 'content-type-site-token-0123';
const ADMIN = 'content-type-admin-token-0123';

test('every JSON body needs Content-Type: application/json, on every endpoint alike', () =>
  withFoyer({
    server: { site_token: SITE, admin_token: ADMIN },
    rooms: [{ id: 'demo', rate_per_minute: 6000, target_url: '/welcome', stock: 100, inventory: { total: 10 } }],
  }, async (f) => {
    const bodies = [
      ['POST', '/api/v1/rooms/demo/join', '{}', SITE],
      ['POST', '/api/v1/rooms/demo/stock', '{"consumed": 1}', SITE],
      ['POST', '/api/v1/rooms/demo/passes/done', '{"passes": []}', SITE],
      ['POST', '/api/v1/rooms/demo/signals', '{"p95_ms": 100}', SITE],
      ['POST', '/api/v1/rooms/demo/holds', '{"seats": 1}', SITE],
      ['POST', '/api/v1/admin/rooms', '{"id": "x", "target_url": "/go"}', ADMIN],
      ['PATCH', '/api/v1/admin/rooms/demo', '{"rate_per_minute": 60}', ADMIN],
      ['POST', '/api/v1/admin/rooms/demo/beacon', '{"value": "00"}', ADMIN],
    ];
    for (const [method, path, body, token] of bodies) {
      for (const type of [undefined, 'application/x-www-form-urlencoded', 'text/plain']) {
        const headers = { authorization: `Bearer ${token}`, 'idempotency-key': `k-${path}` };
        // fetch labels a string body text/plain unless told: a Blob with no type sends none.
        const res = await fetch(f.url + path, {
          method, headers: type ? { ...headers, 'content-type': type } : headers, body: type ? body : new Blob([body]),
        });
        const json = await res.json();
        assert.equal(res.status, 415, `${method} ${path} as ${type}: ${JSON.stringify(json)}`);
        assert.equal(json.error, 'unsupported_media_type');
      }
    }
    const stock = await fetch(`${f.url}/api/v1/rooms/demo/stock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SITE}`, 'idempotency-key': 'sold-1', 'content-type': 'application/json; charset=utf-8' },
      body: '{"consumed": 1}',
    });
    assert.equal(stock.status, 200, await stock.text());
    // Nothing refused was counted.
    assert.equal((await f.request('GET', '/api/v1/rooms/demo')).json.stock_remaining, 99);
    // No body, nothing to declare.
    assert.equal((await fetch(`${f.url}/api/v1/rooms/demo/join`, { method: 'POST' })).status, 201);
  }));
