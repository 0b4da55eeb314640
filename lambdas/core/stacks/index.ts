// Stacks of a stuck node (protocol v1.2): where each node's training thread waits, and which node is the
// odd one out. Read by the sweep for runs in or entering STALLED, by remediation for its culprit.
export {
  type HangFamily,
  type NodeStackInput,
  type StackVerdict,
  stackVerdict,
  trainingWait,
} from './verdict.js';
export { describeWait, signature, WAIT_KINDS, type Wait, type WaitKind, waitOf } from './wait.js';
