// Preloaded into every test file by tests/lib/run-node.js (node --import), so that the
// suite runs the same on Debian's Node 18 as on Node 20 and later.
import * as module from 'node:module';
import { after } from 'node:test';

// The tests import the pages' ES modules from web/ (see esm-hooks.js). module.register
// is in Node 18.19 and later.
module.register?.('./esm-hooks.js', import.meta.url);

// A file whose tests are all done exits even if a failure left a browser, a server or a
// socket open, as `--test-force-exit` does on Node 20.14 and later.
//
// A root-level after hook runs once the file's last test has finished, before the loop
// drains. It leaves the file GRACE_MS for its own after hooks and for the report to be
// written, then exits with the result the test runner has set (process.exitCode is 1
// once a test has failed). The timer is unref'd: a file that leaves nothing open exits
// at once, exactly as before. An exit runs tests/lib/foyer.js's 'exit' handler, which
// kills the process groups of the servers the file started.
//
// Only in a test file's own process (`node --test` sets NODE_TEST_CONTEXT for it), never
// in the `node --test` process that runs the file.
const GRACE_MS = 10_000;
if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    setTimeout(() => {
      console.error(`preload: the tests are done but something still holds the event loop ${GRACE_MS / 1000} s later; exiting`);
      process.exit();
    }, GRACE_MS).unref();
  });
}
