import { parseDuration } from '../base/duration.js';
import type { HealthOverrides } from '../model/slices/health.js';
import { type HealthSettings, parsePercent } from './settings.js';

/** The `metadata.json` field of each override (documented in docs/HEALTH.md). */
export const HEALTH_METADATA_FIELDS = {
  throughputDrop: 'throughput_drop',
  idleGpuAfterMs: 'idle_gpu_after',
  stragglerRatio: 'straggler_ratio',
  warmupMs: 'health_warmup',
  enabled: 'health_checks',
} as const;

/** `"30m"`, `"90s"` or a number of minutes (as `stale_minutes` is). */
function minutesOrDuration(v: unknown): number | undefined {
  if (typeof v === 'number') return v > 0 && v <= 7 * 24 * 60 ? Math.round(v * 60_000) : undefined;
  return typeof v === 'string' ? parseDuration(v) : undefined;
}

/** `"40%"`, `0.4` or `40` (a number from 1 up is read as percent). */
function fraction(v: unknown): number | undefined {
  if (typeof v === 'number') return v >= 1 ? parsePercent(`${v}%`) : parsePercent(v);
  return typeof v === 'string' ? parsePercent(v) : undefined;
}

/**
 * Reads the health overrides of one run from its parsed `metadata.json` (unknown fields are kept by the
 * schema). Never throws: a bad value is left out and named in `problems`, one line each.
 */
export function healthOverrides(meta: Readonly<Record<string, unknown>> | undefined): {
  overrides: HealthOverrides;
  problems: string[];
} {
  const out: { -readonly [K in keyof HealthOverrides]: HealthOverrides[K] } = {};
  const problems: string[] = [];
  if (!meta) return { overrides: out, problems };
  const take = <K extends keyof HealthOverrides>(
    key: K,
    parse: (v: unknown) => HealthOverrides[K] | undefined,
    want: string,
  ) => {
    const field = HEALTH_METADATA_FIELDS[key];
    const v = meta[field];
    if (v === undefined || v === null) return;
    const parsed = parse(v);
    if (parsed === undefined)
      problems.push(`metadata.json: ${field}=${JSON.stringify(v).slice(0, 40)} is not ${want}: ignored`);
    else out[key] = parsed;
  };
  take('throughputDrop', fraction, 'a percentage between 0 and 100 (e.g. "40%")');
  take('idleGpuAfterMs', minutesOrDuration, 'a duration (e.g. "30m") or a number of minutes');
  take(
    'stragglerRatio',
    (v) => (typeof v === 'number' && v > 1 && v <= 10 ? v : undefined),
    'a ratio above 1 (e.g. 1.5)',
  );
  take('warmupMs', minutesOrDuration, 'a duration (e.g. "20m") or a number of minutes');
  take('enabled', (v) => (typeof v === 'boolean' ? v : undefined), 'true or false');
  return { overrides: out, problems };
}

/** The settings that apply to one run: the global ones, with what the run's metadata.json overrides. */
export function effectiveHealthSettings(
  global: HealthSettings,
  o: HealthOverrides | undefined,
): HealthSettings {
  if (!o) return global;
  return {
    ...global,
    throughputDrop: o.throughputDrop ?? global.throughputDrop,
    idleGpuAfterMs: o.idleGpuAfterMs ?? global.idleGpuAfterMs,
    stragglerRatio: o.stragglerRatio ?? global.stragglerRatio,
    warmupMs: o.warmupMs ?? global.warmupMs,
    enabled: o.enabled ?? global.enabled,
  };
}
