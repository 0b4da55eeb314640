import { formatDuration } from '../base/duration.js';
import type { KnownMetadata } from '../model/record.js';
import type { Cadence } from '../model/slices/cadence.js';
import { usualP99S } from './cadence.js';

/**
 * Global thresholds (configuration). Stale and stall are learned from each run when unset (the fixed
 * values below hold until the run has a history); a run may override staleness, a phase may lengthen both.
 */
export interface Thresholds {
  /** A heartbeat older than this is stale; undefined: learned from the run (FIXED until it has a history). */
  readonly staleAfterMs?: number;
  /** `step` not advancing this long: STALLED; undefined: learned from the run (FIXED until it has a history). */
  readonly stallAfterMs?: number;
  readonly startupGraceMs: number;
  /** A longer stale threshold while `phase` is e.g. `checkpointing` or `setup`. */
  readonly phaseStaleAfterMs: Readonly<Record<string, number>>;
}

const MIN = 60_000;
/** What holds where nothing is set and the run has no history yet (and for runs that report no cadence). */
export const FIXED = { staleAfterMs: 10 * MIN, stallAfterMs: 30 * MIN } as const;
/**
 * Learned from the run: a stall is 3 of its usual longest gaps between progress() calls (its p99), at
 * least 2 minutes and at most 7 (the stacks already show the hang, and a 10-minute NCCL watchdog is near);
 * a node or heartbeat is silent after 2.5 of its writer's intervals, at least 2 minutes.
 */
export const LEARNED = {
  stallTimesP99: 3,
  stallFloorMs: 2 * MIN,
  stallCeilingMs: 7 * MIN,
  staleTimesEvery: 2.5,
  staleFloorMs: 2 * MIN,
};
/** A training thread its stacks show busy (an evaluation without a phase) is not stalled before this many fixed stalls. */
export const BUSY_STALLS = 4;

/** The thresholds that apply to one run now, and why (the alert and `status RUN` say it). */
export interface Effective {
  readonly staleAfterMs: number;
  /** STALLED without other evidence (explicit, fixed, or a phase's). */
  readonly stallAfterMs: number;
  /** Learned: STALLED this soon when the stacks or the nodes show a hang. */
  readonly stuckAfterMs?: number;
  /** Whether the stall threshold is the default (the stacks may then hold off a busy thread's stall). */
  readonly stallDefault: boolean;
  /** Why the stale threshold is what it is (`default`, `stale_minutes`, `phase checkpointing`, `learned: …`). */
  readonly why: string;
  /** The stale threshold and its why before learning: what holds for a multi-node run's silence without evidence. */
  readonly unlearned?: { readonly staleAfterMs: number; readonly why: string };
  /** The learned stall's why: "this run steps every 1.2s (p99 3.1s)". */
  readonly stuckWhy?: string;
}

const secs = (s: number) => (s < 10 ? `${Number(s.toPrecision(2))}s` : formatDuration(s * 1000));

/**
 * Explicit settings first (configuration, the run's `stale_minutes`), then a phase's longer threshold (which
 * also delays the stall), then what the run's cadence teaches, then the fixed defaults.
 */
export function effectiveThresholds(
  t: Thresholds,
  meta: KnownMetadata | undefined,
  cadence?: Cadence,
  attempt?: number,
): Effective {
  const stall = t.stallAfterMs ?? FIXED.stallAfterMs;
  const phaseMs = meta?.phase ? t.phaseStaleAfterMs[meta.phase] : undefined;
  let stale = t.staleAfterMs ?? FIXED.staleAfterMs;
  let why = 'default';
  if (meta?.staleMinutes !== undefined) {
    stale = meta.staleMinutes * 60_000;
    why = 'stale_minutes';
  }
  if (phaseMs !== undefined && phaseMs > stale)
    return {
      staleAfterMs: phaseMs,
      stallAfterMs: Math.max(stall, phaseMs),
      stallDefault: t.stallAfterMs === undefined,
      why: `phase ${meta!.phase}`,
    };
  const learned = cadence && (attempt === undefined || cadence.attempt === attempt) ? cadence : undefined;
  let stuck: Pick<Effective, 'stuckAfterMs' | 'stuckWhy'> = {};
  if (learned && t.stallAfterMs === undefined) {
    const p99 = usualP99S(learned);
    const ms = Math.min(
      LEARNED.stallCeilingMs,
      Math.max(LEARNED.stallFloorMs, Math.round(LEARNED.stallTimesP99 * p99 * 1000)),
    );
    if (ms < stall)
      stuck = { stuckAfterMs: ms, stuckWhy: `this run steps every ${secs(learned.gapS)} (p99 ${secs(p99)})` };
  }
  const unlearned = { staleAfterMs: stale, why };
  if (learned?.everyS && t.staleAfterMs === undefined && why === 'default') {
    const ms = Math.max(LEARNED.staleFloorMs, Math.round(LEARNED.staleTimesEvery * learned.everyS * 1000));
    if (ms < stale) {
      stale = ms;
      why = `learned: its writers beat every ${secs(learned.everyS)}`;
    }
  }
  return {
    unlearned,
    staleAfterMs: stale,
    stallAfterMs: stall,
    stallDefault: t.stallAfterMs === undefined,
    why,
    ...stuck,
  };
}

/**
 * The thresholds for one judgement. A multi-node run's silence needs corroboration to be told on the learned
 * threshold (`corroborated`: its stacks show a hang — a dead or frozen node's peers wait for it): a node
 * whose writes fail while its job trains on (S3 trouble, a paused writer) keeps the unlearned one.
 */
export function forSilence(e: Effective, corroborated: boolean): Effective {
  return corroborated || !e.unlearned ? e : { ...e, ...e.unlearned };
}

/** The thresholds in force, one line (`status RUN`): "stall 2m when the stacks show a hang (learned: …), else 30m; stale 10m". */
export function describeThresholds(e: Effective): string {
  const stall = formatDuration(e.stallAfterMs);
  const stuck = e.stuckAfterMs
    ? `${formatDuration(e.stuckAfterMs)} when the stacks show a hang (learned: ${e.stuckWhy}), else ${stall}`
    : `${stall}${e.stallDefault ? ' (fixed until the run has a history)' : ''}`;
  return `stall ${stuck}; stale ${formatDuration(e.staleAfterMs)}${e.why === 'default' ? '' : ` (${e.why})`}`;
}
