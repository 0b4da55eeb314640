/**
 * Thresholds of the health rules (throughput drop, straggler, idle GPUs); one global set, per-run overrides.
 * The user's settings are defined in lambdas/settings/registry.ts (`health`); the rest are fixed here.
 */
export interface HealthSettings {
  /** Fraction below the run's own baseline that counts as a drop (0.3 for `30%`). */
  readonly throughputDrop: number;
  /** How often node and progress bodies are read for telemetry; a rule needs two such periods. */
  readonly telemetryEveryMs: number;
  /** GPUs at or below `idleGpuUtil` for this long while the run is RUNNING are idle. */
  readonly idleGpuAfterMs: number;
  /** The first minutes of every attempt (compiling, loading data, ramping up) are never judged. */
  readonly warmupMs: number;
  /** A node whose step time is at least this many times the median of the others is a straggler. */
  readonly stragglerRatio: number;
  /** Utilisation (%) at or below which a GPU counts as idle. */
  readonly idleGpuUtil: number;
  /** Mean utilisation (%) of a node at or below which, while steps advance, the run is data-bound. */
  readonly lowGpuUtil: number;
  /** The span of the rolling median that is the run's baseline. */
  readonly baselineWindowMs: number;
  /** Phases never judged nor used for the baseline (`metadata.json` `phase`). */
  readonly excludedPhases: readonly string[];
  /** `false` turns every health rule off (a run may say `health_checks: false`). */
  readonly enabled: boolean;
}

export const DEFAULT_HEALTH_SETTINGS: HealthSettings = {
  throughputDrop: 0.3,
  telemetryEveryMs: 5 * 60_000,
  idleGpuAfterMs: 15 * 60_000,
  warmupMs: 10 * 60_000,
  stragglerRatio: 1.3,
  idleGpuUtil: 5,
  lowGpuUtil: 30,
  baselineWindowMs: 60 * 60_000,
  excludedPhases: ['setup', 'checkpointing', 'validation', 'evaluation', 'eval'],
  enabled: true,
};

/**
 * How far apart two readings of a node may be: a file is read at most once per telemetry period, and
 * written once per writer interval, which may be longer (the Python client's default is 1 minute; a short
 * telemetry period must not make every period look too long to measure, or every track stale).
 */
export const readingEveryMs = (s: HealthSettings): number => Math.max(s.telemetryEveryMs, 5 * 60_000);

/** `30%`, `30 %` or `0.3` → 0.3; undefined unless strictly between 0 and 1. */
export function parsePercent(text: string | number): number | undefined {
  if (typeof text === 'number') return text > 0 && text < 1 ? text : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!m) return undefined;
  const f = m[2] ? Number(m[1]) / 100 : Number(m[1]);
  return f > 0 && f < 1 ? f : undefined;
}
