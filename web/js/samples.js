// The console's memory: samples of every room's counters, taken as it polls, kept
// for the last hour, and turned into series for the charts. Pure functions of data.

export const WINDOW_MS = 60 * 60 * 1000;
// Admissions per minute are measured over this span, so one slow tick doesn't read as a stall.
const RATE_SPAN_MS = 60 * 1000;

/**
 * The samples with one more, taken at server time `at` (ms) from the admin rooms
 * list, and without those older than the window. Samples are {at, rooms: {id: {w, s}}}
 * with w = waiting and s = served.
 */
export function addSample(samples, at, rooms) {
  const counts = {};
  for (const room of rooms) counts[room.id] = { w: room.waiting, s: room.served };
  const kept = samples.filter((sample) => sample.at > at - WINDOW_MS && sample.at < at);
  kept.push({ at, rooms: counts });
  return kept;
}

/** Queue depth (people waiting) of one room over time: [{t, v}]. */
export function queueSeries(samples, id) {
  return samples.filter((sample) => sample.rooms[id]).map((sample) => ({ t: sample.at, v: sample.rooms[id].w }));
}

/**
 * Admissions per minute of one room over time: at each sample, the growth of `served`
 * since the oldest sample of the minute before it (or since the previous sample when
 * the console was away longer), per minute. [{t, v}], one point fewer than the samples.
 */
export function admissionSeries(samples, id) {
  const points = samples.filter((sample) => sample.rooms[id]).map((sample) => ({ t: sample.at, s: sample.rooms[id].s }));
  const out = [];
  let from = 0;
  for (let i = 1; i < points.length; i++) {
    while (from < i - 1 && points[from].t < points[i].t - RATE_SPAN_MS) from++;
    const a = points[from];
    const b = points[i];
    out.push({ t: b.t, v: Math.max(0, ((b.s - a.s) * 60_000) / (b.t - a.t)) });
  }
  return out;
}
