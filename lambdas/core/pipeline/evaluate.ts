import { formatDuration } from '../duration.js';
import { HEALTH_FINDING_KINDS, type HealthFindingKind } from '../health/types.js';
import type { ObjectInfo, RunFiles } from '../listing.js';
import { judgeNodes } from '../nodes/freshness.js';
import { currentNodes } from '../nodes/observe.js';
import type { RunRecord } from '../record.js';
import { RunState } from '../states.js';
import { effectiveThresholds, type Thresholds } from '../thresholds.js';

/** When the current attempt was started by a restart (absent for a run never restarted). */
export function attemptBoundary(r: RunRecord): number | undefined {
  return r.remediation?.attemptStartedAt ?? r.restartIssuedAt;
}

/** The state a run should be in now, and why. */
export interface Verdict {
  readonly state: RunState;
  readonly reason: string;
  readonly errorType?: string | null;
  /** What made a WARNING (a silent node, a throughput drop, …): the alert's action follows it. */
  readonly cause?: WarningCause;
}

/** Why a run is WARNING, for the action people are told to take: a health finding names its kind. */
export type WarningCause =
  | 'heartbeat_stale'
  | 'node_silent'
  | 'nodes_missing'
  | HealthFindingKind
  | 'finding'
  /** STALLED with the nodes' stacks in the reason (core/stacks): the action points at them. */
  | 'stacks';

const ago = (now: number, at: number) => formatDuration(now - at);

/** Which active health finding a WARNING names when several are: the first by kind name, fixed once. */
const HEALTH_CAUSE_ORDER: readonly HealthFindingKind[] = [...HEALTH_FINDING_KINDS].sort();

/**
 * Judges one run from what a LIST shows (`run`) and what we know (`known`: the stored record with any
 * fresh reads applied). Pure. Precedence: _complete > _error > staleness > stall > degraded.
 */
export function assess(run: RunFiles, known: RunRecord, now: number, t: Thresholds): Verdict {
  // Files written at or before the current attempt started belong to an earlier attempt: they don't count.
  const boundary = attemptBoundary(known);
  const current = (o: ObjectInfo | undefined) =>
    o !== undefined && (boundary === undefined || o.lastModified > boundary) ? o : undefined;
  const eff = effectiveThresholds(t, known.meta);
  // v1.1: a silent or missing node while the run itself still beats, named long before NCCL times out.
  const nodesAt = (at: number) =>
    judgeNodes({
      nodes: currentNodes(run, boundary),
      summaries: known.nodes,
      expected: known.meta?.nodes ?? known.nodesExpected,
      since: boundary ?? Math.min(known.firstSeenAt, run.firstSeenAt),
      now: at,
      staleAfterMs: eff.staleAfterMs,
      startupGraceMs: t.startupGraceMs,
    });
  // Every alert of a run with a silent node names it, whichever state fires first.
  const silent = (at: number, tail = 'while the run still beats') => {
    const text = nodesAt(at)?.silentText;
    return text ? `; ${text} ${tail}` : '';
  };
  const complete = current(run.files.complete);
  const error = current(run.files.error);
  const metadata = current(run.files.metadata);
  const progress = current(run.files.progress);
  if (complete)
    return { state: RunState.SUCCEEDED, reason: `_complete written ${ago(now, complete.lastModified)} ago` };
  if (error) {
    return {
      state: RunState.FAILED,
      reason: (known.errorMessage ?? '_error written') + silent(now),
      errorType: known.errorType ?? null,
    };
  }
  // While restarting, the old process may still beat until the restart kills it: only heartbeats of the
  // new attempt count (newer than the restart, and with the new attempt number when metadata names one).
  const oldAttempt = known.meta?.attempt !== undefined && known.meta.attempt < known.attempt;
  if (
    known.state === RunState.RESTARTING &&
    boundary !== undefined &&
    ((!metadata && !progress) || oldAttempt)
  ) {
    if (now - boundary > t.startupGraceMs)
      return {
        state: RunState.TIMED_OUT,
        reason: `restart issued ${ago(now, boundary)} ago, but attempt ${known.attempt} never sent a heartbeat`,
      };
    return {
      state: RunState.RESTARTING,
      reason: `waiting for attempt ${known.attempt}'s first heartbeat (restart issued ${ago(now, boundary)} ago)`,
    };
  }

  const beats = [metadata, progress].filter((o): o is ObjectInfo => o !== undefined);
  if (beats.length === 0) {
    const since = boundary ?? run.firstSeenAt;
    const waited = now - since;
    const what = boundary === undefined ? 'the run appeared' : `attempt ${known.attempt} was started`;
    if (waited <= t.startupGraceMs)
      return {
        state: RunState.PENDING,
        reason: `waiting for the first heartbeat (${formatDuration(waited)} of ${formatDuration(t.startupGraceMs)} startup grace)`,
      };
    return {
      state: RunState.TIMED_OUT,
      reason: `never started: no heartbeat ${formatDuration(waited)} after ${what} (startup grace ${formatDuration(t.startupGraceMs)})`,
    };
  }

  const limit = `threshold ${formatDuration(eff.staleAfterMs)}${eff.why === 'default' ? '' : `, ${eff.why}`}`;
  const stale = beats.filter((o) => now - o.lastModified > eff.staleAfterMs);
  if (stale.length === beats.length) {
    const newest = Math.max(...beats.map((o) => o.lastModified));
    // A node silent long before the run's last heartbeat is where it began.
    return {
      state: RunState.TIMED_OUT,
      reason: `no heartbeat for ${ago(now, newest)} (${limit})${silent(newest, 'before the run stopped')}`,
    };
  }

  if (progress && known.step !== undefined) {
    // An unchanged ETag means the step we know is current; otherwise the last write bounds it.
    const current = known.etags.progress === progress.etag && known.stepAdvancedAt !== undefined;
    const unchangedSince = current ? known.stepAdvancedAt! : progress.lastModified;
    if (now - unchangedSince > eff.stallAfterMs) {
      const stacks = known.stacks?.attempt === known.attempt ? known.stacks : undefined;
      return {
        state: RunState.STALLED,
        reason: `step ${known.step} has not advanced for ${ago(now, unchangedSince)} (threshold ${formatDuration(eff.stallAfterMs)}) while heartbeats are fresh${silent(now)}${stacks ? `; ${stacks.text}` : ''}`,
        ...(stacks ? { cause: 'stacks' as const } : {}),
      };
    }
  }

  const nodes = nodesAt(now);
  if (nodes)
    return {
      state: RunState.WARNING,
      reason: nodes.reason,
      cause: nodes.silent.length ? 'node_silent' : 'nodes_missing',
    };

  // A node-level health finding (idle GPUs, a straggler, a throughput drop) names the cause of what a
  // stale progress.json would only show as its consequence.
  const health = HEALTH_CAUSE_ORDER.find((k) => known.findings?.[`health.${k}`] !== undefined);
  if (health) return { state: RunState.WARNING, reason: known.findings![`health.${health}`]!, cause: health };

  if (stale.length > 0) {
    const [s] = stale;
    const name = s === metadata ? 'metadata.json' : 'progress.json';
    const other = s === metadata ? 'progress.json' : 'metadata.json';
    return {
      state: RunState.WARNING,
      reason: `${name} not updated for ${ago(now, s!.lastModified)} (${limit}) while ${other} is fresh`,
      cause: 'heartbeat_stale',
    };
  }

  const findings = Object.keys(known.findings ?? {}).sort();
  if (findings.length > 0)
    return { state: RunState.WARNING, reason: known.findings![findings[0]!]!, cause: 'finding' };

  const of = known.totalSteps ? `/${known.totalSteps}` : '';
  return {
    state: RunState.RUNNING,
    reason: known.step === undefined ? 'heartbeats fresh' : `heartbeats fresh, at step ${known.step}${of}`,
  };
}
