import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  approx, contrastText, formatCountdown, formatDuration, formatNumber, formatOdds, formatTime, oddsVerdict,
  progressFraction, queueNumber, withPass,
} from '../../web/js/format.js';

test('numbers are grouped and estimates keep two significant figures', () => {
  assert.equal(formatNumber(48210), '48,210');
  assert.equal(formatNumber(0), '0');
  assert.equal(approx(7), 7);
  assert.equal(approx(99.6), 100);
  assert.equal(approx(1234), 1200);
  assert.equal(approx(1250), 1300);
  assert.equal(approx(48210), 48000);
  assert.equal(approx(987654), 990000);
});

test('waits read as estimates', () => {
  assert.equal(formatDuration(0), 'less than a minute');
  assert.equal(formatDuration(29), 'less than a minute');
  assert.equal(formatDuration(30), 'about 1 minute');
  assert.equal(formatDuration(89), 'about 1 minute');
  assert.equal(formatDuration(90), 'about 2 minutes');
  assert.equal(formatDuration(59 * 60), 'about 59 minutes');
  assert.equal(formatDuration(3569), 'about 59 minutes');
  assert.equal(formatDuration(3570), 'about 1 hour');
  assert.equal(formatDuration(3600 + 20 * 60), 'about 1 h 20 min');
  assert.equal(formatDuration(3600 + 22 * 60), 'about 1 h 20 min');
  assert.equal(formatDuration(2 * 3600 + 58 * 60), 'about 3 hours');
  assert.equal(formatDuration(10 * 3600), 'about 10 hours');
  assert.equal(formatDuration(47 * 3600), 'about 47 hours');
  assert.equal(formatDuration(48 * 3600), 'about 2 days');
  assert.equal(formatDuration(36 * 86400), 'about 36 days');
});

test('a held admission has no expected wait, and none is invented', () => {
  assert.equal(formatDuration(null), 'waiting for places to free up');
  assert.equal(formatDuration(undefined), 'waiting for places to free up');
});

test('countdowns tick in whole seconds and stop at zero', () => {
  assert.equal(formatCountdown(245), '4:05');
  assert.equal(formatCountdown(244.2), '4:05');
  assert.equal(formatCountdown(59), '0:59');
  assert.equal(formatCountdown(3723), '1:02:03');
  assert.equal(formatCountdown(50 * 3600), '50:00:00');
  assert.equal(formatCountdown(-3), '0:00');
});

test('a time on the same day shows the time alone, otherwise the date too', () => {
  const at = Date.UTC(2026, 11, 1, 14, 35);
  assert.equal(formatTime(at, Date.UTC(2026, 11, 1, 9, 0), 'UTC'), '2:35 PM');
  assert.equal(formatTime(at, Date.UTC(2026, 10, 30, 23, 0), 'UTC'), 'Dec 1, 2026, 2:35 PM');
  // The day is the reader's: 14:35 UTC is already the next day in Kolkata.
  assert.equal(formatTime(Date.UTC(2026, 11, 1, 20, 0), Date.UTC(2026, 11, 1, 9, 0), 'Asia/Kolkata'),
    'Dec 2, 2026, 1:30 AM');
});

test('odds are honest about scarce stock', () => {
  assert.equal(formatOdds(1200, 48210),
    'About 1,200 items left for 48,210 people ahead of you: you are unlikely to get one.');
  assert.equal(formatOdds(1234, 48210),
    'About 1,200 items left for 48,210 people ahead of you: you are unlikely to get one.');
  assert.equal(formatOdds(500, 10), 'About 500 items left for 10 people ahead of you: you are likely to get one.');
  assert.equal(formatOdds(1, 0), 'About 1 item left for 0 people ahead of you: it will be close.');
  assert.equal(formatOdds(3, 1), 'About 3 items left for 1 person ahead of you: you are likely to get one.');
  assert.equal(formatOdds(0, 5), 'Nothing is left for sale; the site may still release more.');
});

test('the verdict turns at 1.5 and 0.75 items per person, counting the visitor', () => {
  assert.equal(oddsVerdict(0, 0), 'none');
  assert.equal(oddsVerdict(3, 1), 'likely');
  assert.equal(oddsVerdict(2, 1), 'close');
  assert.equal(oddsVerdict(3, 3), 'close');
  assert.equal(oddsVerdict(2, 3), 'unlikely');
  assert.equal(oddsVerdict(1200, 48210), 'unlikely');
});

test('progress through the queue runs from the first position seen', () => {
  assert.equal(progressFraction(100, 100), 0);
  assert.equal(progressFraction(100, 25), 0.75);
  assert.equal(progressFraction(100, 0), 1);
  assert.equal(progressFraction(0, 0), 1);
  assert.equal(progressFraction(undefined, 5), 1);
  assert.equal(progressFraction(10, 20), 0);
});

test('places count from 0, people count from 1', () => {
  assert.equal(queueNumber(0), '1');
  assert.equal(queueNumber(1233), '1,234');
});

test('the pass is appended to the target, keeping its query and fragment', () => {
  const base = 'http://127.0.0.1:8080/r/demo';
  assert.equal(withPass('/welcome', 'a.b.c', base), 'http://127.0.0.1:8080/welcome?foyer_pass=a.b.c');
  assert.equal(withPass('https://shop.example/checkout?step=1#top', 'a.b.c', base),
    'https://shop.example/checkout?step=1&foyer_pass=a.b.c#top');
  assert.equal(withPass('https://shop.example/?foyer_pass=old', 'new', base), 'https://shop.example/?foyer_pass=new');
  assert.equal(withPass('https://shop.example/shop/', 'a.b.c', base, '/shop/item?id=7'),
    'https://shop.example/shop/?foyer_pass=a.b.c&next=%2Fshop%2Fitem%3Fid%3D7');
});

test('text on the accent colour is black or white, whichever contrasts more', () => {
  assert.equal(contrastText('#1a5fb4'), '#ffffff');
  assert.equal(contrastText('#ffdd00'), '#000000');
  assert.equal(contrastText('#fff'), '#000000');
  assert.equal(contrastText('#000'), '#ffffff');
  assert.equal(contrastText('#777777'), '#000000');
  assert.equal(contrastText('#757575'), '#ffffff');
  assert.equal(contrastText('red'), null);
  assert.equal(contrastText(undefined), null);
});
