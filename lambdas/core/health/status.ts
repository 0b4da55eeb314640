import type { HealthState } from '../model/slices/health.js';
import { findingsOf } from './findings.js';
import type { HealthSettings } from './settings.js';
import { baselineOf, RATE_UNITS } from './throughput.js';
import type { HealthFinding } from './types.js';

/** What `trainwatch status` shows of a run's health, from the stored state alone (no new readings). */
export interface HealthStatus {
  /** e.g. `23.1k tokens/s (baseline 48.2k)`, once a rate was measured. */
  readonly rate?: { readonly current?: number; readonly baseline?: number; readonly label: string };
  readonly findings: readonly HealthFinding[];
}

/** The stored health state as of `now` (idle GPU-hours keep growing between readings). Pure. */
export function healthStatus(h: HealthState | undefined, now: number, s: HealthSettings): HealthStatus {
  if (!h) return { findings: [] };
  const unit = h.rate.unit;
  return {
    ...(unit
      ? { rate: { current: h.current, baseline: baselineOf(h.rate, s), label: RATE_UNITS[unit] } }
      : {}),
    findings: h.on?.length ? findingsOf(h, now, s) : [],
  };
}
