// The Grafana dashboard's queries (packaging/grafana/foyer.json), and the metric names
// they use, for the tests that check them against a real scrape and a real Prometheus.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repo } from './foyer.js';

export const dashboard = JSON.parse(readFileSync(path.join(repo, 'packaging/grafana/foyer.json'), 'utf8'));

/** Every PromQL expression of the dashboard: its panels' targets and its variables. */
export function dashboardExprs() {
  const exprs = [];
  const walk = (panels) => {
    for (const p of panels) {
      for (const t of p.targets ?? []) exprs.push(t.expr);
      walk(p.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const v of dashboard.templating.list) if (v.definition) exprs.push(v.definition);
  return exprs;
}

/** The expression as Prometheus takes it, with Grafana's variables filled in. */
export function concrete(expr) {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$room', '.*');
}

/** The metric names the expressions read (histogram series named by their family). */
export function dashboardMetrics() {
  const names = new Set();
  for (const e of dashboardExprs()) {
    for (const [name] of e.matchAll(/\bfoyer_[a-z_]+/g)) names.add(name.replace(/_(bucket|sum|count)$/, ''));
  }
  return names;
}

/** Family name -> type, from the # TYPE lines of a scrape. */
export function familiesOf(scrape) {
  return new Map([...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}
