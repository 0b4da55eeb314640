import type { Links } from '../alerting/alerts.js';
import { prefixLinks } from '../alerting/links.js';
import type { Alert, ListedRun } from '../model/alert.js';
import { alertProgress } from '../model/slices/attempt.js';
import { type RunState, UNHEALTHY } from '../model/states.js';

/** DynamoDB takes at most 100 items per transaction: one group claims at most this many runs. */
export const MAX_GROUP = 99;

/** What most likely makes many runs fail the same way at once, per state. */
const SHARED_CAUSE: Readonly<Partial<Record<RunState, string>>> = {
  TIMED_OUT: 'bucket permissions, the region, the cluster',
  STALLED: 'the data source, shared storage, the cluster network',
  WARNING: 'the heartbeat writer, bucket permissions, clock sync',
  FAILED: 'the image or code version, the data, the cluster',
};

/**
 * The reason's class: its first clause with numbers and quoted values blanked, so
 * "no heartbeat for 11m" and "no heartbeat for 12m" group together but "step 7 has not advanced" does not.
 */
export function reasonClass(reason: string): string {
  const first = reason.split(/[:(\n]/)[0] ?? '';
  return (
    first
      .toLowerCase()
      .replace(/"[^"]*"|'[^']*'/g, '_')
      // A number with its unit, and durations of two units (`10m 59s`), are one `#`.
      .replace(/\d+(\.\d+)?(ms|[smhd])?(\s+\d+(\.\d+)?(ms|[smhd]))*\b/g, '#')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 60)
  );
}

/** Alerts with the same key are "the same kind of unhealthy transition"; undefined: never grouped. */
export function groupKey(alert: Alert): string | undefined {
  if (alert.kind !== 'transition' || !UNHEALTHY.has(alert.state) || alert.silenced) return undefined;
  const cls = alert.errorType ? `error:${alert.errorType}` : `reason:${reasonClass(alert.reason)}`;
  return `${alert.state}|${cls}`;
}

/** Splits `items` into groups of at least `min` same-kind alerts (at most MAX_GROUP each) and the rest. */
export function partition<T>(
  items: readonly T[],
  alertOf: (t: T) => Alert,
  min: number,
): { groups: T[][]; alone: T[] } {
  const byKey = new Map<string, T[]>();
  const alone: T[] = [];
  for (const item of items) {
    const key = min > 0 ? groupKey(alertOf(item)) : undefined;
    if (key === undefined) alone.push(item);
    else byKey.set(key, [...(byKey.get(key) ?? []), item]);
  }
  const groups: T[][] = [];
  for (const members of byKey.values()) {
    if (members.length < min) {
      alone.push(...members);
      continue;
    }
    const sorted = [...members].sort((a, b) => alertOf(a).runId.localeCompare(alertOf(b).runId));
    for (let i = 0; i < sorted.length; i += MAX_GROUP) groups.push(sorted.slice(i, i + MAX_GROUP));
  }
  return { groups, alone };
}

function listed(a: Alert): ListedRun {
  return { runId: a.runId, state: a.state, reason: a.reason, errorType: a.errorType, jobName: a.jobName };
}

/** `a-1, a-2, a-3, … (12 in all)` */
export function runList(ids: readonly string[], shown = 10): string {
  const head = ids.slice(0, shown).join(', ');
  return ids.length > shown ? `${head}, … (${ids.length} in all)` : head;
}

/** One alert standing for `members` (same state and class), carried by the first run's outbox. */
export function groupAlert(members: readonly Alert[], now: number, links: Links): Alert {
  const first = members[0]!;
  const ids = members.map((m) => m.runId);
  const cause = SHARED_CAUSE[first.state] ?? 'a shared dependency';
  const kind = first.errorType ? ` (${first.errorType})` : '';
  return {
    ...first,
    id: `group:${first.id}`,
    kind: 'group',
    previousState: undefined,
    reason: `${members.length} runs ${first.state}${kind} in one sweep: ${runList(ids)}; a shared cause is likely: ${cause}`,
    at: now,
    // The runs' own facts are each run's alert's, not the group's.
    ...alertProgress({}),
    instanceId: undefined,
    where: undefined,
    etaMs: undefined,
    durationMs: undefined,
    ...prefixLinks(links),
    details: [`Each run has its own alert on EventBridge and in its history; follow-ups stay per run.`],
    runs: members.map(listed),
  };
}
