// /metrics as Prometheus itself takes it: `promtool check metrics` finds nothing to say,
// and a real Prometheus server on loopback scrapes Foyer every second, after which its
// query API has the series with the expected names, types and labels, and every query
// of the shipped dashboard runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnOwned, withFoyer } from '../lib/foyer.js';
import { concrete, dashboardExprs } from '../lib/dashboard.js';
import { solveSync } from '../../web/js/pow.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Some traffic, so that every family has samples: joins, polls, a refused proof, a 404.
async function traffic(f) {
  const c = await f.request('POST', '/api/v1/rooms/demo/challenge');
  const j = await f.join('demo', solveSync(c.json.challenge));
  assert.equal(j.status, 201);
  assert.equal((await f.status(j.json.ticket)).status, 200);
  assert.equal((await f.request('GET', '/no/such/path')).status, 404);
  assert.equal((await f.join('demo', { challenge: 'x', nonce: '00' })).status, 403);
  assert.equal((await f.join('demo', solveSync(c.json.challenge))).status, 403, 'a replay');
}

const config = { proof_of_work: { base_bits: 1 } };

test('promtool check metrics passes /metrics', async () => {
  await withFoyer(config, async (f) => {
    await traffic(f);
    const text = (await f.request('GET', '/metrics')).text;
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.error, undefined, 'promtool runs (Debian package prometheus)');
    assert.equal(check.status, 0, `promtool: ${check.stdout}${check.stderr}`);
    assert.equal(check.stdout + check.stderr, '', 'and has no remark');
  });
});

test('a real Prometheus scrapes the series with their names, types and labels', { timeout: 90000 }, async () => {
  await withFoyer(config, async (f) => {
    await traffic(f);
    const dir = mkdtempSync(path.join(tmpdir(), 'foyer-prometheus-'));
    const port = await freePort();
    writeFileSync(path.join(dir, 'prometheus.yml'), [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      `  - job_name: foyer`,
      `    static_configs: [{ targets: ['127.0.0.1:${f.port}'] }]`,
      '',
    ].join('\n'));
    const prom = spawnOwned('prometheus', [`--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    prom.stdout.on('data', (c) => { log += c; });
    prom.stderr.on('data', (c) => { log += c; });
    const api = async (query) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/${query}`);
      const body = await res.json();
      assert.equal(body.status, 'success', `${query}: ${JSON.stringify(body)}`);
      return body.data;
    };
    try {
      // Up once Prometheus answers and has scraped the target twice (rates need two samples).
      const deadline = Date.now() + 30000;
      for (;;) {
        assert.ok(Date.now() < deadline, `Prometheus scraped Foyer within 30 s:\n${log}`);
        try {
          // 503 while it starts up: wait on.
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=count_over_time(up%7Bjob%3D%22foyer%22%7D%5B1m%5D)`);
          const up = res.ok ? (await res.json()).data : null;
          if (up?.result.length && Number(up.result[0].value[1]) >= 2) break;
        } catch (e) {
          if (!(e instanceof TypeError)) throw e;  // not listening yet
        }
        await sleep(200);
      }
      assert.equal((await api('query?query=up%7Bjob%3D%22foyer%22%7D')).result[0].value[1], '1', 'the target is up');

      const metadata = await api('metadata');
      const types = Object.fromEntries(Object.entries(metadata).map(([name, [m]]) => [name, m.type]));
      for (const [name, type] of Object.entries({
        foyer_http_requests_total: 'counter',
        foyer_http_request_duration_seconds: 'histogram',
        foyer_storage_commit_duration_seconds: 'histogram',
        foyer_storage_batch_events: 'histogram',
        foyer_loop_lag_seconds: 'gauge',
        foyer_room_joined_total: 'counter',
        foyer_room_served: 'gauge',
        foyer_room_waiting: 'gauge',
        foyer_room_rate_per_minute: 'gauge',
        foyer_proofs_refused_total: 'counter',
        foyer_shed_total: 'counter',
        foyer_overload_level: 'gauge',
      })) {
        assert.equal(types[name], type, `${name} is a ${type}`);
      }

      const series = await api(`series?match[]=${encodeURIComponent('{__name__=~"foyer_.+",job="foyer"}')}`);
      const has = (name, labels) => series.some((s) => s.__name__ === name &&
        Object.entries(labels).every(([k, v]) => s[k] === v));
      assert.ok(has('foyer_http_requests_total', { route: '/api/v1/rooms/{room}/status', code: '200' }));
      assert.ok(has('foyer_http_requests_total', { route: '/api/v1/rooms/{room}/join', code: '201' }));
      assert.ok(has('foyer_http_requests_total', { route: 'unmatched', code: '404' }));
      assert.ok(has('foyer_http_request_duration_seconds_bucket', { route: '/api/v1/rooms/{room}/status', le: '+Inf' }));
      assert.ok(has('foyer_storage_commit_duration_seconds_bucket', { le: '0.0005' }));
      assert.ok(has('foyer_storage_batch_events_count', {}));
      assert.ok(has('foyer_room_joined_total', { room: 'demo' }));
      assert.ok(has('foyer_room_waiting', { room: 'demo' }));
      assert.ok(has('foyer_room_rate_per_minute', { room: 'demo' }));
      const refused = series.filter((s) => s.__name__ === 'foyer_proofs_refused_total').map((s) => s.reason).sort();
      assert.deepEqual(refused, ['malformed', 'replayed']);
      for (const level of ['1', '2', '3']) assert.ok(has('foyer_shed_total', { level }));
      // Raw paths never become labels: only the router's patterns, and no visitor.
      for (const s of series.filter((x) => x.route)) assert.ok(s.route === 'unmatched' || s.route.startsWith('/'), s.route);
      assert.ok(!series.some((s) => s.route === '/no/such/path'));

      for (const expr of dashboardExprs()) {
        if (expr.startsWith('label_values')) continue;  // a Grafana function, not PromQL
        await api(`query?query=${encodeURIComponent(concrete(expr))}`);
      }
    } finally {
      prom.kill('SIGTERM');
      await new Promise((resolve) => (prom.exitCode !== null ? resolve() : prom.on('exit', resolve)));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
