// Stacks of a stuck node (protocol v1.2): where each node's training thread waits, and which node is the
// odd one out. Read by the sweep for a run whose step is still past a stall threshold (or that wrote an
// `_error`), by remediation for its culprit.

export { type HangFamily, WAIT_KINDS, type Wait, type WaitKind } from '../model/slices/stacks.js';
export { describeWait } from './describe.js';
export {
  type NodeStackInput,
  type StackVerdict,
  stackVerdict,
  trainingWait,
} from './verdict.js';
export { signature, waitOf } from './wait.js';
