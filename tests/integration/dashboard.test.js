// The shipped Grafana dashboard reads only metrics that a real /metrics has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withFoyer } from '../lib/foyer.js';
import { dashboard, dashboardMetrics, familiesOf } from '../lib/dashboard.js';

test('every metric the dashboard queries is in a real scrape', async () => {
  // The sinks' metrics exist while a sink is configured.
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-dashboard-'));
  try {
    await withFoyer({ sinks: [{ type: 'file', path: path.join(dir, 'events.ndjson') }] }, async (f) => {
      const families = familiesOf((await f.request('GET', '/metrics')).text);
      for (const name of dashboardMetrics()) assert.ok(families.has(name), `the dashboard queries ${name}, which /metrics lacks`);
      // The funnel, rates, latency, storage, loop, shedding and sinks all have panels.
      const titles = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
      assert.deepEqual(titles, ['Funnel', 'HTTP', 'Storage and event loop', 'Shedding', 'Sinks']);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
