// The draw's timeline as a small inline SVG: commit, close, the witnesses' cosignatures,
// the beacon round and the reveal (each lane's too, in a room with lanes), in time order,
// evenly spaced (the gaps run from hours to seconds, so a linear scale would pile the last
// four on one dot), each gap labelled.

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 118;
const MARGIN = 56;
const LINE_Y = 58;

/**
 * The events of a fairness report's timeline, in time order: {id, label, time, detail?, lane?}.
 * In a room with lanes (`timeline.lanes`), a lane's commit, close or reveal at the same
 * time as the general lane's is that event, which then names every lane in its label and
 * detail; one at another time (a lane declared while the lobby was open) is an event of
 * its own, with its `lane`.
 * @param {object} timeline auditDraw's fairness.timeline
 * @param {object} labels the page's strings: commit, close, witnessedCommit, witnessedClose, beacon(round), reveal;
 *   for lanes, laneName(id) ('' is the general lane), inLanes(label, count) and ofLane(label, name)
 */
export function timelineEvents(timeline, labels) {
  const witnessed = (id, list) => {
    if (!list?.length) return [];
    const times = list.map((w) => w.time).sort((a, b) => a - b);
    // A cosignature's time is in whole seconds: the stamp's second may hold its stage's
    // entry (in ms) too, so it sorts after that second.
    return [{ id, label: labels[id], time: times.at(-1), sortTime: times.at(-1) + 1000, detail: list.map((w) => `${w.name} ${new Date(w.time).toISOString()}`).join('\n') }];
  };
  const own = [];
  const together = { commit: [''], close: [''], reveal: [''] };
  for (const lane of timeline.lanes ?? []) {
    for (const id of Object.keys(together)) {
      if (lane[id] == null) continue;
      if (lane[id] === timeline[id]) together[id].push(lane.lane);
      else own.push({ id, lane: lane.lane, label: labels.ofLane(labels[id], labels.laneName(lane.lane)), time: lane[id] });
    }
  }
  const step = (id) => (together[id].length === 1 ? { id, label: labels[id], time: timeline[id] } : {
    id, label: labels.inLanes(labels[id], together[id].length), time: timeline[id], detail: together[id].map(labels.laneName).join(', '),
  });
  const events = [
    step('commit'),
    ...witnessed('witnessedCommit', timeline.witnessedCommit),
    step('close'),
    ...witnessed('witnessedClose', timeline.witnessedClose),
    ...(timeline.beacon == null ? [] : [{ id: 'beacon', label: labels.beacon(timeline.beaconRound), time: timeline.beacon }]),
    step('reveal'),
    ...own,
  ].filter((e) => e.time != null);
  return events.sort((a, b) => (a.sortTime ?? a.time) - (b.sortTime ?? b.time));
}

function node(name, attributes = {}, text) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  if (text != null) el.textContent = text;
  return el;
}

/**
 * The SVG picture of `events` (from timelineEvents); `formatTime(ms)` and
 * `formatGap(ms)` write the times and the gaps between them.
 */
export function timelineSvg(events, { formatTime, formatGap, title }) {
  const svg = node('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', class: 'timeline' });
  svg.append(node('title', {}, title));
  const step = events.length > 1 ? (WIDTH - 2 * MARGIN) / (events.length - 1) : 0;
  const x = (i) => MARGIN + i * step;
  svg.append(node('line', { x1: x(0), y1: LINE_Y, x2: x(events.length - 1), y2: LINE_Y, class: 'axis' }));
  events.forEach((event, i) => {
    const group = node('g', { class: `event ${event.id}`, 'data-event': event.id, ...(event.lane ? { 'data-lane': event.lane } : {}) });
    group.append(node('title', {}, event.detail ? `${event.label}\n${event.detail}` : event.label));
    group.append(node('circle', { cx: x(i), cy: LINE_Y, r: 7 }));
    // Labels alternate above and below the line so that neighbours do not collide.
    const above = i % 2 === 0;
    group.append(node('text', { x: x(i), y: above ? LINE_Y - 30 : LINE_Y + 30, class: 'label' }, event.label));
    group.append(node('text', { x: x(i), y: above ? LINE_Y - 16 : LINE_Y + 44, class: 'time' }, formatTime(event.time)));
    svg.append(group);
    if (i > 0) {
      const gap = node('text', { x: (x(i - 1) + x(i)) / 2, y: LINE_Y + 20, class: 'gap' },
        formatGap(event.time - events[i - 1].time));
      svg.append(gap);
    }
  });
  return svg;
}
