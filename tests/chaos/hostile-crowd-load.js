// The hostile crowd of hostile_crowd.test.js, in a process of its own at the lowest
// priority (as abuse-load.js): argv port, connections, seconds. Each connection plays one
// part, again and again on a new connection whenever the server closes it, until the time
// is up; then it prints one JSON line, `CROWD {...}`, of the answers each part heard.
import net from 'node:net';

const [port, connections, seconds] = process.argv.slice(2).map(Number);
const until = Date.now() + seconds * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const host = 'Host: 127.0.0.1\r\n';
const chunked = `POST /api/v1/rooms/demo/join HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n`;
const filler = Buffer.alloc(16 * 1024, 'a');
const poll = `GET /api/v1/rooms/demo HTTP/1.1\r\n${host}\r\n`;

// Each part: what it writes once connected; `more` keeps writing while the socket takes it.
const parts = {
  'endless trailer': { head: `${chunked}0\r\nX-Endless: `, more: () => filler },
  'endless chunk extension': { head: `${chunked}5;ext=`, more: () => filler },
  'slow body': { head: `POST /api/v1/rooms/demo/join HTTP/1.1\r\n${host}Content-Length: 16000\r\n\r\n`, more: () => 'x', gapMs: 200 },
  // Requests sent without reading an answer: the server's answers back up in the socket.
  'pipelined flood': { head: '', more: () => poll.repeat(64), paused: true },
  idle: { head: '' },
  'bad framing': { head: `POST /api/v1/rooms/demo/join HTTP/1.1\r\n${host}Transfer-Encoding: chunked, gzip\r\n\r\n${poll}`, again: true },
};
const names = Object.keys(parts);
const heard = Object.fromEntries(names.map((n) => [n, {}]));

function play(name) {
  const part = parts[name];
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let first = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? 'closed';
      heard[name][status] = (heard[name][status] ?? 0) + 1;
      socket.destroy();
      resolve();
    };
    if (part.paused) socket.pause();
    socket.on('data', (d) => { if (first.length < 16) first += d.toString('latin1'); });
    socket.on('error', finish);
    socket.on('close', finish);
    setTimeout(finish, Math.max(0, until - Date.now()));
    socket.on('connect', async () => {
      socket.write(part.head);
      if (!part.more) return;
      while (!done && Date.now() < until) {
        if (!socket.write(part.more())) await new Promise((r) => { socket.once('drain', r); socket.once('close', r); });
        if (part.gapMs) await sleep(part.gapMs);
        if (part.paused) await sleep(50);
      }
    });
  });
}

await Promise.all(Array.from({ length: connections }, async (_, i) => {
  const name = names[i % names.length];
  while (Date.now() < until) {
    await play(name);
    await sleep(20);
  }
}));
console.log(`CROWD ${JSON.stringify(heard)}`);
