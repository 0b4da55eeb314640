import { describe, expect, it } from 'vitest';
import { CADENCE_READS, learnCadence } from '../../../lambdas/core/detection/cadence.js';
import { showsBusy, showsHang } from '../../../lambdas/core/detection/evidence.js';
import {
  describeThresholds,
  effectiveThresholds,
  type Thresholds,
} from '../../../lambdas/core/detection/thresholds.js';
import type { RunFiles } from '../../../lambdas/core/model/listing.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import type { Cadence } from '../../../lambdas/core/model/slices/cadence.js';
import type { NodeSummary } from '../../../lambdas/core/model/slices/nodes.js';
import type { StackSummary, Wait } from '../../../lambdas/core/model/slices/stacks.js';
import { assess } from '../../../lambdas/core/pipeline/evaluate.js';
import { listed, obj, type RecordOverrides, record } from '../../support/fakes.js';

const S = 1000;
const M = 60 * S;
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
/** Nothing configured: what a user gets by default (learned, 10m / 30m until a history). */
const DEFAULTS: Thresholds = { startupGraceMs: 15 * M, phaseStaleAfterMs: { checkpointing: 30 * M } };
const EXPLICIT: Thresholds = { ...DEFAULTS, staleAfterMs: 10 * M, stallAfterMs: 30 * M };

const cadence = (p99: number, over: Partial<Cadence> = {}): Cadence => ({
  attempt: 1,
  p99s: [p99],
  gapS: p99 / 3,
  calls: 500,
  everyS: 60,
  ...over,
});

const node = (over: Partial<NodeSummary>): NodeSummary => ({ lastSeen: NOW - S, readAt: NOW, ...over });

describe('learnCadence: the run’s own pace, from the node bodies read anyway', () => {
  const paced = node({ gapS: 1.2, gapP99S: 3.1, calls: 512, everyS: 60 });

  it('learns from the nodes read now: the largest p99 and gap, the fewest calls, the longest writer interval', () => {
    const c = learnCadence(
      undefined,
      { 0: paced, 1: node({ gapS: 1.3, gapP99S: 4, calls: 200, everyS: 30 }) },
      1,
      NOW,
    );
    expect(c).toEqual({ attempt: 1, p99s: [4], gapS: 1.3, calls: 200, everyS: 60 });
  });

  it('learns nothing from nodes read earlier, without pace (an older client), or with too few calls yet', () => {
    const prev = cadence(2);
    const nodes = {
      0: { ...paced, readAt: NOW - M },
      1: node({ everyS: 60 }),
      2: node({ gapS: 1, gapP99S: 2, calls: 19, everyS: 60 }),
    };
    expect(learnCadence(prev, nodes, 1, NOW)).toBe(prev);
    expect(learnCadence(undefined, nodes, 1, NOW)).toBeUndefined();
  });

  it('keeps the last reads only, and starts afresh for a new attempt', () => {
    let c: Cadence | undefined;
    for (let i = 1; i <= CADENCE_READS + 2; i++)
      c = learnCadence(c, { 0: node({ ...paced, gapP99S: i, readAt: NOW + i }) }, 1, NOW + i);
    expect(c!.p99s).toEqual([3, 4, 5, 6, 7, 8]);
    expect(learnCadence(c, {}, 2, NOW)).toBeUndefined();
    expect(learnCadence(c, { 0: paced }, 2, NOW)!.p99s).toEqual([3.1]);
  });
});

describe('effectiveThresholds: explicit, phase, learned, fixed', () => {
  it.each([
    { name: 'no history: the fixed defaults', t: DEFAULTS, c: undefined, stuck: undefined, stale: 10 * M },
    { name: 'fast steps: the floors', t: DEFAULTS, c: cadence(3), stuck: 2 * M, stale: 150 * S },
    { name: '60 s steps, p99 100 s: 3 × p99', t: DEFAULTS, c: cadence(100), stuck: 300 * S, stale: 150 * S },
    {
      name: 'slow steps: at most 7m (before a 10-minute NCCL watchdog)',
      t: DEFAULTS,
      c: cadence(700),
      stuck: 7 * M,
      stale: 150 * S,
    },
    {
      name: 'fast writers: the stale floor',
      t: DEFAULTS,
      c: cadence(3, { everyS: 5 }),
      stuck: 2 * M,
      stale: 2 * M,
    },
    { name: 'explicit thresholds win', t: EXPLICIT, c: cadence(3), stuck: undefined, stale: 10 * M },
    {
      name: 'another attempt’s cadence',
      t: DEFAULTS,
      c: cadence(3, { attempt: 2 }),
      stuck: undefined,
      stale: 10 * M,
    },
  ])('$name', ({ t, c, stuck, stale }) => {
    const e = effectiveThresholds(t, undefined, c, 1);
    expect(e.stuckAfterMs).toBe(stuck);
    expect(e.staleAfterMs).toBe(stale);
    expect(e.stallAfterMs).toBe(30 * M);
  });

  it('a phase keeps its longer allowance, and the run’s stale_minutes wins over learning', () => {
    const phase = effectiveThresholds(DEFAULTS, { phase: 'checkpointing' }, cadence(3), 1);
    expect(phase).toMatchObject({ staleAfterMs: 30 * M, stallAfterMs: 30 * M, why: 'phase checkpointing' });
    expect(phase.stuckAfterMs).toBeUndefined();
    expect(effectiveThresholds(DEFAULTS, { staleMinutes: 20 }, cadence(3), 1)).toMatchObject({
      staleAfterMs: 20 * M,
      why: 'stale_minutes',
    });
  });

  it('says what is in force and why', () => {
    expect(describeThresholds(effectiveThresholds(DEFAULTS, undefined, cadence(3.1, { gapS: 1.2 }), 1))).toBe(
      'stall 2m when the stacks show a hang (learned: this run steps every 1.2s (p99 3.1s)), else 30m; stale 2m 30s (learned: its writers beat every 1m)',
    );
    expect(describeThresholds(effectiveThresholds(DEFAULTS, undefined, undefined, 1))).toBe(
      'stall 30m (fixed until the run has a history); stale 10m',
    );
  });
});

const w = (
  kind: Wait['kind'],
  moving?: boolean,
  call = kind === 'collective' ? 'all_reduce' : kind,
): Wait => ({
  kind,
  call,
  at: 'train.py:88',
  ...(moving === undefined ? {} : { moving }),
});
const stacks = (
  waits: StackSummary['waits'],
  suspects: number[] = [],
  text = 'the stacks',
): StackSummary => ({
  attempt: 1,
  etags: {},
  text,
  suspects,
  family: 'hang',
  waits,
});

describe('showsHang / showsBusy: what the stacks say of a still step', () => {
  it.each([
    [
      'a data loader blocks while the others wait',
      stacks({ 0: w('collective'), 1: w('data_loader') }, [1]),
      true,
      false,
    ],
    [
      'a frozen node while the others wait',
      stacks({ 0: w('collective'), 1: 'no stack; its heartbeat stopped 3m ago' }, [1]),
      true,
      false,
    ],
    ['every node waits in a collective', stacks({ 0: w('collective'), 1: w('collective') }), true, false],
    [
      'rank 0 saves, the others wait at the barrier',
      stacks({ 0: w('checkpoint_io', false), 1: w('collective') }, [0]),
      false,
      true,
    ],
    [
      'rank 0 evaluates, the others wait',
      stacks({ 0: w('running', true), 1: w('collective') }, [0]),
      false,
      true,
    ],
    [
      'an odd one out in its data loader, but moving',
      stacks({ 0: w('collective'), 1: w('data_loader', true) }, [1]),
      false,
      true,
    ],
    ['every node evaluates (moving)', stacks({ 0: w('cuda', true), 1: w('data_loader', true) }), false, true],
    ['one node: a deadlock', stacks({ 0: w('lock') }), true, false],
    ['one node: its data loader, not moving', stacks({ 0: w('data_loader', false) }), true, false],
    ['one node: its data loader, motion unknown (thin)', stacks({ 0: w('data_loader') }), false, false],
    ['one node: evaluating (moving)', stacks({ 0: w('data_loader', true) }), false, true],
    ['one node: a long save', stacks({ 0: w('checkpoint_io', false) }), false, true],
    ['no stacks', undefined, false, false],
  ] as const)('%s', (_name, s, hang, busy) => {
    expect(showsHang(s)).toBe(hang);
    expect(showsBusy(s)).toBe(busy);
  });
});

/** A two-node run at step 100 whose progress.json was last written `stillFor` ago; node files fresh. */
function still(stillFor: number, over: RecordOverrides = {}, nodesAt = NOW - 20 * S): [RunFiles, RunRecord] {
  const progressAt = NOW - stillFor;
  const run: RunFiles = {
    ...listed({ metadata: NOW - 20 * S, progress: progressAt }, NOW - 5 * 60 * M),
    nodes: [0, 1].map((rank) => ({ rank, lastModified: nodesAt, etag: `"n${rank}"`, size: 300 })),
  };
  const known = record({
    firstSeenAt: NOW - 5 * 60 * M,
    ...over,
    facts: {
      step: 100,
      stepAdvancedAt: progressAt,
      etags: { progress: obj('progress', progressAt).etag },
      cadence: cadence(3.1, { gapS: 1.2 }),
      ...over.facts,
    },
  });
  return [run, known];
}

const hang = stacks(
  { 0: w('collective'), 1: w('data_loader') },
  [1],
  "node 1's data loader is the likely cause",
);

describe('assess on the defaults: a still step', () => {
  it('is STALLED after the learned threshold when the stacks show a hang, saying which threshold and why', () => {
    const [run, known] = still(2 * M + 40 * S, { facts: { stacks: hang } });
    const v = assess(run, known, NOW, DEFAULTS);
    expect(v.state).toBe('STALLED');
    expect(v.reason).toBe(
      "step 100 has not advanced for 2m 40s (threshold 2m, learned: this run steps every 1.2s (p99 3.1s)) while heartbeats are fresh; node 1's data loader is the likely cause",
    );
    expect(v.cause).toBe('stacks');
  });

  it('is not STALLED before the learned threshold, nor without evidence (no stacks: the fixed 30m holds)', () => {
    expect(assess(...still(110 * S, { facts: { stacks: hang } }), NOW, DEFAULTS).state).toBe('RUNNING');
    expect(assess(...still(20 * M), NOW, DEFAULTS).state).toBe('RUNNING');
    expect(assess(...still(31 * M), NOW, DEFAULTS).reason).toMatch(
      /^step 100 has not advanced for 31m \(threshold 30m\)/,
    );
  });

  it('holds off while the stacks show the training thread at work (an evaluation without a phase), up to 4 fixed stalls', () => {
    const busy = stacks({ 0: w('running', true), 1: w('collective') }, [0]);
    expect(assess(...still(45 * M, { facts: { stacks: busy } }), NOW, DEFAULTS).state).toBe('RUNNING');
    expect(assess(...still(121 * M, { facts: { stacks: busy } }), NOW, DEFAULTS).reason).toMatch(
      /threshold 2h, held while its stacks show the training thread at work/,
    );
    // An explicit threshold is the user's: no hold.
    expect(assess(...still(31 * M, { facts: { stacks: busy } }), NOW, EXPLICIT).state).toBe('STALLED');
  });

  it('explicit thresholds: the learned one never speaks', () => {
    expect(assess(...still(5 * M, { facts: { stacks: hang } }), NOW, EXPLICIT).state).toBe('RUNNING');
  });

  it('a still step is not a throughput WARNING: the stall rules own it (one alert, the one with the culprit)', () => {
    const stopped = { facts: { findings: { 'health.throughput_drop': 'throughput fell 100 % …' } } };
    expect(assess(...still(5 * M, stopped), NOW, DEFAULTS).state).toBe('RUNNING');
    expect(
      assess(...still(5 * M, { ...stopped, facts: { ...stopped.facts, stacks: hang } }), NOW, DEFAULTS).state,
    ).toBe('STALLED');
    // A slowdown while steps advance is still a WARNING.
    expect(assess(...still(10 * S, stopped), NOW, DEFAULTS).state).toBe('WARNING');
  });

  it('learned: a progress.json written by the steps is not a stale heartbeat on its own', () => {
    expect(assess(...still(9 * M), NOW, DEFAULTS).state).toBe('RUNNING');
    expect(assess(...still(11 * M), NOW, EXPLICIT).reason).toMatch(/^progress.json not updated for 11m/);
  });
});

describe('assess on the defaults: the culprit in every stuck state', () => {
  it('FAILED by the job’s own timeout says what the stacks said before', () => {
    const [run, known] = still(3 * M, {
      facts: { stacks: hang, errorMessage: 'RuntimeError: … Timed out waiting 150000ms' },
    });
    const v = assess(
      { ...run, files: { ...run.files, error: obj('error', NOW - 10 * S) } },
      known,
      NOW,
      DEFAULTS,
    );
    expect(v.state).toBe('FAILED');
    expect(v.reason).toBe(
      "RuntimeError: … Timed out waiting 150000ms; before it failed: node 1's data loader is the likely cause",
    );
  });

  it('TIMED_OUT after the learned stale threshold names rank 0 when it froze with the run’s heartbeats', () => {
    const froze = NOW - 170 * S;
    const run: RunFiles = {
      ...listed({ metadata: froze, progress: froze }, NOW - 5 * 60 * M),
      nodes: [
        { rank: 0, lastModified: froze - 30 * S, etag: '"n0"', size: 300 },
        { rank: 1, lastModified: NOW - 20 * S, etag: '"n1"', size: 300 },
      ],
    };
    const known = record({
      facts: {
        step: 100,
        stepAdvancedAt: froze,
        etags: { progress: obj('progress', froze).etag },
        cadence: cadence(3),
      },
    });
    // Node 1 beats on and its stack waits for node 0: corroborated, told on the learned threshold.
    const waiting = stacks(
      { 0: 'no stack; its heartbeat stopped 3m ago', 1: w('collective') },
      [0],
      'node 1 waits in `all_reduce` (train.py:88); node 0: no stack; its heartbeat stopped 3m ago: node 0 is the likely cause (frozen whole, or gone)',
    );
    const v = assess(run, { ...known, facts: { ...known.facts, stacks: waiting } }, NOW, DEFAULTS);
    expect(v.state).toBe('TIMED_OUT');
    expect(v.reason).toBe(
      'no heartbeat for 2m 50s (threshold 2m 30s, learned: its writers beat every 1m); before it stopped: node 1 waits in `all_reduce` (train.py:88); node 0: no stack; its heartbeat stopped 3m ago: node 0 is the likely cause (frozen whole, or gone)',
    );
    // Without the stacks (rank 0's writes may just fail while the job trains on): the unlearned 10 minutes,
    // and node 0 is not "silent while the run still beats" meanwhile: its writer carries the run's heartbeats.
    expect(assess(run, known, NOW, DEFAULTS).state).toBe('RUNNING');
    const later = NOW + 8 * M;
    const still = { ...run, nodes: [run.nodes![0]!, { ...run.nodes![1]!, lastModified: later - 20 * S }] };
    expect(assess(still, known, later, DEFAULTS).reason).toBe(
      "no heartbeat for 10m 50s (threshold 10m); node 0 froze with the run's own heartbeats (its writer carries them) while node 1 still beats: node 0 is the likely cause",
    );
    // Every process gone (the job's watchdog aborted them all): nothing to single out.
    const gone = { ...run, nodes: run.nodes!.map((n) => ({ ...n, lastModified: froze })) };
    expect(assess(gone, known, later, DEFAULTS).reason).toBe('no heartbeat for 10m 50s (threshold 10m)');
  });
});
