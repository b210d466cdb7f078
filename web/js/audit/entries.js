// Ledger entries (docs/fairness.md, "Ledger entries"), parsed strictly: the header line,
// then exactly the named lines of the entry's kind in the spec's order, nothing more. A
// commit, close or reveal of a lane's own draw (docs/fairness.md, "Lanes") has a `lane`
// line after the room's; the general lane's, and every witnessed entry, have none.

const decoder = new TextDecoder('utf-8', { fatal: true });
const HEADER = 'foyer/ledger/v1';
const HEX64 = /^[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

function decimal(text) {
  if (!DECIMAL.test(text) || !Number.isSafeInteger(Number(text))) throw new Error(`not a decimal: ${text}`);
  return Number(text);
}

function hex64(text) {
  if (!HEX64.test(text)) throw new Error(`not 64 lowercase hex digits: ${text}`);
  return text;
}

// `beacon` of a commit: none, drand-quicknet <round>, operator.
function beaconRule(text) {
  if (text === 'none' || text === 'operator') return { kind: text };
  const m = /^drand-quicknet (\S+)$/.exec(text);
  if (!m) throw new Error(`unknown beacon rule: ${text}`);
  return { kind: 'drand-quicknet', round: decimal(m[1]) };
}

// `beacon` of a reveal: none, drand-quicknet <round> <96 hex>, operator <hex>.
function beaconValue(text) {
  if (text === 'none') return { kind: 'none' };
  let m = /^drand-quicknet (\S+) ([0-9a-f]{96})$/.exec(text);
  if (m) return { kind: 'drand-quicknet', round: decimal(m[1]), signature: m[2] };
  m = /^operator ((?:[0-9a-f]{2})+)$/.exec(text);
  if (m) return { kind: 'operator', value: m[1] };
  throw new Error(`unknown beacon value: ${text}`);
}

const FIELDS = {
  commit: [['commitment', hex64], ['beacon', beaconRule], ['closes_at', decimal], ['at', decimal]],
  close: [['size', decimal], ['root', hex64], ['at', decimal]],
  witnessed: [['stage', (t) => {
    if (t !== 'commit' && t !== 'close') throw new Error(`unknown stage: ${t}`);
    return t;
  }]],
  reveal: [['seed', hex64], ['beacon', beaconValue], ['key', hex64], ['places', hex64], ['at', decimal]],
};

/**
 * One ledger entry (bytes) as {kind, room, lane?, ...fields}: `lane` only for a lane's
 * own draw; a witnessed entry also has `checkpoint`, the cosigned note after the blank
 * line. Throws on any other shape.
 */
export function parseEntry(bytes) {
  const text = decoder.decode(bytes);
  let body = text;
  let checkpoint;
  const blank = text.indexOf('\n\n');
  if (blank >= 0) {
    body = text.slice(0, blank + 1);
    checkpoint = text.slice(blank + 2);
  }
  if (!body.endsWith('\n')) throw new Error('an entry ends with a newline');
  const lines = body.slice(0, -1).split('\n');
  if (lines[0] !== HEADER) throw new Error(`the first line is not ${HEADER}`);
  const kindLine = /^kind (commit|close|witnessed|reveal)$/.exec(lines[1] ?? '');
  if (!kindLine) throw new Error(`unknown kind line: ${lines[1]}`);
  const kind = kindLine[1];
  const roomLine = /^room (\S+)$/.exec(lines[2] ?? '');
  if (!roomLine) throw new Error('malformed room line');
  const entry = { kind, room: roomLine[1] };
  const laneLine = /^lane (\S+)$/.exec(lines[3] ?? '');
  if (laneLine && kind === 'witnessed') throw new Error('a witnessed entry names no lane');
  if (laneLine) entry.lane = laneLine[1];
  const first = laneLine ? 4 : 3;
  const fields = FIELDS[kind];
  if (lines.length !== first + fields.length) throw new Error(`a ${kind} entry has ${first + fields.length} lines`);
  fields.forEach(([name, parse], i) => {
    const line = lines[first + i];
    if (!line.startsWith(`${name} `)) throw new Error(`line ${first + 1 + i} of a ${kind} entry is not ${name}`);
    entry[name] = parse(line.slice(name.length + 1));
  });
  if ((kind === 'witnessed') !== (checkpoint !== undefined)) {
    throw new Error(kind === 'witnessed' ? 'a witnessed entry carries its checkpoint' : `a ${kind} entry has a blank line`);
  }
  if (checkpoint !== undefined) entry.checkpoint = checkpoint;
  return entry;
}
