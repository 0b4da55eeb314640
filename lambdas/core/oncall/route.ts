import type { Alert } from '../model/alert.js';
import { GROUPED_CHANNELS, PEOPLE_CHANNELS } from '../model/channels.js';
import type { OutboxEntry, RunRecord } from '../model/record.js';
import { UNHEALTHY } from '../model/states.js';
import { currentAck } from './ack.js';
import { groupKey } from './group.js';
import type { GroupStore, SilenceStore } from './ports.js';
import { heldBy, type Silence } from './silence.js';

/** A transition whose Slack/SNS part waits for the end of the sweep (grouping). */
export interface DeferredAlert {
  readonly runId: string;
  /** The entry as stored after the immediate round (deferred channels still pending, lease ours). */
  readonly entry: OutboxEntry;
}

/** What checkRun needs for the on-call lifecycle. */
export interface Oncall {
  readonly silences: SilenceStore;
  readonly groups: GroupStore;
  /** Same-kind transitions in one sweep that make one grouped alert; 0: never group. */
  readonly groupMin: number;
  /** Silences read once per sweep (set by sweep()); the sentinel path reads them per run. */
  readonly loaded?: readonly Silence[];
  /** Set by sweep() only: without a sweep's end nobody would send the deferred part. */
  readonly collector?: DeferredAlert[];
}

async function silencesOf(oncall: Oncall): Promise<readonly Silence[]> {
  return oncall.loaded ?? (await oncall.silences.list());
}

/**
 * Where a transition's alert goes. Held (a silence or `maintenance`): EventBridge only, marked
 * `silenced`, except that a recovery still resolves PagerDuty. Groupable inside a sweep: Slack and SNS
 * are deferred to the sweep's end, the other channels go now.
 */
export async function routeTransition(
  oncall: Oncall | undefined,
  record: RunRecord,
  alert: Alert,
  channels: readonly string[],
  now: number,
): Promise<{ alert: Alert; channels: string[]; deferred: string[] }> {
  if (!oncall) return { alert, channels: [...channels], deferred: [] };
  if (heldBy(record, await silencesOf(oncall), now)) {
    const hold = UNHEALTHY.has(alert.state) ? PEOPLE_CHANNELS : GROUPED_CHANNELS;
    return {
      alert: { ...alert, silenced: true },
      channels: channels.filter((c) => !hold.includes(c)),
      deferred: [],
    };
  }
  const deferred =
    oncall.collector && oncall.groupMin > 0 && groupKey(alert) !== undefined
      ? channels.filter((c) => GROUPED_CHANNELS.includes(c))
      : [];
  return { alert, channels: [...channels], deferred };
}

/** Reminders stop while the run is acknowledged (until its next transition) or held. */
export async function remindersHeld(
  oncall: Oncall | undefined,
  record: RunRecord,
  now: number,
): Promise<boolean> {
  if (currentAck(record)) return true;
  return oncall !== undefined && heldBy(record, await silencesOf(oncall), now) !== undefined;
}

/**
 * The entry to store after the immediate round of a deferring transition: what the round left pending,
 * plus the deferred channels, under the lease the transition wrote (so no other sweep sends them alone
 * while this one decides on a group). Registers it with the sweep's collector.
 */
export function holdForGroup(
  oncall: Oncall | undefined,
  runId: string,
  written: OutboxEntry,
  settled: OutboxEntry | null,
  deferred: readonly string[],
): OutboxEntry | null {
  if (!deferred.length || !oncall?.collector) return settled;
  const entry: OutboxEntry = {
    ...(settled ?? written),
    pending: [...(settled?.pending ?? []), ...deferred],
    leaseUntil: written.leaseUntil,
  };
  oncall.collector.push({ runId, entry });
  return entry;
}
