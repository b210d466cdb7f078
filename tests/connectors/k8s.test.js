// connectors/k8s/guard-autoscaling.yaml: each object validated against its schema (the
// Kubernetes and KEDA models from npm, built from the API's OpenAPI and KEDA's CRD), and the
// pieces fit together: the ScaledObject scales the guard Deployment, the Service selects its
// pods, the guard listens on the port the probes and the Service use and reads the JWKS from
// the Foyer Service of packaging/k8s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Service } from 'kubernetes-models/v1';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const text = readFileSync(path.join(repo, 'connectors/k8s/guard-autoscaling.yaml'), 'utf8');
const docs = parseAllDocuments(text).map((d) => d.toJS());
const models = { Deployment, Service, ScaledObject };
const one = (kind) => docs.find((d) => d.kind === kind);

test('every object is valid against its schema', () => {
  assert.deepEqual(docs.map((d) => d.kind), ['Deployment', 'Service', 'ScaledObject']);
  for (const d of docs) new models[d.kind](d).validate();
});

test('the schemas refuse a broken ScaledObject and a broken Deployment', () => {
  const scaled = structuredClone(one('ScaledObject'));
  scaled.spec.triggers[0].metadata.threshold = 2000;  // metadata values are strings
  assert.throws(() => new ScaledObject(scaled).validate());
  const deployment = structuredClone(one('Deployment'));
  deployment.spec.template.spec.containers[0].ports[0].containerPort = '8081';
  assert.throws(() => new Deployment(deployment).validate());
});

test('the ScaledObject scales the guard on the request rate, and the pieces fit', () => {
  const deployment = one('Deployment');
  const service = one('Service');
  const scaled = one('ScaledObject');
  assert.deepEqual(scaled.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
  assert.ok(scaled.spec.minReplicaCount >= 2 && scaled.spec.maxReplicaCount > scaled.spec.minReplicaCount);
  const trigger = scaled.spec.triggers[0];
  assert.equal(trigger.type, 'prometheus');
  assert.match(trigger.metadata.query, /^sum\(rate\(.+\[1m\]\)\)$/);
  const labels = deployment.spec.template.metadata.labels;
  for (const [k, v] of Object.entries(service.spec.selector)) assert.equal(labels[k], v);
  for (const [k, v] of Object.entries(deployment.spec.selector.matchLabels)) assert.equal(labels[k], v);
  const guard = deployment.spec.template.spec.containers[0];
  const arg = (name) => guard.args[guard.args.indexOf(name) + 1];
  assert.equal(guard.args[0], 'guard');
  assert.equal(Number(arg('--listen').split(':')[1]), guard.ports[0].containerPort);
  assert.equal(service.spec.ports[0].targetPort, guard.ports[0].name);
  assert.equal(guard.readinessProbe.httpGet.path, '/healthz');
  // The JWKS from the Foyer Service that packaging/k8s defines.
  const services = parseAllDocuments(readFileSync(path.join(repo, 'packaging/k8s/services.yaml'), 'utf8')).map((d) => d.toJS());
  const foyer = services.find((s) => s.metadata.name === 'foyer');
  assert.equal(arg('--jwks'), `http://foyer:${foyer.spec.ports[0].port}/.well-known/jwks.json`);
});
