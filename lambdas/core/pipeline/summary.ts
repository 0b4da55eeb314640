import { HEALTH_FINDING_KINDS } from '../model/slices/health.js';
import { ALL_STATES, type RunState } from '../model/states.js';
import type { RunOutcome } from './runOutcome.js';

/** What one sweep saw and did. */
export interface SweepSummary {
  readonly at: number;
  readonly runs: number;
  readonly byState: Record<RunState, number>;
  readonly transitions: readonly { runId: string; from?: RunState; to: RunState }[];
  readonly alertsSent: number;
  readonly alertsFailed: number;
  readonly conflicts: number;
  readonly writes: number;
  readonly skipped: number;
  /** Runs this sweep ended: their files left the swept prefix and their records the live set. */
  readonly ended: number;
  readonly errors: readonly { runId: string; error: string }[];
  readonly ignoredKeys: readonly { key: string; problem: string }[];
  /** Runs with each active health finding (the dashboard's degraded-runs graph). */
  readonly degraded: Readonly<Record<string, number>>;
  /** Grouped alerts and silence summaries sent at the end of the sweep (on-call lifecycle). */
  readonly oncall?: { groups: number; grouped: number; summaries: number };
}

/** Summarises outcomes; shared by the sweep and the sentinel. */
export function summarise(
  at: number,
  outcomes: readonly RunOutcome[],
  ignoredKeys: SweepSummary['ignoredKeys'] = [],
): SweepSummary {
  const byState = Object.fromEntries(ALL_STATES.map((s) => [s, 0])) as Record<RunState, number>;
  for (const o of outcomes) byState[o.state]++;
  const degraded: Record<string, number> = Object.fromEntries(HEALTH_FINDING_KINDS.map((k) => [k, 0]));
  for (const o of outcomes) for (const k of o.degraded ?? []) degraded[k] = (degraded[k] ?? 0) + 1;
  return {
    at,
    runs: outcomes.length,
    byState,
    transitions: outcomes
      .filter((o) => o.transitioned)
      .map((o) => ({ runId: o.runId, from: o.from, to: o.state })),
    alertsSent: outcomes.reduce((n, o) => n + o.delivered, 0),
    alertsFailed: outcomes.reduce((n, o) => n + o.failed, 0),
    conflicts: outcomes.filter((o) => o.conflict).length,
    writes: outcomes.filter((o) => o.wrote).length,
    skipped: outcomes.filter((o) => o.skipped).length,
    ended: outcomes.filter((o) => o.ended).length,
    errors: outcomes.filter((o) => o.error !== undefined).map((o) => ({ runId: o.runId, error: o.error! })),
    ignoredKeys,
    degraded,
  };
}
