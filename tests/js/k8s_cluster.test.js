// packaging/k8s/cluster, cluster mode on Kubernetes, read as the API server would take it
// (YAML 1.1, each object against its schema) and checked for fit: three etcd members that
// name each other through their headless Service, three Foyer nodes whose foyer.toml names
// those members and whose own names come from the pod's, readiness on /readyz that only the
// leader passes, no probe that would kill a standby, and the shared secrets copied from the
// Secret foyer-shared into secrets_dir as Foyer wants them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';

const root = new URL('../../', import.meta.url);
const dir = new URL('packaging/k8s/cluster/', root);
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
const text = (file) => readFileSync(new URL(file, dir), 'utf8');
const docs = files.flatMap((file) => parseAllDocuments(text(file), { version: '1.1' }).map((doc) => {
  assert.deepEqual(doc.errors, [], `${file}: ${doc.errors}`);
  return { file, ...doc.toJS() };
}));
const kustomization = docs.find((d) => d.kind === 'Kustomization');
const objects = docs.filter((d) => d !== kustomization);
const find = (kind, name) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  assert.equal(found.length, 1, `one ${kind} ${name}, found ${found.length}`);
  return found[0];
};
const etcd = find('StatefulSet', 'etcd');
const foyer = find('StatefulSet', 'foyer');
const spec = (set) => set.spec.template.spec;
const labels = (set) => set.spec.template.metadata.labels;
const matches = (selector, podLabels) => Object.entries(selector).every(([k, v]) => podLabels?.[k] === v);
const node = spec(foyer).containers.find((c) => c.name === 'foyer');
const member = spec(etcd).containers.find((c) => c.name === 'etcd');
const initContainer = (name) => spec(foyer).initContainers.find((c) => c.name === name);
const arg = (name) => node.args[node.args.indexOf(name) + 1];
const template = find('ConfigMap', 'foyer-config').data['foyer.toml'];
const [beforeCluster, clusterTable] = template.split(/^\[cluster\]$/m);
const setting = (table, key) => new RegExp(`^${key} = "?([^"\\n]*)"?$`, 'm').exec(table)?.[1];

// The number of a container's port, named or numbered.
function portOf(container, port) {
  const found = container.ports.find((p) => p.name === port || p.containerPort === port);
  assert.ok(found, `${container.name} has a port ${port}`);
  return found.containerPort;
}

// An etcd member's variables as Kubernetes expands them for pod `pod`: $(POD_NAME) is its name.
function memberEnv(pod) {
  const env = {};
  for (const e of member.env) {
    if (e.valueFrom) {
      assert.equal(e.valueFrom.fieldRef.fieldPath, 'metadata.name', e.name);
      env[e.name] = pod;
    } else {
      env[e.name] = e.value.replace(/\$\((\w+)\)/g, (_, name) => env[name]);
    }
  }
  return env;
}

test('every manifest parses, each object is valid against its schema, and the kustomization lists them', () => {
  const models = { ConfigMap, Secret, Service, StatefulSet, PodDisruptionBudget, NetworkPolicy };
  for (const o of objects) {
    assert.ok(models[o.kind], `${o.file}: ${o.kind}`);
    const { file, ...object } = o;
    new models[o.kind](object).validate();
  }
  assert.deepEqual([...kustomization.resources].sort(), files.filter((f) => f !== 'kustomization.yaml'));
  // The tokens Secret is the single instance's, word for word.
  assert.equal(text('secret.yaml'), readFileSync(new URL('packaging/k8s/secret.yaml', root), 'utf8'));
});

const kubectl = spawnSync('kubectl', ['version', '--client']).status === 0;
test('kustomize builds the same objects', { skip: !kubectl && 'no kubectl' }, () => {
  const built = parseAllDocuments(execFileSync('kubectl', ['kustomize', new URL(dir).pathname], { encoding: 'utf8' }),
    { version: '1.1' }).map((d) => `${d.get('kind')}/${d.getIn(['metadata', 'name'])}`);
  assert.deepEqual(built.sort(), objects.map((o) => `${o.kind}/${o.metadata.name}`).sort());
});

test('three etcd members and three Foyer nodes, started together, each StatefulSet selecting its pods', () => {
  for (const set of [etcd, foyer]) {
    assert.equal(set.spec.replicas, 3, set.metadata.name);
    // etcd's members are ready only as a quorum, Foyer's standbys never: one at a time
    // would wait for ever.
    assert.equal(set.spec.podManagementPolicy, 'Parallel', set.metadata.name);
    assert.ok(matches(set.spec.selector.matchLabels, labels(set)), `${set.metadata.name}'s selector`);
    assert.ok(!matches(set.spec.selector.matchLabels, labels(set === etcd ? foyer : etcd)), 'and not the other\'s pods');
    for (const c of spec(set).topologySpreadConstraints) assert.ok(matches(c.labelSelector.matchLabels, labels(set)));
    // The governing Service is headless and selects the same pods.
    const headless = find('Service', set.spec.serviceName);
    assert.equal(headless.spec.clusterIP, 'None');
    assert.ok(matches(headless.spec.selector, labels(set)));
  }
  // Each Service selects the pods of exactly one StatefulSet, on ports its containers have.
  for (const s of objects.filter((o) => o.kind === 'Service')) {
    const [set, ...more] = [etcd, foyer].filter((w) => matches(s.spec.selector, labels(w)));
    assert.ok(set && more.length === 0, s.metadata.name);
    for (const p of s.spec.ports) portOf(spec(set).containers[0], p.targetPort);
  }
  // etcd's members find each other by name before any is ready.
  assert.equal(find('Service', etcd.spec.serviceName).spec.publishNotReadyAddresses, true);
});

test('etcd: each member named after its pod, the initial cluster all three through the headless Service', () => {
  const pods = [0, 1, 2].map((i) => `${etcd.metadata.name}-${i}`);
  const at = (pod, port) => `http://${pod}.${etcd.spec.serviceName}:${portOf(member, port)}`;
  const initial = pods.map((pod) => `${pod}=${at(pod, 'peer')}`).join(',');
  for (const pod of pods) {
    const env = memberEnv(pod);
    assert.equal(env.ETCD_NAME, pod);
    assert.equal(env.ETCD_INITIAL_ADVERTISE_PEER_URLS, at(pod, 'peer'));
    assert.equal(env.ETCD_ADVERTISE_CLIENT_URLS, at(pod, 'client'));
    assert.equal(env.ETCD_LISTEN_PEER_URLS, `http://0.0.0.0:${portOf(member, 'peer')}`);
    assert.equal(env.ETCD_LISTEN_CLIENT_URLS, `http://0.0.0.0:${portOf(member, 'client')}`);
    assert.equal(env.ETCD_INITIAL_CLUSTER, initial);
    assert.equal(env.ETCD_INITIAL_CLUSTER_STATE, 'new');
    assert.deepEqual([env.ETCD_AUTO_COMPACTION_MODE, env.ETCD_AUTO_COMPACTION_RETENTION], ['periodic', '10m']);
    // Its data on its own claim.
    const mount = member.volumeMounts.find((m) => env.ETCD_DATA_DIR.startsWith(`${m.mountPath}/`));
    assert.ok(mount && etcd.spec.volumeClaimTemplates.some((t) => t.metadata.name === mount.name), env.ETCD_DATA_DIR);
  }
  // The Foyer nodes' [cluster] names every member's client URL.
  assert.match(clusterTable, new RegExp(`^etcd = \\[${pods.map((p) => `"${at(p, 'client')}"`).join(', ')}\\]$`, 'm'));
});

test('readiness on /readyz on the port the node listens on, and no probe that restarts a standby', () => {
  assert.equal(arg('--listen'), setting(beforeCluster, 'listen'), 'the flag and the file agree');
  const port = Number(arg('--listen').split(':')[1]);
  assert.equal(node.readinessProbe.httpGet.path, '/readyz');
  assert.equal(portOf(node, node.readinessProbe.httpGet.port), port);
  // A standby listens on no port: any liveness or startup probe would fail it for ever.
  assert.equal(node.livenessProbe, undefined);
  assert.equal(node.startupProbe, undefined);
  // A node that steps down exits and is restarted, as a standby.
  assert.ok([undefined, 'Always'].includes(spec(foyer).restartPolicy));
  // SIGTERM hands over at once, and the drain ends within the grace period.
  assert.equal(node.lifecycle?.preStop, undefined);
  assert.ok(spec(foyer).terminationGracePeriodSeconds > Number(setting(beforeCluster, 'header_timeout_ms')) / 1000);
  // The visitors' Service has the ready pods only: the leader.
  const visitors = find('Service', 'foyer');
  assert.notEqual(visitors.spec.clusterIP, 'None');
  assert.ok(!visitors.spec.publishNotReadyAddresses);
  assert.ok(matches(visitors.spec.selector, labels(foyer)));
});

// Runs an init container's shell script with its paths moved under `tmp`.
function runInit(c, tmp, env = {}) {
  let script = c.command.at(-1);
  for (const m of c.volumeMounts) script = script.replaceAll(`${m.mountPath}/`, `${join(tmp, m.mountPath)}/`);
  execFileSync(c.command[0], [c.command[1], script], { env: { PATH: process.env.PATH, ...env } });
}

test('the config init container makes foyer.toml with [cluster] for this pod, where the node reads it', () => {
  const init = initContainer('config');
  const pod = `${foyer.metadata.name}-1`;
  const env = Object.fromEntries(init.env.map((e) => {
    if (e.valueFrom.fieldRef) return [e.name, e.valueFrom.fieldRef.fieldPath === 'metadata.name' ? pod : null];
    const secret = find('Secret', e.valueFrom.secretKeyRef.name);
    assert.ok(e.valueFrom.secretKeyRef.key in secret.stringData, e.name);
    return [e.name, `value-of-${e.valueFrom.secretKeyRef.key}`];
  }));
  const tmp = mkdtempSync(join(tmpdir(), 'foyer-k8s-cluster-'));
  try {
    const source = init.volumeMounts.find((m) => m.readOnly);
    const volume = spec(foyer).volumes.find((v) => v.name === source.name);
    assert.equal(volume.configMap.name, 'foyer-config');
    mkdirSync(join(tmp, source.mountPath), { recursive: true });
    writeFileSync(join(tmp, source.mountPath, 'foyer.toml'), template);
    const config = arg('--config');
    mkdirSync(join(tmp, config, '..'), { recursive: true });
    runInit(init, tmp, env);
    const rendered = readFileSync(join(tmp, config), 'utf8');
    assert.doesNotMatch(rendered, /@[A-Z_]+@/);
    const cluster = rendered.split(/^\[cluster\]$/m)[1];
    assert.equal(setting(cluster, 'node_id'), pod);
    assert.equal(setting(cluster, 'advertise'), `http://${pod}.${foyer.spec.serviceName}:${portOf(node, 'http')}`);
    // Written to a volume the node mounts at the same place.
    const written = init.volumeMounts.find((m) => config.startsWith(`${m.mountPath}/`));
    assert.ok(node.volumeMounts.some((m) => m.name === written.name && m.mountPath === written.mountPath));
  } finally {
    rmSync(tmp, { recursive: true });
  }
});

test("secrets_dir is in an emptyDir the shared init container fills from the Secret's files, as Foyer wants them", () => {
  const secretsDir = setting(clusterTable, 'secrets_dir');
  const inNode = node.volumeMounts.find((m) => secretsDir.startsWith(`${m.mountPath}/`));
  assert.ok(inNode, `${secretsDir} is on a volume of the node`);
  assert.ok(spec(foyer).volumes.find((v) => v.name === inNode.name).emptyDir, 'an emptyDir');
  const init = initContainer('shared');
  assert.ok(init.volumeMounts.some((m) => m.name === inNode.name && m.mountPath === inNode.mountPath));
  const fromSecret = init.volumeMounts.find((m) => spec(foyer).volumes.find((v) => v.name === m.name).secret);
  const secretVolume = spec(foyer).volumes.find((v) => v.name === fromSecret.name).secret;
  assert.equal(secretVolume.secretName, 'foyer-shared');
  assert.equal(secretVolume.defaultMode, 0o440);
  // Made by hand, never by this kustomization (applying it again would replace the keys),
  // with the files Foyer reads from secrets_dir.
  assert.ok(!objects.some((o) => o.kind === 'Secret' && o.metadata.name === 'foyer-shared'));
  const create = /kubectl create secret generic foyer-shared (.*)$/m.exec(text('statefulset.yaml'));
  const keys = [...create[1].matchAll(/--from-file=(\S+)/g)].map((m) => m[1]);
  assert.deepEqual(keys, ['secret', 'pass-keys.json', 'incarnation.json']);

  // The Secret's volume as the kubelet lays it out: links through ..data, root's, 0440.
  const tmp = mkdtempSync(join(tmpdir(), 'foyer-k8s-cluster-'));
  try {
    const volume = join(tmp, fromSecret.mountPath);
    mkdirSync(join(volume, '..2026_01_01'), { recursive: true });
    symlinkSync('..2026_01_01', join(volume, '..data'));
    for (const key of keys) {
      writeFileSync(join(volume, '..2026_01_01', key), `${key} content\n`, { mode: 0o440 });
      symlinkSync(join('..data', key), join(volume, key));
    }
    mkdirSync(join(tmp, inNode.mountPath), { recursive: true });
    runInit(init, tmp);
    const copied = join(tmp, secretsDir);
    assert.equal(statSync(copied).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(copied).sort(), [...keys].sort());
    for (const key of keys) {
      assert.equal(statSync(join(copied, key)).mode & 0o777, 0o600, key);
      assert.equal(readFileSync(join(copied, key), 'utf8'), `${key} content\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true });
  }
});

test('the disruption budgets: etcd keeps its quorum, Foyer its leader', () => {
  const budget = (set) => {
    const found = objects.filter((o) => o.kind === 'PodDisruptionBudget' && matches(o.spec.selector.matchLabels, labels(set)));
    assert.equal(found.length, 1, set.metadata.name);
    return found[0].spec;
  };
  assert.equal(budget(etcd).minAvailable, Math.floor(etcd.spec.replicas / 2) + 1);
  // Only the leader is ever ready: a budget of more would refuse every eviction.
  assert.equal(budget(foyer).minAvailable, 1);
});

test("only the Foyer nodes reach etcd's client port, and only the members its peer port", () => {
  const policy = find('NetworkPolicy', 'etcd');
  assert.ok(matches(policy.spec.podSelector.matchLabels, labels(etcd)));
  const allowed = (podLabels, port) => policy.spec.ingress.some((rule) => rule.ports.some((p) => p.port === port)
    && rule.from.some((f) => matches(f.podSelector.matchLabels, podLabels)));
  assert.ok(allowed(labels(foyer), 'client'));
  assert.ok(allowed(labels(etcd), 'client'));
  assert.ok(allowed(labels(etcd), 'peer'));
  assert.ok(!allowed(labels(foyer), 'peer'));
  for (const port of ['client', 'peer']) portOf(member, port);
});
