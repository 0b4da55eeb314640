// Remediation: diagnose a failed, stalled or timed-out run on its instance, decide by the restart policy,
// restart it if that is safe, and say what was done and why. Flow: remediate → assess (target, probe,
// classify) → verdict (policy) → restart or record (history) → one alert (details).

export type { JobCommand, RemediationEntry, RemediationState } from '../model/slices/remediation.js';
export {
  CULPRIT_KINDS,
  type Culprit,
  type CulpritKind,
  findCulprit,
  type NodeExamination,
  type NodeFindings,
} from './culprit.js';
export type { DiagnosisSummary } from './diagnosis/index.js';
export {
  DEFAULT_POLICY,
  type Decision,
  loadPolicy,
  POLICY_PRESETS,
  type Probe,
  type RestartPolicy,
} from './policy/index.js';
export { remediate } from './remediate.js';
export {
  batches,
  type NodeRestart,
  planNodeRestart,
  RESTART_TARGETS,
  type RestartPlan,
  type RestartTarget,
  SEND_COMMAND_MAX_TARGETS,
} from './restartPlan.js';
export type { RemediationTarget } from './target.js';
export type {
  DetailedClassifier,
  RemediationDeps,
  RemediationOutcome,
  RemediationRequest,
  RemediationSettings,
} from './types.js';
