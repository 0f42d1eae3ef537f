// The units of Redis 7.0.15's own test suite that glasskv passes in full
// (PASSING_UNITS in scripts/redis-suite.mjs), each run as `npm run
// test:redis-suite` runs it: on a fresh `glasskv server` and on a fresh
// redis-server at the same time. Here two units run at once (LANES). glasskv
// must pass every test that redis-server passes and fail none, so a
// regression fails npm test. The suite is fetched on first use and cached
// in build/redis-suite; each run's output goes to build/redis-suite/check/.
// RESULTS.md is left alone.
//
// Run: node --test tests/redis-suite/ (GLASSKV_BUILD=dir for a build of
// one's own, see tests/server/servers.mjs).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import {
  LANES, PASSING_UNITS, byDesign, hasUnit, missedByGlasskv, prepareSuite, runUnitSideBySide, cache,
} from '../../scripts/redis-suite.mjs';

const logs = join(cache, 'check');

// The units run LANES at a time, each in a lane no other uses meanwhile.
const freeLanes = Array.from({ length: LANES }, (_, i) => i);
async function inALane(fn) {
  const lane = freeLanes.shift();
  if (lane === undefined) throw new Error('more units at once than lanes');
  try {
    return await fn(lane);
  } finally {
    freeLanes.push(lane);
  }
}

/** Whether a run stopped short: an exception or the time limit. */
function stoppedShort(run) {
  const lines = [];
  if (run.exception) lines.push(`[exception] ${run.exception}`);
  if (run.timeout) lines.push('[timeout] the unit did not finish in time');
  return lines;
}

describe('glasskv server passes in full the units of Redis\'s suite it passed in full', { concurrency: LANES }, () => {
  before(() => {
    prepareSuite();
    mkdirSync(logs, { recursive: true });
  });

  for (const unit of PASSING_UNITS) {
    it(`unit/${unit} passes on glasskv server every test it passes on redis-server`, async () => {
      assert.ok(hasUnit(unit), `unit/${unit} is not in the suite`);
      const r = await inALane((lane) => runUnitSideBySide(unit, lane));
      const file = unit.replace(/\//g, '_');
      const paths = {
        glasskv: join(logs, `${file}.glasskv.log`), redis: join(logs, `${file}.redis.log`),
      };
      for (const kind of ['glasskv', 'redis']) writeFileSync(paths[kind], r[kind].output);

      // The yardstick first: redis-server must have run the unit through.
      const theirs = stoppedShort(r.redis);
      if (theirs.length || !r.redis.ok.length) {
        assert.fail(`unit/${unit} did not run through on redis-server ` +
          `(${r.redis.ok.length} passed; output in ${paths.redis}):\n${theirs.join('\n')}`);
      }
      // A test redis-server fails too (some cannot pass in external mode)
      // is not held against glasskv.
      const theirFailures = new Set(r.redis.err.map((e) => e.name));
      const mine = r.glasskv.err.filter((e) => !theirFailures.has(e.name))
        .map((e) => `[err] ${e.name}: ${e.message}`);
      mine.push(...stoppedShort(r.glasskv));
      const failed = new Set(r.glasskv.err.map((e) => e.name));
      // A test that cannot pass by design (REASONS, with its reason in
      // RESULTS.md) is not held against glasskv either.
      for (const name of missedByGlasskv(r))
        if (!failed.has(name) && !byDesign(unit, name)) mine.push(`[not passed] ${name}`);
      if (mine.length) {
        assert.fail(`unit/${unit} on glasskv server: ${r.glasskv.ok.length} passed, ` +
          `redis-server passed ${r.redis.ok.length}; output in ${paths.glasskv}:\n` +
          mine.join('\n'));
      }
      console.log(`unit/${unit}: ${r.glasskv.ok.length} passed on glasskv server ` +
        `(${r.glasskv.seconds.toFixed(1)} s), ${r.redis.ok.length} on redis-server ` +
        `(${r.redis.seconds.toFixed(1)} s)`);
    });
  }
});
