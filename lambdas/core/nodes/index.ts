export { type NodeObject, type NodeSummaries, type NodeSummary, nodeLabel } from '../model/slices/nodes.js';
export { judgeNodes, type NodeFreshnessInput, type NodeVerdict } from './freshness.js';
