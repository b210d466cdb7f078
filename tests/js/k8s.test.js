// packaging/k8s read as the API server would take it: every manifest parses, and the
// pieces fit together (selectors and labels, probes and ports, the data volume, the
// Secret's keys, the drain, the guard's JWKS from the Foyer Service).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const root = new URL('../../', import.meta.url);
const dir = new URL('packaging/k8s/', root);
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
const docs = files.flatMap((file) => parseAllDocuments(readFileSync(new URL(file, dir), 'utf8')).map((doc) => {
  assert.deepEqual(doc.errors, [], `${file}: ${doc.errors}`);
  return { file, ...doc.toJS() };
}));
const objects = docs.filter((d) => d.kind !== 'Kustomization');
const one = (kind, name) => {
  const found = objects.filter((o) => o.kind === kind && (!name || o.metadata.name === name));
  assert.equal(found.length, 1, `one ${kind} ${name ?? ''}, found ${found.length}`);
  return found[0];
};
const foyer = one('StatefulSet');
const shop = one('Deployment');
const pod = (workload) => workload.spec.template.spec;
const container = (workload, name) => pod(workload).containers.find((c) => c.name === name);
const optionValue = (list, name) => list[list.indexOf(name) + 1];
const selects = (selector, labels) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);
const foyerToml = one('ConfigMap', 'foyer-config').data['foyer.toml'];
const tomlValue = (key) => new RegExp(`^${key} = "?([^"\\n]*)"?$`, 'm').exec(foyerToml)?.[1];

// A container port by name or number.
function containerPort(c, port) {
  const found = c.ports?.find((p) => p.name === port || p.containerPort === port);
  assert.ok(found, `${c.name} has no port ${port}`);
  return found.containerPort;
}

test('every manifest parses into API objects, and the kustomization lists the instance', () => {
  for (const o of objects) {
    assert.ok(o.apiVersion && o.kind && o.metadata?.name, `${o.file}: apiVersion, kind and metadata.name`);
  }
  assert.deepEqual([...new Set(objects.map((o) => o.kind))].sort(),
    ['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Secret', 'Service', 'StatefulSet']);
  const kustomization = docs.find((d) => d.kind === 'Kustomization');
  for (const file of kustomization.resources) assert.ok(files.includes(file), `kustomization names ${file}`);
  assert.deepEqual(new Set(objects.filter((o) => kustomization.resources.includes(o.file)).map((o) => o.kind)),
    new Set(['ConfigMap', 'PodDisruptionBudget', 'Secret', 'Service', 'StatefulSet']));
});

test('one Foyer instance: a StatefulSet of one whose selector matches its pods', () => {
  assert.equal(foyer.spec.replicas, 1, 'a single writer');
  for (const w of [foyer, shop]) {
    assert.ok(selects(w.spec.selector.matchLabels, w.spec.template.metadata.labels), `${w.metadata.name}'s selector`);
  }
});

test('a headless Service governs the StatefulSet and a Service serves it, both selecting its pods', () => {
  const services = objects.filter((o) => o.kind === 'Service');
  const headless = services.find((s) => s.metadata.name === foyer.spec.serviceName);
  assert.ok(headless, `the Service ${foyer.spec.serviceName}`);
  assert.equal(headless.spec.clusterIP, 'None');
  const labels = foyer.spec.template.metadata.labels;
  const foyerServices = services.filter((s) => selects(s.spec.selector, labels));
  assert.equal(foyerServices.length, 2);
  for (const s of foyerServices) {
    for (const p of s.spec.ports) assert.equal(containerPort(container(foyer, 'foyer'), p.targetPort), 8080);
  }
  const shopService = services.find((s) => selects(s.spec.selector, shop.spec.template.metadata.labels));
  for (const p of shopService.spec.ports) containerPort(container(shop, 'nginx'), p.targetPort);
});

test('readiness on /readyz and liveness on /healthz, on the port the server listens on', () => {
  const c = container(foyer, 'foyer');
  const listen = optionValue(c.args, '--listen');
  assert.equal(listen, tomlValue('listen'), 'the flag and the file agree');
  const port = Number(listen.split(':')[1]);
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  assert.equal(containerPort(c, c.readinessProbe.httpGet.port), port);
  assert.equal(containerPort(c, c.livenessProbe.httpGet.port), port);
});

test('the data dir is the claim of the volume template, and the image user owns it', () => {
  const c = container(foyer, 'foyer');
  const dataDir = optionValue(c.args, '--data-dir');
  assert.equal(dataDir, tomlValue('data_dir'));
  const claims = foyer.spec.volumeClaimTemplates.map((t) => t.metadata.name);
  const mount = c.volumeMounts.find((m) => m.mountPath === dataDir);
  assert.ok(mount && claims.includes(mount.name), `${dataDir} is mounted from a claim of ${claims}`);
  assert.ok(!pod(foyer).volumes.some((v) => v.name === mount.name), 'not shadowed by a pod volume');
  const user = /^USER (\d+):(\d+)$/m.exec(readFileSync(new URL('packaging/docker/Dockerfile', root), 'utf8'));
  assert.equal(pod(foyer).securityContext.runAsUser, Number(user[1]));
  assert.equal(pod(foyer).securityContext.fsGroup, Number(user[2]));
  assert.equal(pod(foyer).securityContext.runAsNonRoot, true);
});

test('every Secret key and ConfigMap the pods refer to exists', () => {
  for (const w of [foyer, shop]) {
    for (const c of [...(pod(w).initContainers ?? []), ...pod(w).containers]) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (!ref) continue;
        const secret = one('Secret', ref.name);
        assert.ok(ref.key in { ...secret.stringData, ...secret.data }, `${c.name}: ${ref.name}.${ref.key}`);
      }
      for (const m of c.volumeMounts ?? []) {
        const volume = pod(w).volumes?.find((v) => v.name === m.name);
        if (!volume?.configMap) continue;
        const map = one('ConfigMap', volume.configMap.name);
        if (m.subPath) assert.ok(m.subPath in map.data, `${c.name}: ${volume.configMap.name}/${m.subPath}`);
      }
    }
  }
});

test("the init container's script fills every placeholder of foyer.toml from the Secret", () => {
  const init = pod(foyer).initContainers.find((c) => c.name === 'config');
  const env = Object.fromEntries(init.env.map((e) => [e.name, `value-of-${e.valueFrom.secretKeyRef.key}`]));
  const tmp = mkdtempSync(join(tmpdir(), 'foyer-k8s-'));
  writeFileSync(join(tmp, 'template.toml'), foyerToml);
  const script = init.command.at(-1).replaceAll('/etc/foyer-template/foyer.toml', join(tmp, 'template.toml'))
    .replaceAll('/etc/foyer/foyer.toml', join(tmp, 'foyer.toml'));
  execFileSync(init.command[0], [init.command[1], script], { env: { PATH: process.env.PATH, ...env } });
  const rendered = readFileSync(join(tmp, 'foyer.toml'), 'utf8');
  rmSync(tmp, { recursive: true });
  assert.doesNotMatch(rendered, /@[A-Z_]+@/);
  for (const key of ['admin_token', 'site_token']) assert.match(rendered, new RegExp(`^${key} = "value-of-${key}"$`, 'm'));
  assert.match(rendered, /^secret = "value-of-webhook_secret"$/m);
  // It writes where the server reads its config.
  const c = container(foyer, 'foyer');
  const configDir = optionValue(c.args, '--config').replace(/\/[^/]+$/, '');
  const written = init.volumeMounts.find((m) => m.mountPath === configDir);
  assert.ok(written && c.volumeMounts.some((m) => m.name === written.name && m.mountPath === configDir));
});

test('preStop pauses, SIGTERM drains, and the grace period outlasts both', () => {
  const c = container(foyer, 'foyer');
  const [sleep, seconds] = c.lifecycle.preStop.exec.command;
  assert.equal(sleep, 'sleep');
  const drain = Number(tomlValue('header_timeout_ms') ?? 10000) / 1000;
  assert.ok(pod(foyer).terminationGracePeriodSeconds > Number(seconds) + drain,
    `terminationGracePeriodSeconds ${pod(foyer).terminationGracePeriodSeconds} <= ${seconds} + ${drain}`);
});

test('the PodDisruptionBudget selects the Foyer pod', () => {
  const pdb = one('PodDisruptionBudget');
  assert.ok(selects(pdb.spec.selector.matchLabels, foyer.spec.template.metadata.labels));
  assert.ok(!selects(pdb.spec.selector.matchLabels, shop.spec.template.metadata.labels));
});

test('the guard reads the JWKS from the Foyer Service, for a room and issuer Foyer has', () => {
  const guard = container(shop, 'guard');
  assert.equal(guard.args[0], 'guard');
  const jwks = new URL(optionValue(guard.args, '--jwks'));
  const service = one('Service', jwks.hostname);
  assert.ok(selects(service.spec.selector, foyer.spec.template.metadata.labels));
  assert.ok(service.spec.ports.some((p) => p.port === Number(jwks.port)), `port ${jwks.port}`);
  assert.equal(jwks.pathname, '/.well-known/jwks.json');
  assert.equal(optionValue(guard.args, '--issuer'), tomlValue('issuer'));
  assert.match(foyerToml, new RegExp(`^id = "${optionValue(guard.args, '--room')}"$`, 'm'));
  // nginx's upstream is the guard's listen address, and the snippets are packaging/nginx's.
  const nginx = one('ConfigMap', 'shop-nginx').data;
  assert.match(nginx['default.conf'], new RegExp(`server ${optionValue(guard.args, '--listen')};`));
  for (const snippet of ['foyer-guard.conf', 'foyer-protect.conf']) {
    assert.equal(nginx[snippet], readFileSync(new URL(`packaging/nginx/${snippet}`, root), 'utf8'), snippet);
  }
});
