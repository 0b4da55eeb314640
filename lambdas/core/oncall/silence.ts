import type { OutboxEntry, RunRecord } from '../model/record.js';
import { UNHEALTHY } from '../model/states.js';

/** What a silence covers: one run, every run of a job, or everything. */
export type SilenceScope =
  | { readonly kind: 'run'; readonly runId: string }
  | { readonly kind: 'job'; readonly jobName: string }
  | { readonly kind: 'all' };

/** A person's "stop paging me": alerts to people are held until `endsAt`, then summarised once. */
export interface Silence {
  readonly id: string;
  readonly scope: SilenceScope;
  readonly reason: string;
  readonly by: string;
  readonly createdAt: number;
  /** When it ends (set to the removal time by `unsilence`). */
  readonly endsAt: number;
  readonly removedAt?: number;
  readonly removedBy?: string;
  /** Silence until resolved (a run scope): it holds nothing once the run is healthy, and the sweep ends it. */
  readonly untilResolved?: boolean;
  /**
   * The end-of-silence summary: written once by the sweep that wins the conditional write
   * (`attribute_not_exists(summary)`), then retried under its lease like a run's outbox entry.
   * `pending: []` means done (or nothing was unhealthy).
   */
  readonly summary?: OutboxEntry;
}

/** `run:a-1`, `job:llama`, `all`: how people see a scope. */
export function describeScope(scope: SilenceScope): string {
  if (scope.kind === 'run') return `run:${scope.runId}`;
  if (scope.kind === 'job') return `job:${scope.jobName}`;
  return 'all';
}

export function isActive(s: Silence, now: number): boolean {
  return s.createdAt <= now && now < s.endsAt;
}

/** Whether `s` covers the run (its job from the last metadata.json). */
export function covers(s: Silence, r: Pick<RunRecord, 'runId' | 'meta'>): boolean {
  if (s.scope.kind === 'all') return true;
  if (s.scope.kind === 'run') return s.scope.runId === r.runId;
  return r.meta?.jobName === s.scope.jobName;
}

/** Whether a silence until resolved is over for this run: it is healthy again (its recovery alerts). */
export function resolvedFor(s: Silence, r: Partial<Pick<RunRecord, 'state'>>): boolean {
  return s.untilResolved === true && r.state !== undefined && !UNHEALTHY.has(r.state);
}

/** Why alerts about this run are held now, or undefined: a silence, or the run's own `maintenance` flag. */
export function heldBy(
  r: Pick<RunRecord, 'runId' | 'meta'> & Partial<Pick<RunRecord, 'state'>>,
  silences: readonly Silence[],
  now: number,
): string | undefined {
  if (r.meta?.maintenance) return 'maintenance';
  const s = silences.find((x) => isActive(x, now) && covers(x, r) && !resolvedFor(x, r));
  return s ? `silence ${s.id}` : undefined;
}

/** An ended silence whose summary nobody has written yet. */
export function needsSummary(s: Silence, now: number): boolean {
  return s.endsAt <= now && s.summary === undefined;
}

/** Runs the summary lists: in scope, still unhealthy, and not held by another silence still running. */
export function stillUnhealthy(
  s: Silence,
  records: readonly RunRecord[],
  silences: readonly Silence[],
  unhealthy: (r: RunRecord) => boolean,
  now: number,
): RunRecord[] {
  const others = silences.filter((x) => x.id !== s.id);
  return records
    .filter((r) => unhealthy(r) && covers(s, r) && heldBy(r, others, now) === undefined)
    .sort((a, b) => a.runId.localeCompare(b.runId));
}
