export {
  causeRankOf,
  type Decision as RestartDecision,
  decisionOf,
  FAMILIES,
  familyOf,
} from './causes.js';
export {
  classify,
  classifyDetailed,
  type DetailedClassification,
  matchSignals,
  resolveProfile,
} from './classify.js';
export {
  ERROR_TYPES,
  isRestartable,
  NEEDS_OTHER_NODE,
  NOT_RESTARTABLE,
  RESTARTABLE,
} from './errorTypes.js';
export { compareMatches, type Explainable, explain, ORDER_RULE, orderRule } from './explain.js';
export { loadProfile } from './load.js';
export { DEFAULT_PROFILE, PROFILE_NAMES } from './names.js';
export { BUILTIN_PROFILES } from './profiles/index.js';
export { type Profile, SEVERITIES, type Severity, type Signal, type SignalInput } from './schema.js';
export type { Classification, SignalMatch } from './types.js';
