import { mapLimit } from '../base/mapLimit.js';
import type { RunFiles } from '../model/listing.js';
import type { StateStore } from '../model/ports.js';
import type { RunRecord } from '../model/record.js';
import { checkRun, type RunOutcome } from './checkRun.js';
import type { CheckDeps } from './deps.js';
import { ENDING_STATES, type EndingSettings, endRun, revived, stayLive } from './ending.js';
import { finishSweep, startSweep } from './oncallHooks.js';
import { splitPoints } from './ranges.js';
import { outcome } from './runOutcome.js';
import { type SweepSummary, summarise } from './summary.js';
/** What a sweep needs beyond checking runs: how many at once, and when a run ends (absent: never). */
export type SweepDeps = CheckDeps & { readonly concurrency: number; readonly ending?: EndingSettings };

/**
 * A stored record that is not live (the run ended) for a run whose folder has files again: a new attempt
 * (or a late `_error`/`_complete`) brings it back into the live set first. Undefined: no record (a new run);
 * null: another writer brought it back first (it will check the run; we must not).
 */
export async function bringBack(
  states: StateStore,
  stored: RunRecord | undefined,
): Promise<RunRecord | undefined | null> {
  if (!stored?.ended) return stored;
  const next = { ...revived(stored), version: stored.version + 1 };
  return (await states.revive(next, stored.version)) ? next : null;
}

/**
 * Ends a run when nothing more can happen to it (pipeline/ending.ts): its files (`seen`: as the sweep
 * listed them; none left: undefined) leave the swept prefix and its record the live set.
 */
async function endIfDue(
  d: SweepDeps,
  o: RunOutcome,
  r: RunRecord,
  now: number,
  seen?: RunFiles,
): Promise<RunOutcome> {
  if (!d.ending || stayLive(r, now, d.ending, d.oncall) !== undefined) return o;
  try {
    const ended = await endRun(d, r, now, seen);
    return ended === 'ended' ? { ...o, ended: true } : ended === 'conflict' ? { ...o, conflict: true } : o;
  } catch (e) {
    // The files that moved are safe in the ended folder; the rest, and the record, are retried next sweep.
    return { ...o, error: `ending the run failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * A live run with no file left under its prefix. One that had finished ends (its files moved already,
 * or were deleted); any other is checked as a run with no files, so a restart that never produced a
 * heartbeat times out and a running run whose folder vanished goes TIMED_OUT, with its alert.
 */
async function folderGone(d: SweepDeps, r: RunRecord, now: number): Promise<RunOutcome> {
  if (!ENDING_STATES.has(r.state))
    return checkRun(d, { runId: r.runId, files: {}, firstSeenAt: r.firstSeenAt }, r, now);
  return endIfDue(d, outcome(r), r, now);
}

/**
 * One sweep: the live runs from the state table (never the ended ones it keeps), their files from LIST
 * ranges run in parallel; a listed run the live set lacks is new, or an ended run a new attempt brought
 * back. Every run is checked with bounded concurrency; runs with nothing left to do end.
 */
export async function sweep(deps: SweepDeps, now: number): Promise<SweepSummary> {
  // on-call hook: silences read once per sweep; transitions collected for grouping
  const [live, d] = await Promise.all([deps.states.loadLive(), startSweep(deps)]);
  // Listed after the live set was read: a live run with no files listed has none left.
  const listing = await deps.runs.listRuns(splitPoints(live.values()));
  const unknown = listing.runs.filter((r) => !live.has(r.runId)).map((r) => r.runId);
  const notLive = unknown.length ? await deps.states.find(unknown) : new Map<string, RunRecord>();
  const outcomes = await mapLimit(listing.runs, deps.concurrency, async (run) => {
    const stored = live.get(run.runId) ?? (await bringBack(deps.states, notLive.get(run.runId)));
    if (stored === null) return { ...outcome(notLive.get(run.runId)!), conflict: true };
    const o = await checkRun(d, run, stored, now);
    // Only a check that changed nothing may end the run: what it wrote or lost is for the next sweep.
    const quiet = !o.wrote && !o.conflict && o.error === undefined && !o.skipped;
    return stored && stored.version > 0 && quiet ? endIfDue(d, o, stored, now, run) : o;
  });
  // Live runs whose folder is empty: moved by an ending whose record write failed, deleted, or expired.
  const listed = new Set(listing.runs.map((r) => r.runId));
  const gone = deps.ending ? [...live.values()].filter((r) => !listed.has(r.runId)) : [];
  const goneOutcomes = await mapLimit(gone, deps.concurrency, (r) => folderGone(d, r, now));
  const summary = summarise(now, [...outcomes, ...goneOutcomes], listing.ignored);
  // on-call hook: grouped alerts, then the summaries of silences that ended
  return finishSweep(d, summary, new Map([...notLive, ...live]), outcomes, now);
}
