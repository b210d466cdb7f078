// What a visitor keeps on this device, per room: the ticket (their place survives
// reloads and restarts) and the lobby receipt (the verify page prefills it).
// Storage can be refused (private modes, full quotas): the page then still works,
// it just forgets on reload, and the HttpOnly ticket cookie still brings the place back.

// Per tab (sessionStorage): the passes this page sent the visitor on with (bounce.js).

const key = (room) => `foyer:room:${room}`;
const sendsKey = (room) => `foyer:sent:${room}`;

// `kind` names the storage: even reading the global can throw where storage is refused.
function read(kind, name) {
  try {
    return JSON.parse(globalThis[kind].getItem(name));
  } catch {
    return null;
  }
}

function write(kind, name, value) {
  try {
    globalThis[kind].setItem(name, JSON.stringify(value));
  } catch {
    // Refused: see the top of this file.
  }
}

/** The stored entry of `room`: {ticket?, receipt?, firstPosition?, ...}, or {} when none. */
export function loadEntry(room) {
  return read('localStorage', key(room)) ?? {};
}

export function saveEntry(room, entry) {
  write('localStorage', key(room), entry);
}

/** This tab's record of the passes it sent the visitor on with from `room`, or null. */
export function loadSends(room) {
  return read('sessionStorage', sendsKey(room));
}

export function saveSends(room, record) {
  write('sessionStorage', sendsKey(room), record);
}

/** Every stored receipt, newest join first, for the verify page. */
export function storedReceipts() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      if (!name.startsWith('foyer:room:')) continue;
      const receipt = JSON.parse(localStorage.getItem(name))?.receipt;
      if (receipt) out.push(receipt);
    }
  } catch {
    return out;
  }
  return out.sort((a, b) => b.joined_at - a.joined_at);
}
