// With I/O threads carrying the connections: clients that stall mid-request, a loop that
// stops for a moment while requests pile up behind it, and kill -9, each during joins.
// Invariants: every acknowledged join survives with its place, no place is issued twice,
// a join is answered 201 or not at all (or 503 with Retry-After, never anything else), and
// the stalled clients hold up nobody and are cut at their deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { assertAckedHold, assertNoPlaceTwice, chaosConfig, crowd, sleep, withFoyer } from './helpers.js';

const ioThreads = 3;

// A client that sends the start of a join and then nothing: resolves with what the server
// said before it closed the connection.
function stalledClient(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let said = '';
    socket.on('connect', () => socket.write('POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\n'));
    socket.on('data', (d) => { said += d.toString('latin1'); });
    socket.on('error', () => {});
    socket.on('close', () => resolve(said));
  });
}

function assertJoinAnswers(statuses) {
  const other = [...statuses.keys()].filter((s) => s !== 201 && s !== 0 && s !== 503);
  assert.deepEqual(other, [], `joins are answered 201, 503 or not at all: ${JSON.stringify([...statuses])}`);
}

test('with I/O threads, stalled clients, a stalled loop and kill -9 during joins lose nothing acknowledged', { timeout: 90000 }, async () => {
  const config = chaosConfig({ rate: 600, server: { io_threads: ioThreads, header_timeout_ms: 1000 } });
  await withFoyer(config, {}, async (f) => {
    const acked = [];

    // Clients stalled mid-request, on every I/O thread (connections go to the threads in
    // turn): the joins beside them go on, and each stalled one is cut with 408.
    const stalled = Array.from({ length: 4 * ioThreads }, () => stalledClient(f.port));
    let stop = false;
    const beside = new Map();
    const joining = crowd(f, { concurrency: 8, until: () => stop, acked, statuses: beside });
    await sleep(500);
    stop = true;
    await joining;
    assert.deepEqual([...beside.keys()], [201], 'every join beside the stalled clients succeeds');
    for (const said of await Promise.all(stalled)) assert.match(said, /^HTTP\/1\.1 408 /);

    // The process stops for 400 ms at a time, as a throttled container does, while joins
    // keep coming: they queue behind the loop and are answered once it runs again.
    stop = false;
    const queued = new Map();
    const piling = crowd(f, { concurrency: 32, until: () => stop, acked, statuses: queued });
    for (let i = 0; i < 3; i++) {
      await sleep(150);
      f.proc.kill('SIGSTOP');
      await sleep(400);
      f.proc.kill('SIGCONT');
    }
    stop = true;
    await piling;
    assertJoinAnswers(queued);
    assert.ok((queued.get(201) ?? 0) > 0, 'joins went through between the stalls');

    // kill -9 in the middle of joins.
    stop = false;
    const cut = new Map();
    const dying = crowd(f, { concurrency: 16, until: () => stop, acked, statuses: cut });
    await sleep(300);
    await f.kill9();
    stop = true;
    await dying;
    assertJoinAnswers(cut);
    assert.ok((cut.get(0) ?? 0) > 0, 'the kill landed while joins were in flight');

    await f.start();
    assertNoPlaceTwice(acked);
    await assertAckedHold(f, acked);
    assert.ok(acked.length >= 100, `enough joins to mean something (${acked.length})`);
  });
});
