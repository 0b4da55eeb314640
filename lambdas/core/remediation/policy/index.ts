export {
  backoffMs,
  crashLoop,
  type DecideInput,
  type Decision,
  decide,
  modeOf,
  type Probe,
  ruleAllows,
} from './decide.js';
export { loadPolicy } from './load.js';
export { DEFAULT_POLICY, POLICY_PRESETS } from './presets.js';
export {
  MODES,
  type Mode,
  type ModePolicy,
  PolicySchema,
  type RestartPolicy,
  type RestartPolicyInput,
} from './schema.js';
