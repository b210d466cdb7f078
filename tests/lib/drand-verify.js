// Checks quicknet rounds with web/js/drand.js, the audit's BLS verifier, for the C++ tests
// (tests/unit/core/fairness/drand_test.cpp), which cannot check a pairing themselves.
//
//   node tests/lib/drand-verify.js FILE
//
// Each line of FILE is `<round> <signature hex> <valid|invalid>`. Prints one line per
// round; exits 0 only if there was at least one and each was judged as its line says.
import { readFileSync } from 'node:fs';

import { verifyRound } from '../../web/js/drand.js';

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
let wrong = 0;
for (const line of lines) {
  const [round, signature, expected] = line.split(' ');
  const valid = verifyRound(Number(round), signature);
  const ok = valid === (expected === 'valid');
  if (!ok) wrong++;
  console.log(`${ok ? 'ok' : 'WRONG'} round ${round}: ${valid ? 'valid' : 'invalid'}, expected ${expected}`);
}
process.exit(lines.length > 0 && wrong === 0 ? 0 : 1);
