import { HEALTH_FINDING_KINDS } from '../health/types.js';
import { mapLimit } from '../mapLimit.js';
import { finishSweep, startSweep } from '../oncall/sweepHooks.js';
import { ALL_STATES, type RunState } from '../states.js';
import { type CheckDeps, checkRun, type RunOutcome } from './checkRun.js';

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
    errors: outcomes.filter((o) => o.error !== undefined).map((o) => ({ runId: o.runId, error: o.error! })),
    ignoredKeys,
    degraded,
  };
}

/** One sweep: one LIST pass and one state scan, then every run checked with bounded concurrency. */
export async function sweep(
  deps: CheckDeps & { readonly concurrency: number },
  now: number,
): Promise<SweepSummary> {
  // on-call hook: silences read once per sweep; transitions collected for grouping
  const [listing, records, d] = await Promise.all([
    deps.runs.listRuns(),
    deps.states.loadAll(),
    startSweep(deps),
  ]);
  const outcomes = await mapLimit(listing.runs, deps.concurrency, (run) =>
    checkRun(d, run, records.get(run.runId), now),
  );
  const summary = summarise(now, outcomes, listing.ignored);
  // on-call hook: grouped alerts, then the summaries of silences that ended
  return finishSweep(d, summary, records, outcomes, now);
}
