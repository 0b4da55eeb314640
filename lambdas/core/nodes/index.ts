export { type NodeObject, type NodeSummaries, type NodeSummary, nodeLabel } from '../model/slices/nodes.js';
export {
  CULPRIT_KINDS,
  type Culprit,
  type CulpritKind,
  findCulprit,
  type NodeExamination,
  type NodeFindings,
} from '../remediation/culprit.js';
export {
  batches,
  type NodeRestart,
  planNodeRestart,
  RESTART_TARGETS,
  type RestartPlan,
  type RestartTarget,
  SEND_COMMAND_MAX_TARGETS,
} from '../remediation/restartPlan.js';
export { judgeNodes, type NodeFreshnessInput, type NodeVerdict } from './freshness.js';
