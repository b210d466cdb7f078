// What a visitor keeps on this device, per room: the ticket (their place survives
// reloads and restarts) and the lobby receipt (the verify page prefills it).
// Storage can be refused (private modes, full quotas): the page then still works,
// it just forgets on reload, and the HttpOnly ticket cookie still brings the place back.

const key = (room) => `foyer:room:${room}`;

/** The stored entry of `room`: {ticket?, receipt?, firstPosition?, ...}, or {} when none. */
export function loadEntry(room) {
  try {
    return JSON.parse(localStorage.getItem(key(room))) ?? {};
  } catch {
    return {};
  }
}

export function saveEntry(room, entry) {
  try {
    localStorage.setItem(key(room), JSON.stringify(entry));
  } catch {
    // Refused: see the top of this file.
  }
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
