// The abuse of tests/chaos/abuse.test.js, in a process of its own: its sockets count
// against this process's open files and its work against this event loop, so the test's
// own poll load is timed on a loop that does nothing else.
//
// Driven over the IPC channel: each message { id, cmd, ... } is answered by { id, ... }.
//   start { port, plan }  idle connections (opened and held), slowloris, one-shot
//                         malformed requests (a connection each) and keep-alive forged
//                         tickets and bad proofs, all until `stop`; answers
//                         { idleOpenMs } once every idle connection is open
//   stop                  ends the loops; answers once the last of them is answered or cut,
//                         with the counts per kind
//   idle-report { waitMs } answers when every idle connection has been closed by the
//                         server, or after waitMs, with what the idle connections saw
//   fill { count }        opens `count` more connections at once and holds them; answers
//                         with how many the server kept and what the others heard
//   release               closes the connections of `fill`
import net from 'node:net';
import { WireConnection, problemCode, sleep } from './helpers.js';

const connectsInFlight = 256;

// "408 request_timeout", "400 bad_request", ...: what one raw answer said; "none" for a
// connection closed without one.
function answerOf(bytes) {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
  if (!status || end < 0) return 'none';
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
  return `${status} ${problemCode(bytes.subarray(end + 4, end + 4 + length).toString()) ?? '-'}`;
}

function count(map, key) {
  map[key] = (map[key] ?? 0) + 1;
}

// A connection that sends `chunks` (`gapMs` apart) and is held until the server closes
// it, or until `release()`. `done` resolves at the close with what came back and the
// lifetime from the connect.
function held(port, { chunks = [], gapMs = 0 } = {}) {
  const socket = net.connect(port, '127.0.0.1');
  const c = { received: [], isOpen: false, isClosed: false, released: false };
  let openedAt = null;
  c.done = new Promise((resolve) => {
    socket.on('data', (d) => c.received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      c.isClosed = true;
      resolve({
        opened: openedAt !== null,
        answer: answerOf(Buffer.concat(c.received)),
        lifeMs: openedAt === null ? null : performance.now() - openedAt,
        released: c.released,
      });
    });
  });
  c.opened = new Promise((resolve) => {
    socket.once('connect', async () => {
      openedAt = performance.now();
      c.isOpen = true;
      resolve(true);
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        await sleep(gapMs);
      }
    });
    socket.once('close', () => resolve(false));
  });
  c.release = () => {
    c.released = true;
    socket.destroy();
  };
  return c;
}

// Opens `n` held connections, `connectsInFlight` handshakes at a time; resolves once all
// have been tried.
async function openMany(port, n, into) {
  let next = 0;
  const one = async () => {
    while (next < n) {
      next++;
      const c = held(port);
      into.push(c);
      await c.opened;
    }
  };
  await Promise.all(Array.from({ length: Math.min(connectsInFlight, n) }, one));
}

const state = { port: null, running: false, loops: [], byKind: {}, idle: [], filled: [] };

// Counts per kind and answer; `lifeMs` (from the connect to the server's close) as
// [shortest, longest] per answer.
function tally(kind, answer, lifeMs) {
  const k = (state.byKind[kind] ??= { sent: 0, answers: {}, lifeMs: {} });
  k.sent++;
  count(k.answers, answer);
  if (lifeMs !== undefined) {
    const [min, max] = k.lifeMs[answer] ?? [Infinity, 0];
    k.lifeMs[answer] = [Math.min(min, lifeMs), Math.max(max, lifeMs)];
  }
}

// Slowloris: a request line, then a header byte every `dripMs`, never the end of the
// headers; when the server cuts the connection, another takes its place.
async function slowloris(port, dripMs) {
  const drip = ['GET /api/v1/rooms/demo/status HTTP/1.1\r\nHost: x\r\n', ...`X-Slow: ${'a'.repeat(1000)}`];
  while (state.running) {
    const c = held(port, { chunks: drip, gapMs: dripMs });
    const r = await c.done;
    if (r.opened) tally('slowloris', r.answer, r.lifeMs);
    else await sleep(dripMs);
  }
}

// A malformed or oversized request on a connection of its own; the server answers and
// closes.
async function oneShot(port, kinds, offset) {
  for (let i = offset; state.running; i++) {
    const kind = kinds[i % kinds.length];
    const r = await held(port, { chunks: [Buffer.from(kind.text, 'latin1')] }).done;
    if (r.opened) tally(kind.kind, r.answer);
  }
}

// Forged tickets and bad proofs on one keep-alive connection. A kind is a request head
// and, for a POST, a body; one with `challengeFirst` fetches a real challenge and sends
// it with a wrong solution in place of CHALLENGE. An answer that closes the connection
// is marked so (only a 503 at the cap may), and the connection is opened again.
async function keepAlive(port, kinds, offset) {
  let wire = null;
  for (let i = offset; state.running; i++) {
    const kind = kinds[i % kinds.length];
    try {
      if (!wire || wire.closed) wire = await WireConnection.open(port);
      let body = kind.body;
      if (kind.challengeFirst) {
        const c = await wire.request('POST /api/v1/rooms/demo/challenge HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
        if (c.status !== 200) {
          tally(kind.kind, `challenge ${answerKey(c)}`);
          continue;
        }
        body = body.replace('CHALLENGE', JSON.parse(c.body).challenge);
      }
      const length = body === undefined ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
      tally(kind.kind, answerKey(await wire.request(`${kind.head}${length}\r\n${body ?? ''}`)));
    } catch {
      tally(kind.kind, 'connection failed');
      await sleep(10);
    }
  }
  wire?.close();
}

function answerKey(r) {
  const closes = /\r\nconnection: *close/i.test(r.head) ? ', closed' : '';
  return `${r.status} ${problemCode(r.body) ?? '-'}${closes}`;
}

const commands = {
  async start({ port, plan }) {
    state.port = port;
    state.running = true;
    for (let i = 0; i < plan.slowloris; i++) state.loops.push(slowloris(port, plan.dripMs));
    for (let i = 0; i < plan.oneShotWorkers; i++) state.loops.push(oneShot(port, plan.oneShot, i));
    for (let i = 0; i < plan.keepAliveWorkers; i++) state.loops.push(keepAlive(port, plan.keepAlive, i));
    const t0 = performance.now();
    await openMany(port, plan.idle, state.idle);
    return { idleOpenMs: performance.now() - t0 };
  },

  async stop() {
    state.running = false;
    await Promise.all(state.loops);
    return { byKind: state.byKind };
  },

  async ['idle-report']({ waitMs }) {
    const all = Promise.all(state.idle.map((c) => c.done));
    const results = await Promise.race([all, sleep(waitMs).then(() => null)]);
    const report = { opened: 0, failed: 0, closedByServer: 0, stillOpen: 0, answers: {}, minLifeMs: Infinity, maxLifeMs: 0 };
    for (const c of state.idle) {
      if (!results && !c.isClosed) {
        // Still open after waitMs: counted, then closed so the process can end.
        c.release();
        report.stillOpen++;
      }
    }
    for (const r of await all) {
      if (!r.opened) {
        report.failed++;
        continue;
      }
      report.opened++;
      if (r.released) continue;
      report.closedByServer++;
      count(report.answers, r.answer);
      report.minLifeMs = Math.min(report.minLifeMs, r.lifeMs);
      report.maxLifeMs = Math.max(report.maxLifeMs, r.lifeMs);
    }
    return report;
  },

  async fill({ count: n }) {
    state.filled = [];
    await openMany(state.port, n, state.filled);
    // Refused connections hear their 503 right after the accept: settled once no answer
    // has come for a second.
    let answered = -1;
    let lastChange = 0;
    for (;;) {
      const now = state.filled.filter((c) => c.received.length > 0).length;
      if (now !== answered) {
        answered = now;
        lastChange = performance.now();
      }
      if (performance.now() - lastChange > 1000) break;
      await sleep(100);
    }
    const report = { held: 0, failed: 0, answers: {} };
    for (const c of state.filled) {
      if (!c.isOpen) report.failed++;
      else if (c.received.length === 0) report.held++;
      else count(report.answers, answerOf(Buffer.concat(c.received)));
    }
    return report;
  },

  async release() {
    for (const c of state.filled) c.release();
    await Promise.all(state.filled.map((c) => c.done));
    state.filled = [];
    return {};
  },
};

process.on('message', async ({ id, cmd, ...args }) => {
  try {
    process.send({ id, ...(await commands[cmd](args)) });
  } catch (e) {
    process.send({ id, error: String(e?.stack ?? e) });
  }
});
process.on('disconnect', () => process.exit(0));
