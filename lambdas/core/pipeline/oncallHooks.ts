import type { RunRecord } from '../model/record.js';
import { finishGroups, finishSilences } from '../oncall/finish.js';
import type { RunOutcome } from './checkRun.js';
import type { CheckDeps } from './deps.js';
import type { SweepSummary } from './summary.js';

/** The sweep's deps with this sweep's silences and grouping collector (unchanged without on-call). */
export async function startSweep<D extends CheckDeps>(deps: D): Promise<D> {
  if (!deps.oncall) return deps;
  const loaded = await deps.oncall.silences.list();
  return { ...deps, oncall: { ...deps.oncall, loaded, collector: [] } };
}

/** After every run is checked: grouped alerts, then silence summaries; their counts join the summary. */
export async function finishSweep(
  deps: CheckDeps,
  summary: SweepSummary,
  before: ReadonlyMap<string, RunRecord>,
  outcomes: readonly RunOutcome[],
  now: number,
): Promise<SweepSummary> {
  const oncall = deps.oncall;
  if (!oncall) return summary;
  const d = { ...deps, oncall };
  const g = await finishGroups(d, now);
  // The runs as this sweep left them: the stored record with the state the check came to.
  const after = outcomes.map((o) => {
    const r = before.get(o.runId);
    return r ? { ...r, state: o.state } : undefined;
  });
  const s = await finishSilences(
    d,
    after.filter((r): r is RunRecord => r !== undefined),
    now,
  );
  return {
    ...summary,
    alertsSent: summary.alertsSent + g.delivered + s.delivered,
    alertsFailed: summary.alertsFailed + g.failed + s.failed,
    errors: [...summary.errors, ...g.errors, ...s.errors],
    oncall: { groups: g.groups, grouped: g.grouped, summaries: s.summaries },
  };
}
