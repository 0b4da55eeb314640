import { formatDuration } from '../base/duration.js';
import { LEARNED } from '../detection/thresholds.js';
import { HEALTH_FINDING_KINDS, type HealthFindingKind } from '../model/slices/health.js';
import { RunState } from '../model/states.js';
import { ago, failed, limit, stalled, timedOut } from './stuckRules.js';
import type { Rule, Verdict } from './verdict.js';

const complete: Rule = (j) =>
  j.complete && {
    state: RunState.SUCCEEDED,
    reason: `_complete written ${ago(j, j.complete.lastModified)} ago`,
  };

/**
 * While restarting, the old process may still beat until the restart kills it: only heartbeats of the new
 * attempt count (newer than the restart, and with the new attempt number when metadata names one).
 */
const restarting: Rule = (j) => {
  const { known, boundary } = j;
  const oldAttempt = known.meta?.attempt !== undefined && known.meta.attempt < known.attempt;
  if (known.state !== RunState.RESTARTING || boundary === undefined) return;
  if ((j.metadata || j.progress) && !oldAttempt) return;
  return j.now - boundary > j.t.startupGraceMs
    ? {
        state: RunState.TIMED_OUT,
        reason: `restart issued ${ago(j, boundary)} ago, but attempt ${known.attempt} never sent a heartbeat`,
      }
    : {
        state: RunState.RESTARTING,
        reason: `waiting for attempt ${known.attempt}'s first heartbeat (restart issued ${ago(j, boundary)} ago)`,
      };
};

const notStarted: Rule = (j) => {
  if (j.beats.length > 0) return;
  const waited = j.now - (j.boundary ?? j.run.firstSeenAt);
  const grace = formatDuration(j.t.startupGraceMs);
  if (waited <= j.t.startupGraceMs)
    return {
      state: RunState.PENDING,
      reason: `waiting for the first heartbeat (${formatDuration(waited)} of ${grace} startup grace)`,
    };
  const what = j.boundary === undefined ? 'the run appeared' : `attempt ${j.known.attempt} was started`;
  return {
    state: RunState.TIMED_OUT,
    reason: `never started: no heartbeat ${formatDuration(waited)} after ${what} (startup grace ${grace})`,
  };
};

/** v1.1: a silent or missing node while the run itself still beats, named long before NCCL times out. */
const nodes: Rule = (j) => {
  const n = j.nodesAt(j.now);
  return (
    n && {
      state: RunState.WARNING,
      reason: n.reason,
      cause: n.silent.length ? 'node_silent' : 'nodes_missing',
    }
  );
};

/** Which active health finding a WARNING names when several are: the first by kind name, fixed once. */
const HEALTH_CAUSE_ORDER: readonly HealthFindingKind[] = [...HEALTH_FINDING_KINDS].sort();
/** Findings that describe a stop, not a slowdown: a still step is the stall rules' to judge (and explain). */
const STOP_KINDS: ReadonlySet<HealthFindingKind> = new Set(['throughput_drop', 'idle_gpus']);

/**
 * A node-level health finding (idle GPUs, a straggler, a throughput drop) names the cause of what a stale
 * progress.json would only show as its consequence.
 */
const health: Rule = (j) => {
  const still = j.stillFor !== undefined && j.stillFor > LEARNED.stallFloorMs;
  const f = j.known.facts.findings;
  const kind = HEALTH_CAUSE_ORDER.find(
    (k) => f?.[`health.${k}`] !== undefined && !(still && STOP_KINDS.has(k)),
  );
  return kind && { state: RunState.WARNING, reason: f![`health.${kind}`]!, cause: kind };
};

/**
 * One heartbeat stale while the other is fresh. On the default thresholds a still progress.json is the stall
 * rules' (its writes follow the steps, not a clock); and once the staleness is learned from the client's own
 * writer, which writes both files, a stale metadata.json is that writer stopping: the next rule to speak is
 * TIMED_OUT, within an interval. An explicit stale threshold holds for both files.
 */
const oneStale: Rule = (j) => {
  if (j.eff.why.startsWith('learned')) return;
  const byStall = j.t.staleAfterMs === undefined;
  const s = j.beats.find(
    (o) => j.now - o.lastModified > j.eff.staleAfterMs && !(byStall && o === j.progress),
  );
  if (!s) return;
  const [name, other] =
    s === j.metadata ? ['metadata.json', 'progress.json'] : ['progress.json', 'metadata.json'];
  return {
    state: RunState.WARNING,
    reason: `${name} not updated for ${ago(j, s.lastModified)} (${limit(j)}) while ${other} is fresh`,
    cause: 'heartbeat_stale',
  };
};

/** Any other finding (an invalid file, clock skew, a diagnosis); health findings are the health rule's. */
const finding: Rule = (j) => {
  const [key] = Object.keys(j.known.facts.findings ?? {})
    .filter((k) => !k.startsWith('health.'))
    .sort();
  return key === undefined
    ? undefined
    : { state: RunState.WARNING, reason: j.known.facts.findings![key]!, cause: 'finding' };
};

const running: Rule = (j): Verdict => {
  const of = j.known.facts.totalSteps ? `/${j.known.facts.totalSteps}` : '';
  return {
    state: RunState.RUNNING,
    reason:
      j.known.facts.step === undefined
        ? 'heartbeats fresh'
        : `heartbeats fresh, at step ${j.known.facts.step}${of}`,
  };
};

/**
 * The state decision, in precedence order (docs/DETECTION.md): the first rule with a verdict decides.
 * _complete > _error > a restart's wait > never started > staleness > stall > degraded > running.
 */
export const RULES: readonly (readonly [name: string, rule: Rule])[] = [
  ['complete', complete],
  ['failed', failed],
  ['restarting', restarting],
  ['not started', notStarted],
  ['timed out', timedOut],
  ['stalled', stalled],
  ['nodes', nodes],
  ['health', health],
  ['one stale', oneStale],
  ['finding', finding],
  ['running', running],
];
