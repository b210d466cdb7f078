// A real SMTP relay on loopback for the email tests (tests/support/smtp_server.py, Debian's
// python3-aiosmtpd), and a certificate for it to offer STARTTLS with.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { repo, spawnOwned } from '../lib/foyer.js';

// Debian's interpreter, whatever python3 comes first on the PATH: its packages are the ones installed.
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

// A certificate for 127.0.0.1, made for this test; its path is the relay's CA file.
export function certificate(dir) {
  const key = path.join(dir, 'relay-key.pem');
  const cert = path.join(dir, 'relay-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-days', '1', '-subj', '/CN=relay.test', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert],
  { stdio: 'ignore' });
  return { key, cert };
}

// The relay, until the test ends: { port, out, messages(), refused() (messages answered
// with --answer-data) }.
export async function relay(t, dir, args) {
  const out = path.join(dir, `relay-${Math.random().toString(36).slice(2)}`);
  mkdirSync(out);
  const proc = spawnOwned(python, [path.join(repo, 'tests/support/smtp_server.py'), '--out', out, ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => proc.stdin.end());
  const port = await new Promise((resolve, reject) => {
    let text = '';
    proc.stdout.on('data', (c) => {
      text += c;
      if (text.includes('\n')) resolve(Number(text.trim()));
    });
    proc.on('exit', (code) => reject(new Error(`the SMTP server exited with ${code}`)));
  });
  const messages = () => readdirSync(out).filter((f) => f.endsWith('.eml')).sort()
    .map((f) => ({ raw: readFileSync(path.join(out, f)), ...JSON.parse(readFileSync(path.join(out, f.replace('.eml', '.json')))) }));
  const refused = () => readdirSync(out).filter((f) => f.endsWith('.refused')).length;
  return { port, messages, refused };
}

