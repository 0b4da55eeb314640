import type { DetailedClassification } from '../classify/index.js';
import type { NodeFindings } from '../nodes/culprit.js';
import type { Decision, Probe } from './policy/index.js';

const VERB: Readonly<Record<Decision['action'], string>> = {
  restart: 'restart',
  alert: 'no restart',
  give_up: 'gave up',
};

/** The alert's detail lines: error type, diagnosis summary, the decision and its reason (DESIGN: Alerts). */
export function remediationDetails(
  c: Pick<DetailedClassification, 'error_type' | 'signal' | 'fields'>,
  probe: Probe,
  decision: Decision,
  problems: readonly string[],
  nodes?: NodeFindings,
): string[] {
  const fields = Object.entries(c.fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const lines = [
    c.error_type
      ? `error type: ${c.error_type} (signal ${c.signal}${fields ? `; ${fields}` : ''})`
      : 'error type: unknown (no signal matched)',
  ];
  if (nodes) lines.push(nodes.culprit ? `culprit: ${nodes.headline}` : `nodes: ${nodes.headline}`);
  for (const s of nodes?.suspects.slice(1, 4) ?? []) lines.push(`also: ${s.label}: ${s.evidence}`);
  if (probe.ok) for (const l of probe.summary.lines.slice(0, 6)) lines.push(`diagnosis: ${l}`);
  else lines.push(`diagnosis unavailable: ${probe.finding}`);
  lines.push(`decision: ${VERB[decision.action]} — ${decision.reason}`);
  for (const p of problems) lines.push(`note: ${p}`);
  return lines;
}
