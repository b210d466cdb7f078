// The README's "Put it in front of your sale", set up as a newcomer would: `foyer init`
// writes the files, then the real server, a real nginx with the file it wrote, and the
// guard command it printed, in front of a shop on 127.0.0.2. Shared by the integration
// test of init and the browser test that walks a visitor through it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { foyerBin, killOwned, runFoyer, spawnOwned, until } from './foyer.js';
import { freePort, launchNginx, nginxConfig, startUpstream } from '../nginx/harness.js';

// Starts `args` and resolves once its output matches `ready`.
async function start(args, ready) {
  const proc = spawnOwned(foyerBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (c) => { output += c; });
  proc.stderr.on('data', (c) => { output += c; });
  proc.on('exit', (code) => { output += `\n(exited ${code})`; });
  await until(`${args[0]} to start`, () => ready.test(output) || /\(exited/.test(output), 15000);
  assert.match(output, ready);
  return proc;
}

// Runs `foyer init` for room spring-sale with ten seats. `serve` then starts everything as
// init's next steps say; `cleanup` stops it all and removes the files.
export async function initSale() {
  const dir = mkdtempSync(path.join(tmpdir(), 'foyer-init-'));
  const procs = [];
  const shop = await startUpstream();
  const [foyerPort, guardPort, queuePort, shopPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const queueUrl = `http://127.0.0.1:${queuePort}`;
  const shopUrl = `http://127.0.0.2:${shopPort}/sale/`;
  const init = await runFoyer(['init', '--dir', dir, '--room', 'spring-sale', '--name', 'Spring sale', '--shop-url', shopUrl,
    '--foyer-url', queueUrl, '--rate', '6000', '--seats', '10', '--listen', `127.0.0.1:${foyerPort}`,
    '--guard-listen', `127.0.0.1:${guardPort}`, '--shop-backend', `127.0.0.1:${shop.port}`]);
  const configPath = path.join(dir, 'foyer.toml');
  const token = (name) => new RegExp(`^${name} = "([0-9a-f]{48})"$`, 'm').exec(readFileSync(configPath, 'utf8'))?.[1];
  return {
    dir, init, configPath, queueUrl, shopUrl, shopPort, token,
    async serve() {
      procs.push(await start(['serve', '--config', configPath], /serving 1 room\(s\) on http:\/\/127\.0\.0\.1:\d+/));
      const guardLine = /^ +(foyer guard .*)$/m.exec(init.stdout)[1];
      procs.push(await start(guardLine.split(' ').slice(1), /listening on http:\/\/127\.0\.0\.1:\d+/));
      const nginx = { dir, port: queuePort };
      launchNginx(nginx, nginxConfig(dir, `include ${path.join(dir, 'foyer-nginx.conf')};`, 64));
      procs.push(nginx.proc);
    },
    async cleanup() {
      for (const proc of procs.reverse()) killOwned(proc);
      await shop.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
