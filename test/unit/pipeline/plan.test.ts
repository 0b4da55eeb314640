import { describe, expect, it } from 'vitest';
import type { Thresholds } from '../../../lambdas/core/detection/thresholds.js';
import type { RunFiles } from '../../../lambdas/core/model/listing.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import { planReads } from '../../../lambdas/core/pipeline/plan.js';
import type { RunFileName } from '../../../lambdas/core/protocol/files.js';
import { listed, type RecordOverrides, record } from '../../support/fakes.js';

const M = 60_000;
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const T: Thresholds = {
  staleAfterMs: 10 * M,
  stallAfterMs: 30 * M,
  startupGraceMs: 15 * M,
  phaseStaleAfterMs: { checkpointing: 45 * M },
};

/** A RUNNING run whose stored ETags match `run` (everything already read), then `overrides`. */
function upToDate(run: RunFiles, overrides: RecordOverrides = {}): RunRecord {
  const etags = Object.fromEntries(Object.entries(run.files).map(([k, o]) => [k, o.etag]));
  return record({
    ...overrides,
    facts: {
      etags,
      step: 10,
      stepAdvancedAt: NOW - 2 * M,
      progressCheckedAt: NOW - 2 * M,
      ...overrides.facts,
    },
  });
}

const plan = (run: RunFiles, known: RunRecord, now = NOW) => [...planReads(run, known, now, T)].sort();
const sorted = (...names: RunFileName[]) => names.sort();

describe('planReads', () => {
  const fresh = listed({ metadata: NOW - M, progress: NOW - M });

  it('reads nothing for a healthy run whose files it has read', () => {
    expect(plan(fresh, upToDate(fresh))).toEqual([]);
  });

  it('reads nothing for a healthy run whose progress changed but is not due', () => {
    const known = upToDate(fresh, { facts: { etags: {}, progressCheckedAt: NOW - 15 * M + 1 } });
    expect(plan(fresh, known)).toEqual([]);
  });

  it('reads metadata and progress of a run it has never stored', () => {
    const known = record({ version: 0, state: 'PENDING' });
    expect(plan(fresh, known)).toEqual(sorted('metadata', 'progress'));
  });

  it('reads only the files a new run has', () => {
    const known = record({ version: 0, state: 'PENDING' });
    expect(plan(listed({ metadata: NOW - M }), known)).toEqual(['metadata']);
  });

  it('reads a changed progress.json once half the stall threshold has passed since the last read', () => {
    const changed = (checked: number) =>
      upToDate(fresh, {
        facts: { etags: { metadata: fresh.files.metadata!.etag }, progressCheckedAt: checked },
      });
    expect(plan(fresh, changed(NOW - 15 * M))).toEqual(['progress']);
    expect(plan(fresh, changed(NOW - 15 * M + 1))).toEqual([]);
  });

  it('reads a changed progress.json it has never read', () => {
    const known = upToDate(fresh, {
      facts: { etags: { metadata: fresh.files.metadata!.etag }, progressCheckedAt: undefined },
    });
    expect(plan(fresh, known)).toEqual(['progress']);
  });

  it('does not read an unchanged progress.json even when due', () => {
    expect(plan(fresh, upToDate(fresh, { facts: { progressCheckedAt: NOW - 60 * M } }))).toEqual([]);
  });

  it('uses the phase stall threshold for the progress cadence', () => {
    const known = upToDate(fresh, {
      meta: { phase: 'checkpointing' },
      facts: { etags: { metadata: fresh.files.metadata!.etag }, progressCheckedAt: NOW - 20 * M },
    });
    expect(plan(fresh, known)).toEqual([]);
    expect(plan(fresh, { ...known, facts: { ...known.facts, progressCheckedAt: NOW - 23 * M } })).toEqual([
      'progress',
    ]);
  });

  it('a stall suspect forces a read of a changed progress.json before it is due', () => {
    const known = upToDate(fresh, {
      facts: {
        etags: { metadata: fresh.files.metadata!.etag },
        progressCheckedAt: NOW - M,
        stepAdvancedAt: NOW - 31 * M,
      },
    });
    expect(plan(fresh, known)).toEqual(['progress']);
  });

  it('on a candidate transition reads the changed heartbeats, not the unchanged ones', () => {
    // progress.json stopped 12m ago (WARNING in sight); metadata.json kept changing.
    const run = listed({ metadata: NOW - M, progress: NOW - 12 * M });
    const known = upToDate(run, {
      facts: { etags: { progress: run.files.progress!.etag }, progressCheckedAt: NOW - M },
    });
    expect(plan(run, known)).toEqual(['metadata']);
  });

  it('a new _error is read with the log tail', () => {
    const run = listed({ metadata: NOW - M, progress: NOW - M, error: NOW - M, log: NOW - M });
    const known = upToDate(fresh);
    expect(plan(run, known)).toEqual(sorted('error', 'log'));
  });

  it('a new _error without a log reads just the error', () => {
    const run = listed({ metadata: NOW - M, progress: NOW - M, error: NOW - M });
    expect(plan(run, upToDate(fresh))).toEqual(['error']);
  });

  it('an _error already read is not read again', () => {
    const run = listed({ metadata: NOW - M, error: NOW - 60 * M, log: NOW - 60 * M });
    expect(plan(run, upToDate(run, { state: 'FAILED' }))).toEqual([]);
  });

  it('a new _complete is read', () => {
    const run = listed({ metadata: NOW - M, progress: NOW - M, complete: NOW - M });
    expect(plan(run, upToDate(fresh))).toContain('complete');
  });

  it('a run degraded by a finding re-reads its changed heartbeats, so it can recover', () => {
    const known = upToDate(fresh, {
      state: 'WARNING',
      facts: {
        etags: {},
        progressCheckedAt: NOW - M,
        findings: { 'metadata.json': 'invalid heartbeat: metadata.json is empty' },
      },
    });
    expect(plan(fresh, known)).toEqual(sorted('metadata', 'progress'));
  });
});
