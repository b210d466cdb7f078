// Pure formatting for the pages: numbers, waits, countdowns, odds, colours, URLs.
// No DOM and no clock reads (times come in as arguments), so node --test covers it.

import { locale, strings as s } from './strings.js';

const numberFormat = new Intl.NumberFormat(locale);

/** A count with the locale's grouping: 48210 → "48,210". */
export function formatNumber(n) {
  return numberFormat.format(n);
}

/** Two significant figures from 100 up: an estimate should not look exact. 1234 → 1200. */
export function approx(n) {
  if (n < 100) return Math.round(n);
  const scale = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / scale) * scale;
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;
// Past this, hours and minutes are rounded to five minutes, then to whole hours.
const FINE_HOURS_LIMIT = 10 * HOUR;
const HOURS_LIMIT = 48 * HOUR;

/**
 * An expected wait in words, rounded as an estimate deserves: "about 12 minutes". None
 * (null) while admission is held: no time can be promised until places free up.
 */
export function formatDuration(seconds) {
  if (seconds == null) return s.heldWait;
  const minutes = Math.round(seconds / MINUTE);
  if (minutes < 1) return s.lessThanMinute;
  if (minutes < 60) return s.minutes(formatNumber(minutes), minutes);
  if (seconds < FINE_HOURS_LIMIT) {
    const total = Math.round(seconds / (5 * MINUTE)) * 5;
    const h = Math.floor(total / 60);
    const m = total % 60;
    return m === 0 ? s.hours(formatNumber(h), h) : s.hoursMinutes(formatNumber(h), formatNumber(m));
  }
  if (seconds < HOURS_LIMIT) {
    const h = Math.round(seconds / HOUR);
    return s.hours(formatNumber(h), h);
  }
  const d = Math.round(seconds / DAY);
  return s.days(formatNumber(d), d);
}

/** A countdown clock: "4:05", "1:02:03"; never negative. */
export function formatCountdown(seconds) {
  const total = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(total / HOUR);
  const m = Math.floor((total % HOUR) / MINUTE);
  const sec = String(total % MINUTE).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * A moment as a reader wants it: the time alone when it falls on the same day as
 * `nowMs`, with the date otherwise. `timeZone` defaults to the reader's.
 */
export function formatTime(atMs, nowMs, timeZone) {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const sameDay = day.format(atMs) === day.format(nowMs);
  const options = sameDay ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' };
  return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(atMs);
}

// Items per person (the visitor and everyone ahead) at which the outcome is "likely" or "close".
const LIKELY_RATIO = 1.5;
const CLOSE_RATIO = 0.75;

/**
 * How a visitor's chances look when `stockLeft` items remain and `ahead` people are
 * ahead of them, assuming one item each: 'none', 'likely', 'close' or 'unlikely'.
 */
export function oddsVerdict(stockLeft, ahead) {
  if (stockLeft <= 0) return 'none';
  const ratio = stockLeft / (ahead + 1);
  if (ratio >= LIKELY_RATIO) return 'likely';
  if (ratio >= CLOSE_RATIO) return 'close';
  return 'unlikely';
}

/** The honest sentence: "About 1,200 items left for 48,210 people ahead of you: you are unlikely to get one." */
export function formatOdds(stockLeft, ahead) {
  const verdict = oddsVerdict(stockLeft, ahead);
  if (verdict === 'none') return s.oddsNone;
  const items = approx(stockLeft);
  const lead = s.oddsLead(formatNumber(items), items, formatNumber(ahead), ahead);
  const tail = { likely: s.oddsLikely, close: s.oddsClose, unlikely: s.oddsUnlikely }[verdict];
  return `${lead}: ${tail}`;
}

/** How far through the queue a visitor is, 0..1, from the position they first saw. */
export function progressFraction(firstPosition, position) {
  if (!(firstPosition > 0)) return 1;
  return Math.min(1, Math.max(0, 1 - position / firstPosition));
}

/** The number a person reads for a 0-based place: place 0 is number 1. */
export function queueNumber(place) {
  return formatNumber(place + 1);
}

/**
 * The target URL with the pass appended as ?foyer_pass= (the site's guard turns it
 * into a cookie). Relative targets resolve against `base`; an existing query and
 * fragment are kept.
 */
export function withPass(targetUrl, pass, base, next = null) {
  const url = new URL(targetUrl, base);
  url.searchParams.set('foyer_pass', pass);
  // The page of the site the visitor asked for: the guard sends them on to it.
  if (next) url.searchParams.set('next', next);
  return url.href;
}

function channel(hex) {
  const c = parseInt(hex, 16) / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

// The WCAG luminance at which black and white text contrast equally with a colour.
const EQUAL_CONTRAST_LUMINANCE = 0.179;

/** Black or white, whichever reads better on the hex colour (#rgb or #rrggbb); null if it is not one. */
export function contrastText(colour) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour ?? '');
  if (!m) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => channel(hex.slice(i, i + 2)));
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > EQUAL_CONTRAST_LUMINANCE ? '#000000' : '#ffffff';
}
