import type { HealthFindingKind, HealthState, RateUnit } from '../model/slices/health.js';
import { clearedSince, findingsOf } from './findings.js';
import { judgeIdle } from './idle.js';
import { measure } from './rate.js';
import { type HealthSettings, readingEveryMs } from './settings.js';
import { judgeStragglers } from './straggler.js';
import { baselineOf, judgeThroughput, RATE_UNITS } from './throughput.js';
import type { HealthFinding, NodeObservation, ProgressObservation } from './types.js';

/** What one sweep knows about one run; call it every sweep (it does no I/O), observations when read. */
export interface HealthInput {
  /** The run item's `health` attribute from the last judgement (undefined at first). */
  readonly state?: HealthState;
  readonly attempt: number;
  /** When the current attempt started (the run appeared, or its restart was issued): warm-up counts from it. */
  readonly attemptStartedAt: number;
  /** The run still beats (RUNNING or WARNING): nothing is judged, nor alerted, otherwise. */
  readonly alive: boolean;
  /** metadata.json `phase` now. */
  readonly phase?: string;
  /** progress.json, only in a sweep that read a new body. */
  readonly progress?: ProgressObservation;
  /** Node files read in this sweep (all of the run's that were read: rates and stragglers compare them). */
  readonly nodes?: readonly NodeObservation[];
  readonly expectedNodes?: number;
  readonly now: number;
  /** effectiveHealthSettings(global, the run's overrides). */
  readonly settings: HealthSettings;
}

export interface HealthJudgement {
  /** Store as the run item's `health` attribute. */
  readonly state: HealthState;
  /** Active findings now (texts refresh every sweep: GPU-hours grow), one per kind. */
  readonly findings: readonly HealthFinding[];
  /** Findings that became active in this sweep: alert these once (those with `page`). */
  readonly raised: readonly HealthFinding[];
  /** Kinds that recovered in this sweep, with a line for the recovery alert. */
  readonly cleared: readonly {
    readonly kind: HealthFindingKind;
    readonly text: string;
    readonly page: boolean;
  }[];
  /** For `trainwatch status`: the latest rate and the baseline, in `unit`. */
  readonly rate?: {
    readonly current?: number;
    readonly baseline?: number;
    readonly unit: RateUnit;
    readonly label: string;
  };
}

/** Drops the tracks of nodes not read for three reading periods (silent or gone: judgeNodes says so). */
function fresh<T extends { readonly seen: number }>(
  tracks: Readonly<Record<string, T>>,
  now: number,
  s: HealthSettings,
): Readonly<Record<string, T>> {
  return Object.fromEntries(Object.entries(tracks).filter(([, t]) => now - t.seen <= 3 * readingEveryMs(s)));
}

/**
 * The health rules for one run in one sweep: throughput against its own baseline, straggler nodes, idle
 * GPUs, data-bound nodes. Pure, time only from `now`. A new attempt starts afresh; excluded phases and
 * the warm-up are never judged (pending evidence is dropped, confirmed findings are held as they are).
 */
export function judgeHealth(i: HealthInput): HealthJudgement {
  const s = i.settings;
  const prev: HealthState =
    i.state && i.state.attempt === i.attempt
      ? i.state
      : { attempt: i.attempt, rate: { base: [], recent: [] } };
  if (!i.alive || !s.enabled) {
    const rate = { ...prev.rate, drop: undefined, cause: undefined, recent: [], taint: true };
    return {
      state: { ...prev, rate, stragglers: undefined, idle: undefined, on: undefined },
      findings: [],
      raised: [],
      cleared: [],
    };
  }
  const excluded = i.phase !== undefined && s.excludedPhases.includes(i.phase);
  const warmupEnd = i.attemptStartedAt + s.warmupMs;
  const progress =
    i.progress && (!prev.progress || i.progress.at > prev.progress.at)
      ? { at: i.progress.at, step: i.progress.step }
      : prev.progress;

  const nodes = (i.nodes ?? []).filter((n) => n.at >= warmupEnd);
  const m = measure(prev.rate, i, { excluded, warmupEnd, maxPeriodMs: 4 * readingEveryMs(s), now: i.now });
  const rate = m.sample ? judgeThroughput(m.state, m.sample, s, nodes) : m.state;
  const current = m.sample?.rate ?? (m.reset ? undefined : prev.current);

  let stragglers = prev.stragglers ?? {};
  let idle = prev.idle ?? {};
  if (excluded) {
    // GPUs rest while checkpointing: idle time so far does not count. Straggler counts only pause.
    idle = Object.fromEntries(Object.entries(idle).filter(([, t]) => i.now - t.since >= s.idleGpuAfterMs));
  } else if (nodes.length > 0) {
    // The first reading after a pause may still carry it (rank 0 saved the checkpoint): not a straggler.
    if (!prev.rate.taint) stragglers = fresh(judgeStragglers(stragglers, nodes, s), i.now, s);
    const notBefore = Math.max(warmupEnd, rate.pausedAt ?? Number.NEGATIVE_INFINITY);
    idle = fresh(judgeIdle(idle, nodes, progress, i.now, notBefore, s), i.now, s);
  }
  const nodeCount = Math.max(
    prev.nodes ?? 0,
    i.expectedNodes ?? 0,
    new Set(i.nodes?.map((n) => n.rank)).size,
  );

  const state: HealthState = {
    attempt: i.attempt,
    rate,
    ...(current !== undefined ? { current } : {}),
    ...(progress ? { progress } : {}),
    ...(nodeCount ? { nodes: nodeCount } : {}),
    ...(Object.keys(stragglers).length ? { stragglers } : {}),
    ...(Object.keys(idle).length ? { idle } : {}),
  };
  const findings = findingsOf(state, i.now, s);
  const on = findings.map((f) => f.kind);
  const was = prev.on ?? [];
  const unit = rate.unit;
  return {
    state: on.length ? { ...state, on } : state,
    findings,
    raised: findings.filter((f) => !was.includes(f.kind)),
    cleared: clearedSince(was, state, findings, s),
    ...(unit ? { rate: { current, baseline: baselineOf(rate, s), unit, label: RATE_UNITS[unit] } } : {}),
  };
}
