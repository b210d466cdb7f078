// "The claim window starts when the notice goes out", on the real binary: two visitors are
// admitted together and neither comes back; one opted in to Web Push late in their window. The
// one who was told keeps the whole claim window from the notice, through a restart; the other
// lapses a window after the admission, as before. The push goes to the loopback push service
// of tests/support/push_service.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Foyer, startTrusting, until } from '../lib/foyer.js';
import { startPushService } from '../support/push_service.js';

const TOKEN = 'notice-window-admin-token-0123';
const WINDOW_S = 10;  // the least a room may set
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('a visitor told "it\'s your turn" late in their window has the whole window from the notice', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-notice-window-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const service = await startPushService(dir);
  t.after(() => service.close());
  const f = new Foyer({
    server: { admin_token: TOKEN },
    notifications: { vapid_subject: 'mailto:ops@example.com', allow_private_push_hosts: ['127.0.0.1'] },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: 600, claim_window_seconds: WINDOW_S, target_url: '/welcome' }],
  });
  t.after(() => f.cleanup());
  await startTrusting(f, service.cert);

  // Neither polls again after joining: a poll would claim their pass.
  const told = (await f.join('hall')).json;
  const silent = (await f.join('hall')).json;
  const joinedAt = Date.now();
  await until('both admitted', async () => (await f.request('GET', '/api/v1/rooms/hall')).json.served >= 2);

  // Seven seconds into the window (the durable step that admitted them came at most a
  // second or so after the join), one opts in; "it's your turn" goes out within a second.
  await sleep(joinedAt + 7000 - Date.now());
  const s = service.subscribe();
  const optIn = await f.request('POST', '/api/v1/rooms/hall/notifications',
    { ticket: told.ticket, body: { push: { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } } } });
  assert.equal(optIn.status, 201, optIn.text);
  await until('the turn pushed', () => service.received.find((m) => m.payload && JSON.parse(m.payload).kind === 'turn'));
  const audit = await f.request('GET', '/api/v1/admin/rooms/hall/audit', { headers: { authorization: `Bearer ${TOKEN}` } });
  const notices = audit.text.trimEnd().split('\n').map((l) => JSON.parse(l)).filter((l) => l.type === 'turn_notified');
  assert.deepEqual(notices.map((l) => l.place), [told.place]);

  // Past the window from the admission, well inside the one from the notice, and a restart
  // in between: the silent visitor lapsed, the one told is still admitted and gets a pass.
  await f.kill9();
  await f.start();
  await sleep(joinedAt + 12500 - Date.now());
  const lapsed = await f.status(silent.ticket, 'hall');
  assert.equal(lapsed.json.state, 'expired', lapsed.text);
  const kept = await f.status(told.ticket, 'hall');
  assert.equal(kept.json.state, 'admitted', kept.text);
  assert.ok(kept.json.pass, kept.text);
});
