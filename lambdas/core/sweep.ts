import { type CheckDeps, checkRun, type RunOutcome } from './checkRun.js';
import { mapLimit } from './mapLimit.js';
import { ALL_STATES, type RunState } from './states.js';

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
}

/** Summarises outcomes; shared by the sweep and the sentinel. */
export function summarise(
  at: number,
  outcomes: readonly RunOutcome[],
  ignoredKeys: SweepSummary['ignoredKeys'] = [],
): SweepSummary {
  const byState = Object.fromEntries(ALL_STATES.map((s) => [s, 0])) as Record<RunState, number>;
  for (const o of outcomes) byState[o.state]++;
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
  };
}

/** One sweep: one LIST pass and one state scan, then every run checked with bounded concurrency. */
export async function sweep(
  deps: CheckDeps & { readonly concurrency: number },
  now: number,
): Promise<SweepSummary> {
  const [listing, records] = await Promise.all([deps.runs.listRuns(), deps.states.loadAll()]);
  const outcomes = await mapLimit(listing.runs, deps.concurrency, (run) =>
    checkRun(deps, run, records.get(run.runId), now),
  );
  return summarise(now, outcomes, listing.ignored);
}
