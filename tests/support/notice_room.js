// A room "hall" whose notices go to a real Web Push service and a real SMTP relay, both on
// loopback, started and stopped with the test: { f, service, smtp }. `push` and `relayArgs`
// shape the service's and the relay's answers; `server` and `notifications` add settings.
import { Foyer, startTrusting } from '../lib/foyer.js';
import { startPushService } from './push_service.js';
import { relay } from './smtp_relay.js';

export async function startNoticeRoom(t, dir, { server, notifications = {}, rate = 60, push, relayArgs = [] }) {
  const service = await startPushService(dir, push);
  t.after(() => service.close());
  const smtp = await relay(t, dir, relayArgs);
  const f = new Foyer({
    server,
    notifications: {
      vapid_subject: 'mailto:ops@example.com',
      allow_private_push_hosts: ['127.0.0.1'],
      email: { host: '127.0.0.1', port: smtp.port, from: 'rooms@shop.example.com', starttls: false },
      ...notifications,
    },
    rooms: [{ id: 'hall', name: 'Concert hall', rate_per_minute: rate, target_url: '/welcome' }],
  });
  t.after(() => f.cleanup());
  await startTrusting(f, service.cert);
  return { f, service, smtp };
}
