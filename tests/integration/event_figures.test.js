// Every figure an event carries is the room's: each event the webhook gets is held until
// the room has been read, and its figures are checked against that state. An admission
// carries the visitors admitted (never the frontier run ahead of the joined), each lane by
// its id; joins count by lane id; a code batch carries its real time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Foyer, call, until } from '../lib/foyer.js';

const TOKEN = 'event-figures-admin-token-01';
const rooms = [
  { id: 'fast', name: 'Fast', rate_per_minute: 600, target_url: '/go' },
  { id: 'sale', name: 'Sale', rate_per_minute: 600, target_url: '/go', lanes: { members: { share: 0.5 } } },
  { id: 'empty', name: 'Empty', rate_per_minute: 600, target_url: '/go', lanes: { members: { share: 0.5 } } },
];

// A webhook receiver that reads the event's room before it answers: the state the event
// reports on, at that moment.
async function receiver(url) {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', async () => {
      const event = JSON.parse(body);
      const info = await (await fetch(`${url()}/api/v1/rooms/${event.subject}`)).json();
      received.push({ event, room: info, at: Date.now() });
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    received,
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}

test('every event\'s figures match the room read when it arrived', async (t) => {
  let f;
  const hook = await receiver(() => f.url);
  t.after(() => hook.close());
  f = new Foyer({
    server: { admin_token: TOKEN, event_source: '/foyer/figures' }, rooms,
    sinks: [{ type: 'webhook', name: 'hook', url: `http://127.0.0.1:${hook.port}/hook`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }],
  });
  t.after(() => f.cleanup());
  await f.start();

  // A 600/min room, two visitors: 10 a second could be admitted, 2 are there.
  for (let i = 0; i < 2; i++) assert.equal((await f.join('fast')).status, 201);
  // Two lanes: 3 in the general lane, 2 members with codes.
  const batch = await call(`${f.url}/api/v1/admin/rooms/sale/codes`, 'POST',
    { bearer: TOKEN, body: { batch: 'm1', lane: 'members', count: 2 } });
  assert.equal(batch.status, 201, batch.text);
  const made = Date.now();
  assert.ok(Math.abs(batch.json.created_at * 1000 - made) < 60000, `created_at ${batch.json.created_at}`);
  for (let i = 0; i < 3; i++) assert.equal((await f.join('sale')).status, 201);
  for (const code of batch.json.generated) assert.equal((await f.join('sale', { code })).status, 201);

  const admittedIn = (room) => hook.received.filter((r) => r.event.subject === room && r.event.type === 'dev.foyer.room.visitors_admitted');
  const total = (room) => admittedIn(room).reduce((n, r) => n + r.event.data.admitted, 0);
  await until('every visitor admitted, as the events tell', () => total('fast') === 2 && total('sale') === 5, 15000);
  // Quiet seconds: the rooms' steps go on, with nobody to admit, and say nothing.
  await new Promise((resolve) => setTimeout(resolve, 2500));

  for (const id of ['fast', 'sale']) {
    let sum = 0;
    const lanes = {};
    for (const { event, room } of admittedIn(id)) {
      const d = event.data;
      assert.ok(d.admitted > 0, 'an admission admits someone');
      sum += d.admitted;
      assert.equal(d.served, sum, `${id}: served is every visitor admitted so far`);
      assert.ok(d.served <= room.joined, `${id}: served ${d.served}, joined ${room.joined}`);
      assert.ok(d.served <= room.served, `${id}: served ${d.served}, the room's ${room.served}`);
      assert.equal(Object.values(d.lanes).reduce((n, l) => n + l.admitted, 0), d.admitted);
      assert.equal(Object.values(d.lanes).reduce((n, l) => n + l.served, 0), d.served);
      for (const [lane, l] of Object.entries(d.lanes)) {
        lanes[lane] = (lanes[lane] ?? 0) + l.admitted;
        assert.equal(l.served, lanes[lane], `${id}/${lane}: served is the lane's admitted so far`);
        const info = room.lanes?.find((x) => x.id === lane);
        if (info) assert.ok(l.served <= info.served && l.served <= info.joined, `${id}/${lane}: ${JSON.stringify(info)}`);
      }
    }
    const now = (await f.request('GET', `/api/v1/rooms/${id}`)).json;
    assert.equal(sum, now.served, `${id}: the events admitted what the room served`);
  }
  assert.deepEqual(Object.keys(admittedIn('sale').at(-1).event.data.lanes), ['general', 'members']);
  assert.deepEqual(admittedIn('empty'), [], 'an empty room admits nobody, and says nothing');

  // Joins: counted by lane id, summing to the room's joined.
  for (const [id, want] of [['fast', { general: 2 }], ['sale', { general: 3, members: 2 }]]) {
    const joins = hook.received.filter((r) => r.event.subject === id && r.event.type === 'dev.foyer.room.joins');
    const byLane = {};
    let count = 0;
    for (const { event, room } of joins) {
      count += event.data.count;
      assert.ok(count <= room.joined, `${id}: ${count} joins told, ${room.joined} joined`);
      for (const [lane, n] of Object.entries(event.data.lanes)) byLane[lane] = (byLane[lane] ?? 0) + n;
    }
    assert.deepEqual(byLane, want);
  }

  // A state change says the state the room is in.
  const paused = await call(`${f.url}/api/v1/admin/rooms/fast/pause`, 'POST', { bearer: TOKEN });
  assert.equal(paused.status, 200, paused.text);
  await until('the pause', () => hook.received.find((r) => r.event.type === 'dev.foyer.room.state_changed'));
  const changed = hook.received.find((r) => r.event.type === 'dev.foyer.room.state_changed');
  assert.equal(changed.event.data.state, changed.room.state);
  assert.equal(changed.room.state, 'paused');

  // The batch's event and its audit line carry its time.
  const added = hook.received.find((r) => r.event.type === 'dev.foyer.room.codes_added');
  assert.ok(Math.abs(Date.parse(added.event.time) - made) < 60000, added.event.time);
  const audit = await call(`${f.url}/api/v1/admin/rooms/sale/audit`, 'GET', { bearer: TOKEN });
  const lines = audit.text.trim().split('\n').map((l) => JSON.parse(l));
  const line = lines.find((l) => l.type === 'codes_added');
  assert.ok(Math.abs(Date.parse(line.at) - made) < 60000, line.at);
  // Each join names its lane by id.
  assert.deepEqual(lines.filter((l) => l.type === 'visitor_joined').map((l) => l.lane),
    ['general', 'general', 'general', 'members', 'members']);
  await f.stop();
});
