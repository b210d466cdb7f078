// The waiting page's service worker: shows the "your turn" notices Foyer pushes (their
// payload is JSON: title, body, url, kind, room) and opens the room's page on a click.
// Served from the root so that its scope covers every room's page.

self.addEventListener('push', (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { body: event.data.text() };
  }
  const title = notice.title ?? 'Waiting room';
  event.waitUntil(self.registration.showNotification(title, {
    body: notice.body ?? '',
    // One notice per room on screen: "it's your turn" replaces "soon".
    tag: `foyer-${notice.room ?? ''}`,
    renotify: true,
    requireInteraction: notice.kind === 'turn',
    data: { url: notice.url ?? '/' },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? '/', self.location.origin);
  // Only this origin's pages: a payload can't send the visitor elsewhere.
  const target = url.origin === self.location.origin ? url.href : self.location.origin;
  event.waitUntil((async () => {
    const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const same = open.find((c) => new URL(c.url).pathname === new URL(target).pathname);
    return same ? same.focus() : self.clients.openWindow(target);
  })());
});
