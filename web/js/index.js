// The front page when a server has several rooms: a link to each waiting room.

import { strings as s } from './strings.js';
import { request, retrying } from './api.js';
import { $, applyStrings, setText } from './page.js';

async function main() {
  applyStrings();
  const res = await retrying(() => request('GET', '/api/v1/rooms'));
  const rooms = res.json?.rooms ?? [];
  if (rooms.length === 0) setText('lead', s.indexEmpty);
  for (const room of rooms) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `/r/${encodeURIComponent(room.id)}`;
    link.textContent = room.name;
    const state = document.createElement('span');
    state.className = 'small';
    state.textContent = ` · ${s.states[room.state] ?? room.state}`;
    item.append(link, state);
    $('rooms').append(item);
  }
}

main();
