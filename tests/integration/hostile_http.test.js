// Requests shaped against the server's memory and framing, on the real binary: an endless
// trailer or chunk extension is refused at its limit with the process's memory unmoved; a
// coding other than a sole chunked, a missing Host, a credential in a trailer, invalid UTF-8
// in a path, gzip;q=0 and an out-of-range number each get the strict answer; and running
// out of descriptors pauses the accept loop instead of spinning it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { withFoyer } from '../lib/foyer.js';

const admin_token = 'test-admin-token-0123456789';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

// The user and system time a process has used, in clock ticks (proc(5), stat: utime, stime).
function cpuTicksOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

// Sends `head`, then `filler` over and over (up to `total` bytes) until the server closes.
// Resolves to the bytes the server answered.
function endless(port, head, filler, total) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const got = [];
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(Buffer.concat(got).toString('latin1'));
    };
    socket.on('data', (d) => got.push(d));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.setTimeout(15000, finish);
    const pump = () => {
      while (!done && sent < total) {
        sent += filler.length;
        if (!socket.write(filler)) return socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

// Writes raw bytes on one connection; resolves to all that came back until it closed.
function exchange(port, bytes) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const got = [];
    socket.on('data', (d) => got.push(d));
    socket.on('end', () => resolve(Buffer.concat(got)));
    socket.on('error', reject);
    socket.setTimeout(5000, () => { socket.destroy(); resolve(Buffer.concat(got)); });
  });
}

const chunkedHead = 'POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n';

test('an endless trailer or chunk extension is refused at its limit, and memory stays where it was', async () => {
  await withFoyer({}, async (f) => {
    const before = rssKiB(f.proc.pid);
    const filler = Buffer.alloc(64 * 1024, 'a');
    const trailer = await endless(f.port, `${chunkedHead}0\r\nX-Endless: `, filler, 64 << 20);
    assert.match(trailer, /^HTTP\/1\.1 431 /);
    assert.match(trailer, /"error":"headers_too_large"/);
    const extension = await endless(f.port, `${chunkedHead}5;ext=`, filler, 64 << 20);
    assert.match(extension, /^HTTP\/1\.1 400 /);
    // 128 MiB were on offer; a few KiB were read.
    const grew = rssKiB(f.proc.pid) - before;
    assert.ok(grew < 16 * 1024, `RSS grew by ${grew} KiB`);
    assert.equal((await f.request('GET', '/healthz')).status, 200);
  });
});

test('a transfer coding other than a sole chunked is 400 and the bytes after it are not run as a request', async () => {
  await withFoyer({}, async (f) => {
    for (const coding of ['xchunked', 'chunked, gzip', 'gzip, chunked']) {
      const got = (await exchange(f.port, `POST /api/v1/rooms/demo/join HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${coding}\r\n\r\n` +
        'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')).toString('latin1');
      assert.match(got, /^HTTP\/1\.1 400 /, coding);
      assert.equal(got.match(/HTTP\/1\.1 /g).length, 1, `one answer only: ${got}`);
      assert.match(got, /Connection: close/);
    }
  });
});

test('an HTTP/1.1 request without Host is 400', async () => {
  await withFoyer({}, async (f) => {
    const got = (await exchange(f.port, 'GET /healthz HTTP/1.1\r\n\r\n')).toString('latin1');
    assert.match(got, /^HTTP\/1\.1 400 /);
    assert.match(got, /HTTP\/1\.1 must name it/);
  });
});

test('an Authorization field sent only in a trailer authorizes nothing', async () => {
  await withFoyer({ server: { admin_token } }, async (f) => {
    const got = (await exchange(f.port, 'POST /api/v1/admin/rooms/demo/pause HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n' +
      `Connection: close\r\n\r\n0\r\nAuthorization: Bearer ${admin_token}\r\n\r\n`)).toString('latin1');
    assert.match(got, /^HTTP\/1\.1 401 /);
    const room = await f.request('GET', '/api/v1/admin/rooms/demo', { headers: { authorization: `Bearer ${admin_token}` } });
    assert.notEqual(room.json.state, 'paused');
  });
});

test('a problem body is valid JSON whatever bytes the path held', async () => {
  await withFoyer({}, async (f) => {
    const got = await exchange(f.port, Buffer.concat([Buffer.from('GET /api/v1/rooms/a'), Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]));
    const text = got.toString('latin1');
    assert.match(text, /^HTTP\/1\.1 404 /);
    const body = got.subarray(got.indexOf('\r\n\r\n') + 4);
    const json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    assert.equal(json.error, 'unknown_room');
  });
});

test('Accept-Encoding with gzip;q=0 or *;q=0 gets no gzip', async () => {
  await withFoyer({}, async (f) => {
    for (const [accept, zipped] of [['gzip', true], ['gzip;q=0', false], ['*;q=0', false], ['identity', false], ['*', true]]) {
      const got = (await exchange(f.port, `GET /r/demo HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ${accept}\r\nConnection: close\r\n\r\n`))
        .toString('latin1');
      assert.match(got, /^HTTP\/1\.1 200 /);
      assert.equal(/Content-Encoding: gzip/i.test(got), zipped, accept);
    }
  });
});

test('an audit after_seq past the range is 400 naming the parameter', async () => {
  await withFoyer({ server: { admin_token } }, async (f) => {
    const headers = { authorization: `Bearer ${admin_token}` };
    for (const [query, parameter] of [['after_seq=18446744073709551615', 'after_seq'], ['after_seq=99999999999999999999', 'after_seq'],
      ['limit=18446744073709551615', 'limit']]) {
      const r = await f.request('GET', `/api/v1/admin/rooms/demo/audit?${query}`, { headers });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.parameter, parameter);
    }
    assert.equal((await f.request('GET', '/api/v1/admin/rooms/demo/audit?after_seq=9223372036854775807', { headers })).status, 200);
  });
});

test('out of descriptors, the accept loop pauses and logs rarely, and serves again once the crowd leaves', async () => {
  await withFoyer({}, async (f) => {
    execFileSync('prlimit', ['--pid', String(f.proc.pid), '--nofile=200:200']);
    const mark = f.output.length;
    const crowd = [];
    for (let i = 0; i < 260; i++) {
      const s = net.connect(f.port, '127.0.0.1');
      s.on('error', () => {});
      crowd.push(s);
    }
    const cpuBefore = cpuTicksOf(f.proc.pid);
    await sleep(2000);
    const cpuTicks = cpuTicksOf(f.proc.pid) - cpuBefore;
    const lines = f.output.slice(mark).split('\n').filter((l) => l.includes('accept failed'));
    assert.ok(lines.length >= 1 && lines.length <= 2, `accept failures logged ${lines.length} times:\n${lines.slice(0, 3).join('\n')}`);
    // Spinning would take the whole 2 s (200 ticks); pausing takes next to nothing.
    assert.ok(cpuTicks < 50, `${cpuTicks} ticks of CPU in 2 s`);
    for (const s of crowd) s.destroy();
    await sleep(500);
    assert.equal((await f.request('GET', '/healthz')).status, 200);
  });
});
