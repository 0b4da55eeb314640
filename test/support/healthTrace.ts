// A tiny clocked driver for the health rules: one sweep a minute (or a `tick`), node and progress bodies read
// once per telemetry period (as the sweep does), the trace saying what the run's files hold at each tick.
import {
  DEFAULT_HEALTH_SETTINGS,
  type HealthFinding,
  type HealthJudgement,
  type HealthSettings,
  type HealthState,
  judgeHealth,
  type NodeObservation,
} from '../../lambdas/core/health/index.js';

export const MIN = 60_000;
/** 12:00 UTC: attempt start of every trace. */
export const START = Date.UTC(2026, 10, 23, 12, 0, 0);

export interface Minute {
  readonly phase?: string;
  /** The run's step at this minute (progress.json), for steps/s. */
  readonly step?: number;
  readonly nodes?: readonly Omit<NodeObservation, 'at'>[];
  readonly alive?: boolean;
}

export interface Event {
  readonly minute: number;
  readonly raised: readonly HealthFinding[];
  readonly cleared: readonly { kind: string; text: string }[];
  readonly judgement: HealthJudgement;
}

/** Drives `minutes` sweeps; `at(m)` says what the files hold at minute m after START. */
export function trace(
  minutes: number,
  at: (m: number) => Minute,
  settings: Partial<HealthSettings> = {},
  opts: {
    attempt?: (m: number) => { attempt: number; startedAt: number };
    /** Minutes between reads (default: the telemetry period). */
    readEvery?: number;
    /** Minutes between the files' writes: a read between two writes sees the same file again. */
    writtenEvery?: number;
    /** Milliseconds between sweeps (default a minute): every count above is in ticks, `Event.minute` too. */
    tick?: number;
  } = {},
): { events: Event[]; last: HealthJudgement; state?: HealthState } {
  const s = { ...DEFAULT_HEALTH_SETTINGS, ...settings };
  const tick = opts.tick ?? MIN;
  const every = opts.readEvery ?? Math.max(1, Math.round(s.telemetryEveryMs / tick));
  let state: HealthState | undefined;
  let last: HealthJudgement | undefined;
  const events: Event[] = [];
  for (let m = 1; m <= minutes; m++) {
    const now = START + m * tick;
    const x = at(m);
    const read = m % every === 0;
    const w = opts.writtenEvery ?? 1;
    const written = START + Math.floor(m / w) * w * tick;
    const { attempt, startedAt } = opts.attempt?.(m) ?? { attempt: 1, startedAt: START };
    const j = judgeHealth({
      state,
      attempt,
      attemptStartedAt: startedAt,
      alive: x.alive ?? true,
      phase: x.phase ?? 'training',
      progress: read && x.step !== undefined ? { at: now, step: x.step } : undefined,
      nodes: read ? x.nodes?.map((n) => ({ ...n, at: written })) : undefined,
      expectedNodes: x.nodes?.length,
      now,
      settings: s,
    });
    state = j.state;
    last = j;
    if (j.raised.length || j.cleared.length)
      events.push({ minute: m, raised: j.raised, cleared: j.cleared, judgement: j });
  }
  return { events, last: last!, state };
}

/** `count` nodes, each with its share of `tokensPerS` and GPUs busy. */
export function nodes(
  count: number,
  tokensPerS: number,
  override: (rank: number) => Partial<Omit<NodeObservation, 'at'>> = () => ({}),
): Omit<NodeObservation, 'at'>[] {
  return Array.from({ length: count }, (_, rank) => ({
    rank,
    instanceId: `i-0abc${rank}`,
    tokensPerS: tokensPerS / count,
    stepTimeS: 1.4,
    gpuUtil: Array.from({ length: 8 }, (_, index) => ({ index, util: 97 })),
    ...override(rank),
  }));
}

/** A seeded uniform in [-1, 1): jitter that is the same on every run of the tests. */
export function jitter(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return (a / 2 ** 32) * 2 - 1;
  };
}
