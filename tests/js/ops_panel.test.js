import { test } from 'node:test';
import assert from 'node:assert/strict';

import { opsRates } from '../../web/js/ops_panel.js';
import { strings as s } from '../../web/js/strings.js';

test('joins and admissions a second come from two samples of the totals', () => {
  assert.equal(opsRates(null, { joined: 10, served: 0, at: 1000 }), null);
  assert.deepEqual(opsRates({ joined: 10, served: 4, at: 1000 }, { joined: 40, served: 10, at: 4000 }), { joins: 10, admissions: 2 });
  // A deleted room takes its counts with it: no negative rate.
  assert.deepEqual(opsRates({ joined: 50, served: 9, at: 1000 }, { joined: 20, served: 9, at: 2000 }), { joins: 0, admissions: 0 });
  assert.equal(opsRates({ joined: 1, served: 1, at: 2000 }, { joined: 2, served: 2, at: 2000 }), null);
});

test('the line names the ladder level', () => {
  assert.equal(s.opsLine({ joins: 12.34, admissions: 10 }, 0), 'Joins 12.3/s · admissions 10.0/s · load: normal (level 0)');
  assert.equal(s.opsLine(null, 3), 'Measuring joins and admissions… · load: new visitors refused (level 3)');
});
