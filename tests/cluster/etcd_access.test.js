// Cluster mode reaching etcd as a locked-down etcd is run: over TLS, with a client
// certificate, as an etcd user allowed only under Foyer's prefix. Two nodes lead in turn
// through it with every join kept; a node that gives the wrong password, or cannot verify
// etcd's certificate, never leads and says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ClusterNode, EtcdCluster, clusterDir } from '../lib/cluster.js';
import { until } from '../lib/foyer.js';
import { freePort } from '../nginx/harness.js';

const b64 = (text) => Buffer.from(text).toString('base64');

function openssl(dir, ...args) {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

// A CA, etcd's certificate for 127.0.0.1 (etcd's own gateway presents it as a client too),
// the nodes' client certificate, and the key etcd signs its auth tokens with.
function makeCertificates(dir) {
  mkdirSync(dir);
  openssl(dir, 'genrsa', '-out', 'token.key', '2048');
  openssl(dir, 'rsa', '-in', 'token.key', '-pubout', '-out', 'token.pub');
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(dir, 'req', '-x509', ...key, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=foyer-test-ca');
  const uses = {
    etcd: 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n',
    node: 'extendedKeyUsage=clientAuth\n',
  };
  for (const [name, ext] of Object.entries(uses)) {
    // No CommonName: etcd 3.4's JSON gateway refuses a client certificate that has one.
    openssl(dir, 'req', ...key, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/O=foyer-test-${name}`);
    writeFileSync(path.join(dir, `${name}.ext`), ext);
    openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
  }
  return (file) => path.join(dir, file);
}

// etcd's users: root, and `foyer`, which may read and write only under /foyer-test.
async function lockDown(etcd) {
  const call = async (what, body) => {
    const res = await fetch(`${etcd.endpoints[0]}/v3/auth/${what}`, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(res.status, 200, `${what}: ${await res.text()}`);
  };
  await call('user/add', { name: 'root', password: 'root-password' });
  await call('role/add', { name: 'root' });
  await call('user/grant', { user: 'root', role: 'root' });
  await call('role/add', { name: 'foyer' });
  await call('role/grant', {
    name: 'foyer', perm: { permType: 'READWRITE', key: b64('/foyer-test'), range_end: b64('/foyer-tesu') },
  });
  await call('user/add', { name: 'foyer', password: 'foyer-password' });
  await call('user/grant', { user: 'foyer', role: 'foyer' });
  await call('enable', {});
}

// A change to etcd's auth, made as root once auth is on.
async function asRoot(etcd, what, body) {
  const signIn = await fetch(`${etcd.endpoints[0]}/v3/auth/authenticate`, {
    method: 'POST', body: JSON.stringify({ name: 'root', password: 'root-password' }),
  });
  const { token } = await signIn.json();
  const res = await fetch(`${etcd.endpoints[0]}/v3/auth/${what}`, {
    method: 'POST', headers: { authorization: token }, body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `${what}: ${await res.text()}`);
}

// etcd's tokens here are JWTs that lapse 2 s after sign-in however often they are used, so
// every call path of every node meets "invalid auth token" within the test, and must sign
// in again and go on (etcd's default tokens lapse only after 5 idle minutes).
const tokenLifetime = 2000;

test('nodes reach etcd over TLS with a client certificate as a least-privileged etcd user; wrong credentials never lead', { timeout: 120000 }, async () => {
  const dir = clusterDir();
  const file = makeCertificates(path.join(dir, 'tls'));
  const etcd = await new EtcdCluster(path.join(dir, 'etcd'), {
    size: 1, tls: { cert: file('etcd.pem'), key: file('etcd.key'), ca: file('ca.pem') },
    flags: ['--auth-token', `jwt,pub-key=${file('token.pub')},priv-key=${file('token.key')},sign-method=RS256,ttl=${tokenLifetime / 1000}s`],
  }).start();
  const nodes = [];
  try {
    await lockDown(etcd);
    writeFileSync(path.join(dir, 'password'), 'foyer-password\n', { mode: 0o600 });
    const node = async (id, access) => {
      const n = new ClusterNode({
        dir, id, etcd: etcd.tlsEndpoints, secretsDir: path.join(dir, 'shared'), port: await freePort(),
        rooms: [{ id: 'demo', name: 'Demo', rate_per_minute: 6, target_url: '/welcome' }],
        cluster: { etcd_cert_file: file('node.pem'), etcd_key_file: file('node.key'), etcd_user: 'foyer', ...access },
      });
      nodes.push(n);
      return n;
    };
    const good = { etcd_ca_file: file('ca.pem'), etcd_password_file: path.join(dir, 'password') };
    const a = await node('a', good);
    await a.start().leading();
    const joined = await (await fetch(`${a.url}/api/v1/rooms/demo/join`, { method: 'POST' })).json();
    // Past two of its tokens' lifetimes (etcd's clock, which no test can set), a still leads:
    // its lease renewals, group commits and trims each signed in again.
    await new Promise((resolve) => setTimeout(resolve, 2.5 * tokenLifetime));
    const later = await fetch(`${a.url}/api/v1/rooms/demo/join`, { method: 'POST' });
    assert.equal(later.status, 201, await later.text());
    assert.ok(a.alive && a.serving, `a still leads:\n${a.output}`);
    // An operator changes etcd's users during the sale: every token signed in before is
    // refused as "revision of auth store is old", and a signs in again rather than fail joins.
    await asRoot(etcd, 'user/add', { name: 'auditor', password: 'auditor-password' });
    const afterChange = await fetch(`${a.url}/api/v1/rooms/demo/join`, { method: 'POST' });
    assert.equal(afterChange.status, 201, await afterChange.text());

    // The standby copies, and takes over, through the same locked-down etcd.
    const b = await node('b', good);
    b.start();
    await until('b to stand by', () => /standby: .* leads; copying its log/.test(b.output), 15000);
    await a.kill9();
    await b.leading();
    const res = await fetch(`${b.url}/api/v1/rooms/demo/status`, { headers: { authorization: `Bearer ${joined.ticket}` } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).place, joined.place);

    const wrongPassword = await node('c', { etcd_ca_file: file('ca.pem'), etcd_password: 'not-the-password' });
    const unverified = await node('d', { etcd_password_file: path.join(dir, 'password') }); // the system's roots only
    wrongPassword.start();
    unverified.start();
    await until('c to say why', () => /etcd refused the user 'foyer': etcdserver: authentication failed/.test(wrongPassword.output), 15000);
    await until('d to say why', () => /TLS: certificate verify failed/.test(unverified.output), 15000);
    for (const n of [wrongPassword, unverified]) assert.ok(n.alive && !n.serving, `${n.id} stands by, leading nothing`);
  } finally {
    for (const n of nodes) if (n.alive) await n.kill9();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
