// The shipped Grafana dashboard reads only metrics that a real /metrics has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFoyer } from '../lib/foyer.js';
import { dashboard, dashboardMetrics, expectedLater, familiesOf } from '../lib/dashboard.js';

test('every metric the dashboard queries is in a real scrape (but those other parts bring)', async () => {
  await withFoyer({}, async (f) => {
    const families = familiesOf((await f.request('GET', '/metrics')).text);
    const queried = dashboardMetrics();
    for (const name of queried) {
      if (expectedLater.has(name) && !families.has(name)) continue;
      assert.ok(families.has(name), `the dashboard queries ${name}, which /metrics lacks`);
    }
    for (const name of expectedLater) assert.ok(queried.has(name), `${name} is expected later, so the dashboard shows it`);
    // The funnel, rates, latency, storage, loop, shedding and sinks all have panels.
    const titles = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    assert.deepEqual(titles, ['Funnel', 'HTTP', 'Storage and event loop', 'Shedding', 'Sinks']);
  });
});
