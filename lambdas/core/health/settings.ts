import { parseDuration } from '../duration.js';
import { ConfigError } from '../errors.js';

/** Thresholds of the health rules (throughput drop, straggler, idle GPUs); one global set, per-run overrides. */
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

/** `30%`, `30 %` or `0.3` → 0.3; undefined unless strictly between 0 and 1. */
export function parsePercent(text: string | number): number | undefined {
  if (typeof text === 'number') return text > 0 && text < 1 ? text : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(text);
  if (!m) return undefined;
  const f = m[2] ? Number(m[1]) / 100 : Number(m[1]);
  return f > 0 && f < 1 ? f : undefined;
}

/** Environment variables of the health settings (stack config sets the same names on the Lambdas). */
export const HEALTH_ENV = {
  throughputDrop: 'TRAINWATCH_THROUGHPUT_DROP',
  telemetryEveryMs: 'TRAINWATCH_TELEMETRY_EVERY',
  idleGpuAfterMs: 'TRAINWATCH_IDLE_GPU_AFTER',
  warmupMs: 'TRAINWATCH_HEALTH_WARMUP',
  stragglerRatio: 'TRAINWATCH_STRAGGLER_RATIO',
  excludedPhases: 'TRAINWATCH_HEALTH_EXCLUDED_PHASES',
  enabled: 'TRAINWATCH_HEALTH_CHECKS',
} as const;

/** Parses the health settings from an environment-like record (pure); throws ConfigError naming a bad one. */
export function parseHealthEnv(env: Readonly<Record<string, string | undefined>>): HealthSettings {
  const raw = (k: keyof typeof HEALTH_ENV) => env[HEALTH_ENV[k]]?.trim() || undefined;
  const bad = (k: keyof typeof HEALTH_ENV, want: string) =>
    new ConfigError(`${HEALTH_ENV[k]}=${JSON.stringify(raw(k))} is not ${want}`, { name: HEALTH_ENV[k] });
  const d = DEFAULT_HEALTH_SETTINGS;
  const dur = (k: 'telemetryEveryMs' | 'idleGpuAfterMs' | 'warmupMs', fallback: number) => {
    const r = raw(k);
    if (r === undefined) return fallback;
    const ms = parseDuration(r);
    if (ms === undefined) throw bad(k, 'a duration (use e.g. 5m, 15m)');
    return ms;
  };
  const drop = raw('throughputDrop');
  const throughputDrop = drop === undefined ? d.throughputDrop : parsePercent(drop);
  if (throughputDrop === undefined) throw bad('throughputDrop', 'a percentage between 0 and 100 (e.g. 30%)');
  const ratio = raw('stragglerRatio');
  const stragglerRatio = ratio === undefined ? d.stragglerRatio : Number(ratio);
  if (!(stragglerRatio > 1 && stragglerRatio <= 10))
    throw bad('stragglerRatio', 'a ratio above 1 (e.g. 1.3)');
  const phases = raw('excludedPhases');
  const enabled = raw('enabled');
  if (enabled !== undefined && !/^(true|false|on|off)$/i.test(enabled)) throw bad('enabled', 'true or false');
  return {
    ...d,
    throughputDrop,
    telemetryEveryMs: dur('telemetryEveryMs', d.telemetryEveryMs),
    idleGpuAfterMs: dur('idleGpuAfterMs', d.idleGpuAfterMs),
    warmupMs: dur('warmupMs', d.warmupMs),
    stragglerRatio,
    excludedPhases:
      phases === undefined
        ? d.excludedPhases
        : phases
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
    enabled: enabled === undefined ? d.enabled : /^(true|on)$/i.test(enabled),
  };
}
