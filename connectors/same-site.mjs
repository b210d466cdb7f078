// The same-site rule for `next` is written once, in web/js/bounce.js between the lines
// `// <same-site-rule>` and `// </same-site-rule>`. This copies it into the connectors that
// run JavaScript, between the same lines:
//   node connectors/same-site.mjs           writes the copies
//   node connectors/same-site.mjs --check   exits 1 if a copy differs (tests/connectors/same-site.test.js)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = 'web/js/bounce.js';
export const COPIES = ['connectors/node/foyer-pass.js', 'connectors/worker/foyer-pass-worker.js'];
const BEGIN = '// <same-site-rule>';
const END = '// </same-site-rule>';

// [before, region, after] of a file's text, the region being the lines after BEGIN's line.
function split(file, text) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin || text.indexOf(BEGIN, begin + 1) >= 0) throw new Error(`${file}: one ${BEGIN} ... ${END} region expected`);
  const bodyStart = text.indexOf('\n', begin) + 1;
  return [text.slice(0, bodyStart), text.slice(bodyStart, end), text.slice(end)];
}

// Each copy's text as it must be: [{ file, now, wanted }].
export function copies() {
  const [, rule] = split(SOURCE, readFileSync(path.join(repo, SOURCE), 'utf8'));
  return COPIES.map((file) => {
    const now = readFileSync(path.join(repo, file), 'utf8');
    const [head, , tail] = split(file, now);
    const stamp = `// Generated from ${SOURCE} by \`node connectors/same-site.mjs\`: edit it there.\n`;
    return { file, now, wanted: head + stamp + rule + tail };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let differ = 0;
  for (const { file, now, wanted } of copies()) {
    if (now === wanted) continue;
    differ++;
    if (check) console.error(`${file}: its same-site rule differs from ${SOURCE}'s: run node connectors/same-site.mjs`);
    else writeFileSync(path.join(repo, file), wanted);
  }
  process.exitCode = check && differ ? 1 : 0;
}
