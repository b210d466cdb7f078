// The two whole-draw auditors as commands, for the tests: the Node one
// (packaging/foyer-audit.mjs) and the binary's `foyer audit`. Asynchronous: the server or
// mirror they read may be served by the calling process.
import { execFile } from 'node:child_process';
import path from 'node:path';

import { foyerBin, repo } from './foyer.js';

const run = (file, args) => new Promise((resolve) => {
  execFile(file, args, { timeout: 120_000 }, (error, stdout, stderr) => resolve({ status: error ? error.code : 0, stdout, stderr }));
});

/** `node packaging/foyer-audit.mjs URL ROOM ...args`; resolves to {status, stdout, stderr}. */
export const nodeAudit = (url, room, ...args) => run(process.execPath, [path.join(repo, 'packaging/foyer-audit.mjs'), url, room, ...args]);

/** `foyer audit ...args`; resolves to {status, stdout, stderr}. */
export const foyerAudit = (...args) => run(foyerBin, ['audit', ...args]);
