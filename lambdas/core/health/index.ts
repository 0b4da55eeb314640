export { PAGES } from './findings.js';
export { formatRate, formatUtc, median } from './format.js';
export { type HealthInput, type HealthJudgement, judgeHealth } from './judge.js';
export {
  effectiveHealthSettings,
  HEALTH_METADATA_FIELDS,
  type HealthOverrides,
  healthOverrides,
} from './overrides.js';
export {
  DEFAULT_HEALTH_SETTINGS,
  HEALTH_ENV,
  type HealthSettings,
  parseHealthEnv,
  parsePercent,
} from './settings.js';
export { type HealthStatus, healthStatus } from './status.js';
export {
  HEALTH_FINDING_KINDS,
  HEALTH_METRICS,
  type HealthFinding,
  type HealthFindingKind,
  type HealthState,
  type NodeObservation,
  nodeObservation,
  type ProgressObservation,
  type RateUnit,
} from './types.js';
