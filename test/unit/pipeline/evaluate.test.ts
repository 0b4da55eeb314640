import { describe, expect, it } from 'vitest';
import { effectiveThresholds, type Thresholds } from '../../../lambdas/core/detection/thresholds.js';
import type { RunFiles } from '../../../lambdas/core/model/listing.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import { ALL_STATES, alertsOn, type RunState } from '../../../lambdas/core/model/states.js';
import { assess } from '../../../lambdas/core/pipeline/evaluate.js';
import { listed, obj, type RecordOverrides, record } from '../../support/fakes.js';

const M = 60_000;
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const ago = (ms: number) => NOW - ms;
const T: Thresholds = {
  staleAfterMs: 10 * M,
  stallAfterMs: 30 * M,
  startupGraceMs: 15 * M,
  phaseStaleAfterMs: { setup: 30 * M, checkpointing: 45 * M },
};

/** A RUNNING record that knows step 100 from the progress.json `progressAt` (ETag current). */
function knowing(progressAt: number, overrides: RecordOverrides = {}): RunRecord {
  return record({
    ...overrides,
    facts: {
      step: 100,
      stepAdvancedAt: progressAt,
      etags: { progress: obj('progress', progressAt).etag },
      ...overrides.facts,
    },
  });
}

interface Case {
  name: string;
  run: RunFiles;
  known: RunRecord;
  state: RunState;
  reason?: RegExp;
}

const cases: Case[] = [
  // Precedence: _complete > _error > staleness > stall > degraded.
  {
    name: '_complete beats _error and stale heartbeats',
    run: listed({ metadata: ago(60 * M), progress: ago(60 * M), error: ago(2 * M), complete: ago(1 * M) }),
    known: record({ facts: { errorMessage: 'boom' } }),
    state: 'SUCCEEDED',
    reason: /^_complete written 1m ago$/,
  },
  {
    name: '_error beats stale heartbeats and uses the last error line',
    run: listed({ metadata: ago(60 * M), progress: ago(60 * M), error: ago(1 * M) }),
    known: record({ errorType: 'oom', facts: { errorMessage: 'RuntimeError: CUDA out of memory' } }),
    state: 'FAILED',
    reason: /^RuntimeError: CUDA out of memory$/,
  },
  {
    name: '_error not read yet still fails the run',
    run: listed({ metadata: ago(1 * M), error: ago(1 * M) }),
    known: record(),
    state: 'FAILED',
    reason: /^_error written$/,
  },
  {
    name: 'both heartbeats stale beats a stall',
    run: listed({ metadata: ago(11 * M), progress: ago(40 * M) }),
    known: knowing(ago(40 * M)),
    state: 'TIMED_OUT',
    reason: /^no heartbeat for 11m \(threshold 10m\)$/,
  },
  {
    name: 'a stall beats one stale heartbeat',
    run: listed({ metadata: ago(1 * M), progress: ago(31 * M) }),
    known: knowing(ago(31 * M)),
    state: 'STALLED',
    reason: /^step 100 has not advanced for 31m \(threshold 30m\)/,
  },
  {
    name: 'a stall beats a degraded finding',
    run: listed({ metadata: ago(1 * M), progress: ago(1 * M) }),
    known: knowing(ago(1 * M), { facts: { stepAdvancedAt: ago(31 * M), findings: { clock: 'clock skew' } } }),
    state: 'STALLED',
  },
  {
    name: 'one stale heartbeat beats a degraded finding',
    run: listed({ metadata: ago(11 * M), progress: ago(1 * M) }),
    known: knowing(ago(1 * M), { facts: { findings: { clock: 'clock skew' } } }),
    state: 'WARNING',
    reason: /^metadata\.json not updated for 11m \(threshold 10m\) while progress\.json is fresh$/,
  },
  {
    name: 'stale progress.json with fresh metadata is a warning before the stall threshold',
    run: listed({ metadata: ago(1 * M), progress: ago(12 * M) }),
    known: knowing(ago(12 * M)),
    state: 'WARNING',
    reason: /^progress\.json not updated for 12m .* while metadata\.json is fresh$/,
  },
  {
    name: 'a finding degrades a fresh run to WARNING with the first finding (by key) as reason',
    run: listed({ metadata: ago(1 * M), progress: ago(1 * M) }),
    known: knowing(ago(1 * M), {
      facts: { findings: { 'progress.json': 'invalid heartbeat: b', clock: 'clock skew: a' } },
    }),
    state: 'WARNING',
    reason: /^clock skew: a$/,
  },
  {
    name: 'fresh heartbeats and an advancing step are RUNNING',
    run: listed({ metadata: ago(1 * M), progress: ago(1 * M) }),
    known: knowing(ago(1 * M), { facts: { totalSteps: 1000 } }),
    state: 'RUNNING',
    reason: /^heartbeats fresh, at step 100\/1000$/,
  },
  {
    name: 'metadata alone is a heartbeat',
    run: listed({ metadata: ago(1 * M) }),
    known: record(),
    state: 'RUNNING',
    reason: /^heartbeats fresh$/,
  },
  {
    name: 'progress alone is a heartbeat',
    run: listed({ progress: ago(1 * M) }),
    known: record(),
    state: 'RUNNING',
  },
  {
    name: 'no heartbeat within the startup grace is PENDING (a log file does not count)',
    run: listed({ log: ago(1 * M) }, ago(5 * M)),
    known: record({ state: 'PENDING' }),
    state: 'PENDING',
    reason: /^waiting for the first heartbeat \(5m of 15m startup grace\)$/,
  },
  {
    name: 'no heartbeat past the startup grace is TIMED_OUT (never started)',
    run: listed({ log: ago(1 * M) }, ago(16 * M)),
    known: record({ state: 'PENDING' }),
    state: 'TIMED_OUT',
    reason: /^never started: no heartbeat 16m after the run appeared/,
  },
];

describe('assess: states and precedence', () => {
  it.each(cases)('$name', ({ run, known, state, reason }) => {
    const verdict = assess(run, known, NOW, T);
    expect(verdict.state).toBe(state);
    if (reason) expect(verdict.reason).toMatch(reason);
  });

  it('carries the error type of a failure, null when not classified', () => {
    const run = listed({ metadata: ago(1 * M), error: ago(1 * M) });
    expect(assess(run, record({ errorType: 'nccl' }), NOW, T).errorType).toBe('nccl');
    expect(assess(run, record(), NOW, T).errorType).toBeNull();
  });
});

describe('assess: thresholds', () => {
  const both = (at: number) => listed({ metadata: at, progress: at });
  const fresh = record();

  it.each([
    {
      name: 'default: exactly at the threshold is still fresh',
      age: 10 * M,
      meta: undefined,
      state: 'RUNNING',
    },
    {
      name: 'default: 1 ms past the threshold is stale',
      age: 10 * M + 1,
      meta: undefined,
      state: 'TIMED_OUT',
    },
    { name: 'stale_minutes lengthens it', age: 19 * M, meta: { staleMinutes: 20 }, state: 'RUNNING' },
    { name: 'stale_minutes is a limit too', age: 21 * M, meta: { staleMinutes: 20 }, state: 'TIMED_OUT' },
    { name: 'stale_minutes shortens it', age: 6 * M, meta: { staleMinutes: 5 }, state: 'TIMED_OUT' },
    { name: 'a phase lengthens it', age: 44 * M, meta: { phase: 'checkpointing' }, state: 'RUNNING' },
    {
      name: 'a phase threshold is a limit too',
      age: 46 * M,
      meta: { phase: 'checkpointing' },
      state: 'TIMED_OUT',
    },
    {
      name: 'an unknown phase uses the default',
      age: 11 * M,
      meta: { phase: 'training' },
      state: 'TIMED_OUT',
    },
    {
      name: 'a phase shorter than stale_minutes does not shorten it',
      age: 40 * M,
      meta: { staleMinutes: 60, phase: 'setup' },
      state: 'RUNNING',
    },
  ] as const)('$name', ({ age, meta, state }) => {
    expect(assess(both(ago(age)), record({ meta }), NOW, T).state).toBe(state);
  });

  it('names the override behind a timeout in the reason', () => {
    const phase = assess(both(ago(46 * M)), record({ meta: { phase: 'checkpointing' } }), NOW, T);
    expect(phase.reason).toBe('no heartbeat for 46m (threshold 45m, phase checkpointing)');
    const run = assess(both(ago(6 * M)), record({ meta: { staleMinutes: 5 } }), NOW, T);
    expect(run.reason).toBe('no heartbeat for 6m (threshold 5m, stale_minutes)');
  });

  it('startup grace: exactly at the grace is PENDING, 1 ms past is TIMED_OUT', () => {
    const pending = record({ state: 'PENDING' });
    expect(assess(listed({ log: NOW }, ago(15 * M)), pending, NOW, T).state).toBe('PENDING');
    expect(assess(listed({ log: NOW }, ago(15 * M + 1)), pending, NOW, T).state).toBe('TIMED_OUT');
  });

  it('a fresh run is RUNNING under every threshold', () => {
    expect(assess(both(NOW), fresh, NOW, T).state).toBe('RUNNING');
  });
});

describe('assess: stall', () => {
  const fresh = listed({ metadata: ago(1 * M), progress: ago(1 * M) });

  it('exactly at the stall threshold is not a stall; 1 ms past is', () => {
    const at = (since: number) =>
      assess(fresh, knowing(ago(1 * M), { facts: { stepAdvancedAt: ago(since) } }), NOW, T);
    expect(at(30 * M).state).toBe('RUNNING');
    expect(at(30 * M + 1).state).toBe('STALLED');
  });

  it('an unknown step never stalls', () => {
    const known = record({
      facts: { stepAdvancedAt: ago(60 * M), etags: { progress: obj('progress', ago(1 * M)).etag } },
    });
    expect(assess(fresh, known, NOW, T).state).toBe('RUNNING');
  });

  it('a changed ETag bounds the unchanged time by the last write (the step may have moved)', () => {
    const known = knowing(ago(40 * M), { facts: { stepAdvancedAt: ago(40 * M) } });
    expect(known.facts.etags.progress).not.toBe(fresh.files.progress!.etag);
    expect(assess(fresh, known, NOW, T).state).toBe('RUNNING');
  });

  it('a current ETag without stepAdvancedAt falls back to the last write', () => {
    const known = knowing(ago(1 * M), { facts: { stepAdvancedAt: undefined } });
    expect(assess(fresh, known, NOW, T).state).toBe('RUNNING');
  });

  it('a changed ETag whose last write is older than the threshold is a stall', () => {
    // stale_minutes above the stall threshold: progress.json is fresh enough but has not moved for 35m.
    const run = listed({ metadata: ago(1 * M), progress: ago(35 * M) });
    const known = knowing(ago(50 * M), { meta: { staleMinutes: 60 } });
    expect(assess(run, known, NOW, T).state).toBe('STALLED');
  });

  it('a phase threshold also delays the stall', () => {
    const run = (age: number) => listed({ metadata: ago(1 * M), progress: ago(age) });
    const known = (age: number) => knowing(ago(age), { meta: { phase: 'checkpointing' } });
    expect(assess(run(44 * M), known(44 * M), NOW, T).state).toBe('RUNNING');
    const stalled = assess(run(46 * M), known(46 * M), NOW, T);
    expect(stalled.state).toBe('STALLED');
    expect(stalled.reason).toContain('threshold 45m');
  });
});

describe('assess: RESTARTING', () => {
  const issued = ago(5 * M);
  const restarting = (overrides: RecordOverrides = {}) =>
    record({ state: 'RESTARTING', restartIssuedAt: issued, attempt: 2, ...overrides });

  it('waits for a heartbeat newer than the restart, ignoring the old _error', () => {
    const run = listed({ metadata: ago(20 * M), progress: ago(20 * M), error: ago(19 * M) });
    const v = assess(run, restarting({ facts: { errorMessage: 'old failure' } }), NOW, T);
    expect(v.state).toBe('RESTARTING');
    expect(v.reason).toBe("waiting for attempt 2's first heartbeat (restart issued 5m ago)");
  });

  it('a heartbeat written exactly at the restart is not newer', () => {
    const run = listed({ metadata: issued });
    expect(assess(run, restarting(), NOW, T).state).toBe('RESTARTING');
  });

  it('leaves RESTARTING once a heartbeat is newer than the restart', () => {
    const run = listed({ metadata: issued + 1, progress: ago(20 * M), error: ago(19 * M) });
    expect(assess(run, restarting(), NOW, T).state).not.toBe('RESTARTING');
    expect(assess(run, restarting(), NOW, T).state).not.toBe('FAILED');
  });

  it('fails on an _error newer than the restart', () => {
    const run = listed({ metadata: ago(20 * M), error: issued + 1 });
    const v = assess(run, restarting({ facts: { errorMessage: 'new failure' } }), NOW, T);
    expect(v).toMatchObject({ state: 'FAILED', reason: 'new failure' });
  });

  it('times out after the startup grace (exactly at it still waits)', () => {
    const run = listed({ metadata: ago(30 * M) });
    expect(assess(run, restarting({ restartIssuedAt: ago(15 * M) }), NOW, T).state).toBe('RESTARTING');
    const v = assess(run, restarting({ restartIssuedAt: ago(15 * M + 1) }), NOW, T);
    expect(v.state).toBe('TIMED_OUT');
    expect(v.reason).toMatch(/attempt 2 never sent a heartbeat/);
  });

  it("ignores an earlier attempt's _error after the run has left RESTARTING", () => {
    const run = listed({ metadata: ago(1 * M), error: ago(20 * M) });
    expect(assess(run, record({ state: 'RUNNING', restartIssuedAt: issued }), NOW, T).state).toBe('RUNNING');
  });

  it('fails the run on an _error written after the current attempt started', () => {
    const run = listed({ metadata: ago(1 * M), error: ago(1 * M) });
    expect(assess(run, record({ state: 'RUNNING', restartIssuedAt: issued }), NOW, T).state).toBe('FAILED');
  });

  it("does not stall a restarted run on the previous attempt's progress.json", () => {
    // Attempt 2 beats, but has not written progress yet; attempt 1's progress is old.
    const run = listed({ metadata: ago(1 * M), progress: ago(40 * M) });
    const known = record({
      state: 'RUNNING',
      restartIssuedAt: issued,
      facts: { step: 500, stepAdvancedAt: NOW - 40 * M },
    });
    expect(assess(run, known, NOW, T).state).toBe('RUNNING');
  });
});

describe('effectiveThresholds', () => {
  it.each([
    { meta: undefined, stale: 10, stall: 30, why: 'default' },
    { meta: { staleMinutes: 20 }, stale: 20, stall: 30, why: 'stale_minutes' },
    { meta: { staleMinutes: 0.5 }, stale: 0.5, stall: 30, why: 'stale_minutes' },
    { meta: { phase: 'setup' }, stale: 30, stall: 30, why: 'phase setup' },
    { meta: { phase: 'checkpointing' }, stale: 45, stall: 45, why: 'phase checkpointing' },
    { meta: { phase: 'checkpointing', staleMinutes: 50 }, stale: 50, stall: 30, why: 'stale_minutes' },
    { meta: { phase: 'checkpointing', staleMinutes: 20 }, stale: 45, stall: 45, why: 'phase checkpointing' },
    { meta: { phase: 'toString' }, stale: 10, stall: 30, why: 'default' },
  ])('$meta → stale $stale m, stall $stall m ($why)', ({ meta, stale, stall, why }) => {
    const e = effectiveThresholds(T, meta);
    expect(e).toMatchObject({ staleAfterMs: stale * M, stallAfterMs: stall * M, why });
    expect(e.stuckAfterMs).toBeUndefined(); // explicit thresholds: nothing learned
  });
});

describe('alertsOn', () => {
  it('never alerts on PENDING; RUNNING only as a recovery; every other entry alerts', () => {
    for (const from of [undefined, ...ALL_STATES]) {
      expect(alertsOn(from, 'PENDING')).toBe(false);
      expect(alertsOn(from, 'RUNNING')).toBe(from !== undefined && from !== 'PENDING' && from !== 'RUNNING');
      for (const to of ALL_STATES.filter((s) => s !== 'PENDING' && s !== 'RUNNING'))
        expect(alertsOn(from, to)).toBe(true);
    }
  });
});

describe('assess: a restart racing the old process', () => {
  const issued = NOW - 5 * M;
  it('stays RESTARTING while the heartbeats come from the old attempt', () => {
    const run = listed({ metadata: NOW - M });
    const known = record({ state: 'RESTARTING', attempt: 2, restartIssuedAt: issued, meta: { attempt: 1 } });
    expect(assess(run, known, NOW, T).state).toBe('RESTARTING');
  });
  it('recovers once metadata names the new attempt', () => {
    const run = listed({ metadata: NOW - M });
    const known = record({ state: 'RESTARTING', attempt: 2, restartIssuedAt: issued, meta: { attempt: 2 } });
    expect(assess(run, known, NOW, T).state).toBe('RUNNING');
  });
});
