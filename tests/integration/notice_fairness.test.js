// Sends run side by side, on the real binary: a hundred visitors subscribed at a push endpoint
// that accepts connections and never answers (a loopback TCP server that reads nothing) do not
// hold back a visitor whose push service works: they are told "it's your turn" within 2 s of
// their admission. The working push service is tests/support/push_service.js, which decrypts
// each message and checks its VAPID token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, startTrusting, until } from '../lib/foyer.js';
import { startPushService } from '../support/push_service.js';

const TOKEN = 'notice-fairness-admin-token-01';
const HANGING = 100;
const admin = (f, p) => f.request('POST', `/api/v1/admin/rooms/hall/${p}`, { headers: { authorization: `Bearer ${TOKEN}` } });
const optIn = (f, ticket, s) => f.request('POST', '/api/v1/rooms/hall/notifications',
  { ticket, body: { push: { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } } } });

test('a hundred hanging push endpoints queued: a visitor with a working one is told within 2 s of admission', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notice-fairness-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sockets = new Set();
  const hanging = net.createServer((s) => { sockets.add(s); s.on('error', () => {}); });
  await new Promise((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  t.after(() => { for (const s of sockets) s.destroy(); hanging.close(); });
  const service = await startPushService(dir);
  t.after(() => service.close());
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: {
      vapid_subject: 'mailto:ops@example.com',
      allow_private_push_hosts: ['127.0.0.1'],
      // The hanging sends outlast the test.
      push_timeout_ms: 120000,
      opt_ins_per_network: 1000,
    },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 600, target_url: '/welcome' }],
  });
  t.after(() => f.cleanup());
  await startTrusting(f, service.cert);

  // Admission is held while everyone joins and opts in: the hanging ones first.
  assert.equal((await admin(f, 'pause')).status, 200);
  for (let i = 0; i < HANGING; ++i) {
    const joined = (await f.join('hall')).json;
    const s = service.subscribe();
    const r = await optIn(f, joined.ticket, { ...s, endpoint: `https://127.0.0.1:${hanging.address().port}/push/${i}` });
    assert.equal(r.status, 201, r.text);
  }
  const fan = (await f.join('hall')).json;
  const s = service.subscribe();
  assert.equal((await optIn(f, fan.ticket, s)).status, 201);

  // The hanging visitors are admitted first and their notices go out, never answered.
  assert.equal((await admin(f, 'resume')).status, 200);
  await until('the hanging sends under way', () => sockets.size >= 8);
  let admittedAt;
  await until('the fan admitted', async () => {
    const served = (await f.request('GET', '/api/v1/rooms/hall')).json.served;
    if (served > fan.place) admittedAt = Date.now();
    return admittedAt;
  }, 30000);
  const told = await until('the fan told', () => service.received.find((m) => m.url === new URL(s.endpoint).pathname
    && m.payload && JSON.parse(m.payload).kind === 'turn'), 5000);
  const toldAt = told.at;
  assert.ok(toldAt - admittedAt <= 2000, `told ${toldAt - admittedAt} ms after admission`);
  // Many of the hundred are still waiting behind their own service, not in front of the fan.
  const queue = (await f.request('GET', '/metrics')).text.match(/^foyer_notification_queue\{channel="push"\} (\d+)$/m);
  assert.ok(Number(queue[1]) > 50, `queued: ${queue[1]}`);
});
