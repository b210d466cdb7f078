// Line charts as SVG path data: no library, just arithmetic (pure, so node tests it).

/** The smallest 1, 2 or 5 × 10^k at or above v (at least 1): a round top for an axis. */
export function niceMax(v) {
  if (!(v > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= v) return step * power;
  }
  return 10 * power;
}

const round = (n) => Math.round(n * 10) / 10;

/**
 * Path data for points [{t, v}] in a width × height box, time from `from` to `to`
 * left to right, values from 0 at the bottom to `top`. Empty for no points.
 */
export function linePath(points, { from, to, top, width, height }) {
  const span = Math.max(1, to - from);
  return points
    .map(({ t, v }, i) => {
      const x = round(((t - from) / span) * width);
      const y = round(height - (Math.min(v, top) / top) * height);
      return `${i === 0 ? 'M' : 'L'}${x},${y}`;
    })
    .join('');
}

/** The line closed down to the baseline, for a filled area under it. */
export function areaPath(points, box) {
  if (points.length === 0) return '';
  const line = linePath(points, box);
  const span = Math.max(1, box.to - box.from);
  const x = (t) => round(((t - box.from) / span) * box.width);
  return `${line}L${x(points[points.length - 1].t)},${box.height}L${x(points[0].t)},${box.height}Z`;
}
