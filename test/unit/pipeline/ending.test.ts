import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import { endingStamp, revived, stayLive } from '../../../lambdas/core/pipeline/ending.js';
import { splitPoints } from '../../../lambdas/core/pipeline/ranges.js';
import { record } from '../../support/fakes.js';

const H = 3_600_000;
const NOW = 100 * H;
const S = { endedAfterMs: H };
const silence = (scope: object, endsAt: number, summary?: object) =>
  ({
    id: 's1',
    scope,
    reason: 'x',
    by: 'me',
    createdAt: 0,
    endsAt,
    ...(summary ? { summary } : {}),
  }) as never;

describe('stayLive: a run ends only when nothing more can happen to it', () => {
  const ended = (o: Partial<RunRecord>) => record({ state: 'SUCCEEDED', since: NOW - 2 * H, ...o });
  it.each<[string, RunRecord, string | undefined]>([
    ['SUCCEEDED past the grace', ended({}), undefined],
    ['FAILED past the grace', ended({ state: 'FAILED' }), undefined],
    ['TIMED_OUT past the grace', ended({ state: 'TIMED_OUT' }), undefined],
    ['RUNNING', ended({ state: 'RUNNING' }), 'RUNNING can still change'],
    ['STALLED', ended({ state: 'STALLED' }), 'STALLED can still change'],
    ['RESTARTING', ended({ state: 'RESTARTING' }), 'RESTARTING can still change'],
    ['PENDING', ended({ state: 'PENDING' }), 'PENDING can still change'],
    ['SUCCEEDED within the grace', ended({ since: NOW - H + 1 }), 'within the grace period'],
    [
      'an alert still in the outbox',
      ended({ outbox: { a: { pending: ['slack'] } as never } }),
      'an alert is waiting for delivery',
    ],
    ['a restart lock held', ended({ locks: { restart: { owner: 'x', until: NOW + 1 } } }), 'a lock is held'],
    ['an expired lock', ended({ locks: { restart: { owner: 'x', until: NOW - 1 } } }), undefined],
    [
      'its last check failed',
      ended({ backoff: { failures: 1, until: NOW, error: 'x' } }),
      'its last check failed',
    ],
  ])('%s', (_, r, why) => {
    expect(stayLive(r, NOW, S)).toBe(why);
  });

  it('keeps an unacknowledged FAILED or TIMED_OUT run while reminders are on, not a SUCCEEDED one', () => {
    const on = { ...S, remindEveryMs: H };
    expect(stayLive(ended({ state: 'FAILED' }), NOW, on)).toBe('reminders continue until it is acknowledged');
    expect(stayLive(ended({ state: 'TIMED_OUT' }), NOW, on)).toBe(
      'reminders continue until it is acknowledged',
    );
    expect(stayLive(ended({}), NOW, on)).toBeUndefined();
    const acked = ended({
      state: 'FAILED',
      ack: { by: 'maria', at: NOW - H, state: 'FAILED', since: NOW - 2 * H },
    });
    expect(stayLive(acked, NOW, on)).toBeUndefined();
  });

  it('keeps a run whose alerts a silence holds, or is about to summarise', () => {
    const r = ended({ state: 'FAILED' });
    expect(stayLive(r, NOW, S, { loaded: [silence({ kind: 'run', runId: 'r1' }, NOW + H)] })).toBe(
      'a silence holds its alerts',
    );
    expect(stayLive(r, NOW, S, { loaded: [silence({ kind: 'all' }, NOW - 1)] })).toBe(
      'a silence holds its alerts',
    );
    expect(
      stayLive(r, NOW, S, { loaded: [silence({ kind: 'all' }, NOW - 1, { sent: true })] }),
    ).toBeUndefined();
    expect(
      stayLive(r, NOW, S, { loaded: [silence({ kind: 'run', runId: 'other' }, NOW + H)] }),
    ).toBeUndefined();
  });
});

describe('an ending', () => {
  it('is named by when the run entered its final state, sortable and without colons', () => {
    expect(endingStamp(record({ since: Date.UTC(2026, 10, 27, 9, 5, 7, 42) }))).toBe(
      '2026-11-27T090507.042Z',
    );
  });

  it('forgets, when a new attempt brings the run back, what it knew of the last attempt, and keeps the rest', () => {
    const r = revived(
      record({
        state: 'SUCCEEDED',
        version: 9,
        attempt: 3,
        ended: { at: 1, folder: 'f/', files: 4 },
        backoff: { failures: 1, until: 2, error: 'e' },
        locks: { restart: { owner: 'o', until: 3 } },
        facts: {
          etags: { metadata: '"a"' },
          step: 1000,
          totalSteps: 2000,
          loss: 1.5,
          learningRate: 3e-4,
          lastLogLine: 'step 1000',
          errorMessage: 'boom',
          stepAdvancedAt: 5,
          progressCheckedAt: 6,
          firstStep: 1,
          firstStepAt: 2,
          findings: { x: 'y' },
          nodes: { '0': { lastSeen: 4 } },
          nodesExpected: 2,
          cadence: { attempt: 3, p99s: [1], gapS: 0.5, calls: 100, everyS: 60 },
          stacks: { attempt: 3, etags: {}, text: 't', suspects: [], family: 'hang', waits: {} },
          health: { attempt: 3, rate: { base: [], recent: [] } },
        },
        ack: { by: 'me', at: 1, since: 0, state: 'SUCCEEDED' },
      }),
    );
    expect(r).toEqual(
      record({
        state: 'SUCCEEDED',
        version: 9,
        attempt: 3,
        ack: { by: 'me', at: 1, since: 0, state: 'SUCCEEDED' },
      }),
    );
    expect(r.facts).toStrictEqual({ etags: {} });
  });
});

describe('splitPoints: LIST ranges of at most ~8 pages', () => {
  const runs = (n: number, nodes = 0) =>
    Array.from({ length: n }, (_, i) =>
      record({
        runId: `run-${String(i).padStart(6, '0')}`,
        facts: { nodes: Object.fromEntries(Array.from({ length: nodes }, (_, k) => [k, {}])) as never },
      }),
    );
  it('lists a fleet of 1,000 single-node runs as one range: no request more than before', () => {
    expect(splitPoints(runs(1000))).toEqual([]);
  });
  it('splits 10,000 runs into 5 ranges at run ids, in order', () => {
    const split = splitPoints(runs(10_000).reverse());
    expect(split).toEqual(['run-002000', 'run-004000', 'run-006000', 'run-008000']);
  });
  it('counts node files: 1,000 runs of 16 nodes split into 3', () => {
    expect(splitPoints(runs(1000, 16))).toHaveLength(2);
  });
});
