// explain.js, not the index: the index brings the built-in profiles, which the remediation bundle loads lazily.
import { type Explainable, explain } from '../classify/explain.js';
import type { NodeFindings } from './culprit.js';
import type { Decision, Probe } from './policy/index.js';

const VERB: Readonly<Record<Decision['action'], string>> = {
  restart: 'restart',
  alert: 'no restart',
  give_up: 'gave up',
};

/**
 * The alert's detail lines: the classification explained (winner, its line, runners-up, the ordering rule: the
 * same text as `trainwatch classify --explain`), the diagnosis summary, the decision and its reason.
 */
export function remediationDetails(
  c: Explainable,
  probe: Probe,
  decision: Decision,
  problems: readonly string[],
  nodes?: NodeFindings,
  /** The error type's line when something other than the classifier decided it (a stalled run's stacks). */
  typedBy?: string,
): string[] {
  const lines = typedBy ? [typedBy] : explain(c);
  if (nodes) lines.push(nodes.culprit ? `culprit: ${nodes.headline}` : `nodes: ${nodes.headline}`);
  for (const s of nodes?.suspects.slice(1, 4) ?? []) lines.push(`also: ${s.label}: ${s.evidence}`);
  if (probe.ok) for (const l of probe.summary.lines.slice(0, 6)) lines.push(`diagnosis: ${l}`);
  else lines.push(`diagnosis unavailable: ${probe.finding}`);
  lines.push(`decision: ${VERB[decision.action]} — ${decision.reason}`);
  for (const p of problems) lines.push(`note: ${p}`);
  return lines;
}
