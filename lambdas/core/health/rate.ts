import type { RateState, RateUnit } from '../model/slices/health.js';
import type { NodeObservation, ProgressObservation } from './types.js';

/** One telemetry period's rate: from the previous observation to this one. */
export interface RateSample {
  readonly from: number;
  readonly to: number;
  readonly rate: number;
}

/** What a rate is read from in this sweep (only bodies newly read). */
export interface RateReadings {
  readonly progress?: ProgressObservation;
  readonly nodes?: readonly NodeObservation[];
  /** Nodes the run should have (metadata.json `nodes`): a missing node file does not look like a drop. */
  readonly expectedNodes?: number;
}

const FINER: readonly RateUnit[] = ['tokens', 'samples', 'steps'];

interface Reading {
  readonly unit: RateUnit;
  readonly at: number;
  readonly rate?: number;
  readonly step?: number;
}

/**
 * The run's rate in a unit, if this sweep has it. Node rates are per node: the run's rate is their mean
 * times the node count, so one node file not read this period neither halves nor doubles it.
 */
function reading(r: RateReadings, unit: RateUnit): Reading | undefined {
  if (unit === 'steps') return r.progress && { unit, at: r.progress.at, step: r.progress.step };
  const pick = (o: { tokensPerS?: number; samplesPerS?: number }) =>
    unit === 'tokens' ? o.tokensPerS : o.samplesPerS;
  const nodes = (r.nodes ?? []).filter((n) => pick(n) !== undefined);
  if (nodes.length > 0) {
    const mean = nodes.reduce((s, n) => s + pick(n)!, 0) / nodes.length;
    const count = Math.max(r.expectedNodes ?? 0, new Set((r.nodes ?? []).map((n) => n.rank)).size);
    return { unit, at: Math.max(...nodes.map((n) => n.at)), rate: mean * count };
  }
  const p = r.progress && pick(r.progress);
  return p === undefined ? undefined : { unit, at: r.progress!.at, rate: p };
}

export interface RateContext {
  /** An excluded phase now: this period is not measured (nor the one it ends). */
  readonly excluded: boolean;
  /** Periods that start before this instant (the attempt's warm-up) are not measured. */
  readonly warmupEnd: number;
  /** A period longer than this (the run was not read for a while) is not measured. */
  readonly maxPeriodMs: number;
  /** The sweep's clock. */
  readonly now: number;
}

/**
 * A client's tokens/s or samples/s covers the time since its previous file (a node file is rewritten every
 * minute): one written this long after the last sweep that saw an excluded phase no longer covers the pause
 * (it may have lasted until the next sweep, a minute later, plus the file's minute). It only ever speeds
 * up the first reading after a pause: the one after it is clean whatever its time.
 */
export const PAUSE_SETTLE_MS = 2 * 60_000;

/**
 * Advances the rate state by this sweep's readings: returns the new state and, when a whole untainted
 * period ended, its rate. Pure. A finer unit than the one in use (tokens over samples over steps) resets
 * the baseline once; a coarser one is ignored, so alternating sources never mix units.
 */
export function measure(
  s: RateState,
  r: RateReadings,
  c: RateContext,
): { state: RateState; sample?: RateSample; reset?: boolean } {
  let state: RateState = c.excluded ? { ...s, taint: true, pausedAt: c.now, recent: [] } : s;
  const finer = FINER.slice(0, s.unit ? FINER.indexOf(s.unit) : FINER.length);
  const upgrade = finer.map((u) => reading(r, u)).find((x) => x !== undefined);
  const now = upgrade ?? (s.unit ? reading(r, s.unit) : undefined);
  if (!now) return { state };
  let reset = false;
  if (upgrade) {
    reset = s.unit !== undefined;
    state = {
      ...state,
      unit: upgrade.unit,
      base: [],
      recent: [],
      last: undefined,
      drop: undefined,
      cause: undefined,
    };
  }
  const last = state.last;
  if (last && now.at <= last.at) return { state, reset }; // the same observation again
  const next: RateState = {
    ...state,
    last: { at: now.at, step: now.step },
    // Only an observation made outside excluded phases starts a clean period.
    taint: c.excluded || undefined,
  };
  const rate =
    now.unit === 'steps'
      ? last?.step !== undefined && now.step! >= last.step
        ? (now.step! - last.step) / ((now.at - last.at) / 1000)
        : undefined
      : now.rate;
  // A period's steps/s is an average over it: the whole period must be clean. A node's rate covers its own
  // writer interval: clean once that began after the pause, whatever the period it ends.
  const clean =
    !state.taint ||
    (now.unit !== 'steps' && state.pausedAt !== undefined && now.at - state.pausedAt >= PAUSE_SETTLE_MS);
  const measurable =
    last !== undefined &&
    clean &&
    rate !== undefined &&
    last.at >= c.warmupEnd &&
    now.at - last.at <= c.maxPeriodMs;
  if (!measurable) return { state: { ...next, recent: [] }, reset };
  return { state: next, sample: { from: last.at, to: now.at, rate }, reset };
}
