/**
 * Health of runs that still beat (issue 10): throughput against the run's own baseline, straggler nodes,
 * idle GPUs, data-bound nodes. Pure; the sweep calls `judgeHealth` once per run per sweep with the run
 * item's `health` state and whatever bodies it read this sweep (`nodeObservation(parsed, LastModified)` for
 * each node file, `{ at, step }` for progress.json), stores the returned state, alerts `raised` findings
 * with `page`, sends a recovery for `cleared` ones, and keeps `findings` under their `key`. docs/HEALTH.md.
 */

export { formatRate, formatUtc, median } from '../base/format.js';
export {
  HEALTH_FINDING_KINDS,
  type HealthFindingKind,
  type HealthOverrides,
  type HealthState,
  type RateUnit,
} from '../model/slices/health.js';
export { PAGES } from './findings.js';
export { type HealthInput, type HealthJudgement, judgeHealth } from './judge.js';
export {
  effectiveHealthSettings,
  HEALTH_METADATA_FIELDS,
  healthOverrides,
} from './overrides.js';
export { DEFAULT_HEALTH_SETTINGS, type HealthSettings, parsePercent } from './settings.js';
export { type HealthStatus, healthStatus } from './status.js';
export { applyHealth, type HealthReadings } from './sweepStep.js';
export {
  HEALTH_METRICS,
  type HealthFinding,
  type NodeObservation,
  nodeObservation,
  type ProgressObservation,
} from './types.js';
