import type { KnownMetadata } from './record.js';

/** Global thresholds (configuration); a run may override staleness, a phase may lengthen it. */
export interface Thresholds {
  readonly staleAfterMs: number;
  readonly stallAfterMs: number;
  readonly startupGraceMs: number;
  /** A longer stale threshold while `phase` is e.g. `checkpointing` or `setup`. */
  readonly phaseStaleAfterMs: Readonly<Record<string, number>>;
}

/** The thresholds that apply to one run now. */
export interface Effective {
  readonly staleAfterMs: number;
  readonly stallAfterMs: number;
  readonly why: string;
}

/** Run override (`stale_minutes`) first, then the phase's longer threshold, which also delays stall. */
export function effectiveThresholds(t: Thresholds, meta: KnownMetadata | undefined): Effective {
  let stale = t.staleAfterMs;
  let why = 'default';
  if (meta?.staleMinutes !== undefined) {
    stale = meta.staleMinutes * 60_000;
    why = 'stale_minutes';
  }
  const phaseMs = meta?.phase ? t.phaseStaleAfterMs[meta.phase] : undefined;
  if (phaseMs !== undefined && phaseMs > stale) {
    return {
      staleAfterMs: phaseMs,
      stallAfterMs: Math.max(t.stallAfterMs, phaseMs),
      why: `phase ${meta!.phase}`,
    };
  }
  return { staleAfterMs: stale, stallAfterMs: t.stallAfterMs, why };
}
