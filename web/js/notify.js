// "Notify me" on the waiting page: opts the visitor's ticket into the "your turn" notices
// the room offers (room info's `notifications.channels`): Web Push through the service
// worker /sw.js, or an email address. The address and the subscription go to Foyer only.

import { request } from './api.js';
import { strings as s } from './strings.js';
import { $ } from './page.js';

let offered = false;

const path = (room) => `/api/v1/rooms/${encodeURIComponent(room)}/notifications`;

/** base64url text as the bytes PushManager.subscribe wants for applicationServerKey. */
function keyBytes(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

function say(text) {
  $('notify-status').textContent = text;
}

async function send(room, ticket, body) {
  const res = await request('POST', path(room), { bearer: ticket(), body });
  if (!res.ok) throw new Error(res.json?.detail ?? `HTTP ${res.status}`);
  $('notify-off').hidden = false;
  return res;
}

async function optInPush(room, ticket, vapidKey) {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return say(s.notifyDenied);
  const registration = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const options = { userVisibleOnly: true };
  if (vapidKey) options.applicationServerKey = keyBytes(vapidKey);
  const subscription = (await registration.pushManager.getSubscription()) ?? (await registration.pushManager.subscribe(options));
  await send(room, ticket, { push: subscription.toJSON() });
  say(s.notifyOn('push'));
}

/**
 * Offers the channels of `notices` (room info's `notifications`, absent when the server
 * sends none) to the visitor whose current ticket `ticket()` gives. A visitor who
 * subscribed before sends the subscription again: the server forgets contacts on restart.
 */
export async function offerNotices(room, ticket, notices) {
  if (offered) return;
  offered = true;
  const channels = notices?.channels ?? [];
  const canPush = channels.includes('push') && 'serviceWorker' in navigator && 'PushManager' in globalThis;
  if (!canPush && !channels.includes('email')) return;
  $('notify').hidden = false;
  $('notify-push').hidden = !canPush;
  $('notify-email-form').hidden = !channels.includes('email');
  const guard = (work) => work().catch(() => say(s.notifyFailed));
  $('notify-push').addEventListener('click', () => guard(() => optInPush(room, ticket, notices.vapid_public_key)));
  $('notify-email-form').addEventListener('submit', (event) => {
    event.preventDefault();
    guard(async () => {
      await send(room, ticket, { email: $('notify-email').value.trim() });
      say(s.notifyOn('email'));
    });
  });
  $('notify-off').addEventListener('click', () => guard(async () => {
    await request('DELETE', path(room), { bearer: ticket() });
    $('notify-off').hidden = true;
    say(s.notifyStopped);
  }));
  if (canPush && Notification.permission === 'granted') {
    await guard(async () => {
      const registration = await navigator.serviceWorker.getRegistration('/');
      const subscription = await registration?.pushManager.getSubscription();
      if (!subscription) return;
      await send(room, ticket, { push: subscription.toJSON() });
      say(s.notifyOn('push'));
    });
  }
}
