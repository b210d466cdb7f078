// What the binary says when it can't start as asked: an address in use names itself and
// --listen, with nothing written to the data dir; a bare `foyer` shows the usage and
// suggests `foyer serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import net from 'node:net';

import { Foyer, runFoyer } from '../lib/foyer.js';

test('an address in use names the address and --listen, and leaves the data dir unmade', async () => {
  const taken = net.createServer();
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${taken.address().port}`;
  const f = new Foyer({ server: { listen: address } });
  try {
    const { code, output } = await f.runOnce();
    assert.equal(code, 1, output);
    assert.match(output, new RegExp(`cannot listen on ${address.replaceAll('.', '\\.')}: Address already in use`));
    assert.match(output, /--listen HOST:PORT/);
    assert.equal(existsSync(f.dataDir), false, 'the data dir was made');
  } finally {
    taken.close();
    await f.cleanup();
  }
});

test('a bare foyer prints the usage and suggests foyer serve', async () => {
  const { code, stdout } = await runFoyer([]);
  assert.equal(code, 1);
  assert.match(stdout, /Usage:/);
  assert.match(stdout, /serve/);
  assert.match(stdout, /To try the demo waiting room: foyer serve\n/);
  assert.match(stdout, /foyer init/);
});
