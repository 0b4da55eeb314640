import { withFinding } from '../model/findings.js';
import type { RunFiles } from '../model/listing.js';
import { type RunRecord, withFacts } from '../model/record.js';
import { HEALTH_FINDING_KINDS } from '../model/slices/health.js';
import type { ParsedNodes } from '../nodes/observe.js';
import { judgeHealth } from './judge.js';
import { effectiveHealthSettings } from './overrides.js';
import type { HealthSettings } from './settings.js';
import { type NodeObservation, nodeObservation } from './types.js';

/** What one sweep read of a run that the health rules need. */
export interface HealthReadings {
  /** progress.json was read this sweep (its step is in the record). */
  readonly progressRead: boolean;
  /** Node bodies read this sweep, parsed. */
  readonly nodes: ParsedNodes;
  /** The run still beats (RUNNING or WARNING before the health rules). */
  readonly alive: boolean;
  /** When the current attempt started (a restart), if it did. */
  readonly boundary?: number;
}

/**
 * Runs the health rules for one run in one sweep and folds the result into the record: the compact
 * state (`health`) and one finding per paging kind (`health.<kind>`), which makes the run `WARNING`
 * like any other finding and clears with the next judgement that no longer sees it. Pure.
 */
export function applyHealth(
  known: RunRecord,
  run: RunFiles,
  r: HealthReadings,
  now: number,
  global: HealthSettings,
): RunRecord {
  const settings = effectiveHealthSettings(global, known.meta?.health);
  const at = new Map((run.nodes ?? []).map((n) => [n.rank, n.lastModified]));
  const nodes: NodeObservation[] = [];
  for (const [rank, p] of r.nodes) if (p?.ok) nodes.push(nodeObservation(p.value, at.get(rank) ?? now));
  const progress =
    r.progressRead && known.facts.step !== undefined && run.files.progress
      ? { at: run.files.progress.lastModified, step: known.facts.step }
      : undefined;
  const j = judgeHealth({
    state: known.facts.health,
    attempt: known.attempt,
    attemptStartedAt: r.boundary ?? known.firstSeenAt,
    alive: r.alive,
    phase: known.meta?.phase,
    progress,
    nodes: nodes.length ? nodes : undefined,
    expectedNodes: known.meta?.nodes ?? known.facts.nodesExpected,
    now,
    settings,
  });
  let findings = known.facts.findings;
  for (const kind of HEALTH_FINDING_KINDS) {
    const f = j.findings.find((x) => x.kind === kind && x.page);
    findings = withFinding(findings, `health.${kind}`, f?.text);
  }
  return withFacts(known, { health: j.state, findings });
}
