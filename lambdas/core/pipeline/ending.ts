// Ending: a run that can no longer change state leaves what every sweep reads. Its files move out of the
// swept prefix (RunStore.moveToEnded) and then its record out of the live set (StateStore.end), in that
// order: a crash in between leaves a live record whose files are gone, which the next sweep ends.

import type { RunFiles } from '../model/listing.js';
import type { RunStore, StateStore } from '../model/ports.js';
import type { Flip, RunRecord } from '../model/record.js';
import { NO_FACTS } from '../model/slices/attempt.js';
import { RunState, UNHEALTHY } from '../model/states.js';
import { currentAck } from '../oncall/ack.js';
import type { Oncall } from '../oncall/route.js';
import { covers, isActive, needsSummary } from '../oncall/silence.js';

/** States a run ends in once they have lasted `endedAfterMs`: nothing but a new attempt changes them. */
export const ENDING_STATES: ReadonlySet<RunState> = new Set([
  RunState.SUCCEEDED,
  RunState.FAILED,
  RunState.TIMED_OUT,
]);

/** What deciding an ending needs. */
export interface EndingSettings {
  /** How long a run stays in an ending state, still swept, before it ends. */
  readonly endedAfterMs: number;
  /** Reminders on: an unacknowledged FAILED or TIMED_OUT run stays live until someone acknowledges it. */
  readonly remindEveryMs?: number;
}

/**
 * Why the run must stay live although its state could end, or undefined when it can end now. A run
 * ends only with nothing left to do: no alert waiting in its outbox, no lock (a restart under way), no
 * backoff, no reminder owed, and no silence holding (or about to summarise) its alerts.
 */
export function stayLive(
  r: RunRecord,
  now: number,
  s: EndingSettings,
  oncall?: Pick<Oncall, 'loaded'>,
): string | undefined {
  if (!ENDING_STATES.has(r.state)) return `${r.state} can still change`;
  if (now - r.since < s.endedAfterMs) return 'within the grace period';
  if (Object.keys(r.outbox ?? {}).length > 0) return 'an alert is waiting for delivery';
  if (Object.values(r.locks ?? {}).some((l) => l.until > now)) return 'a lock is held';
  if (r.backoff) return 'its last check failed';
  if (s.remindEveryMs !== undefined && UNHEALTHY.has(r.state) && !currentAck(r))
    return 'reminders continue until it is acknowledged';
  if ((oncall?.loaded ?? []).some((x) => covers(x, r) && (isActive(x, now) || needsSummary(x, now))))
    return 'a silence holds its alerts';
  return undefined;
}

/** The ended folder's name for one ending: when the run entered its final state, sortable, no colons. */
export function endingStamp(r: RunRecord): string {
  return new Date(r.since).toISOString().replace(/:/g, '');
}

/** What ending one run came to. */
export type EndResult = 'ended' | 'changed' | 'conflict';

/**
 * Ends one run: files first (each moved only while unchanged), then the record, conditional on the
 * version read. A writer that started a new attempt meanwhile keeps the run live (`changed`).
 */
export async function endRun(
  deps: { readonly runs: RunStore; readonly states: StateStore },
  r: RunRecord,
  now: number,
  seen?: RunFiles,
): Promise<EndResult> {
  const hasFiles = seen !== undefined;
  const moved = seen
    ? await deps.runs.moveToEnded(r.runId, endingStamp(r), seen)
    : { folder: '', moved: 0, changed: [] };
  if (moved.changed.length > 0) return 'changed';
  const ended = { at: now, folder: moved.folder, files: moved.moved };
  const flip: Flip = {
    runId: r.runId,
    from: r.state,
    to: r.state,
    reason: hasFiles
      ? `ended: ${moved.moved} file(s) moved to ${moved.folder}`
      : 'ended: no files left under the run prefix',
    at: now,
    attempt: r.attempt,
    version: r.version + 1,
  };
  return (await deps.states.end(r, ended, flip)) ? 'ended' : 'conflict';
}

/**
 * The record of an ended run that a new attempt brings back: the same run, history and version, with
 * what was known of the last attempt's files forgotten, so the new files are read and judged afresh.
 */
export function revived(r: RunRecord): RunRecord {
  const { ended: _ended, facts: _facts, backoff: _backoff, outbox: _outbox, locks: _locks, ...kept } = r;
  return { ...kept, facts: NO_FACTS };
}
