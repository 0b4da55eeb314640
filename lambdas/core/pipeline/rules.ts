import { showsBusy, showsHang } from '../detection/evidence.js';
import { BUSY_STALLS, LEARNED } from '../detection/thresholds.js';
import { formatDuration } from '../duration.js';
import { HEALTH_FINDING_KINDS, type HealthFindingKind } from '../health/types.js';
import { currentNodes } from '../nodes/observe.js';
import { nodeLabel } from '../nodes/types.js';
import { RunState } from '../states.js';
import type { Judging, Rule, Verdict } from './verdict.js';

const ago = (j: Judging, at: number) => formatDuration(j.now - at);
const limit = (j: Judging) =>
  `threshold ${formatDuration(j.eff.staleAfterMs)}${j.eff.why === 'default' ? '' : `, ${j.eff.why}`}`;

/** Every alert of a run with a silent node names it, whichever state fires first. */
function silent(j: Judging, at = j.now, tail = 'while the run still beats'): string {
  const text = j.nodesAt(at)?.silentText;
  return text ? `; ${text} ${tail}` : '';
}

/** Every alert of a stuck run says what its stacks said, whichever state fires first. */
const before = (j: Judging, what: string) => (j.stacks ? `; before ${what}: ${j.stacks.text}` : '');

const complete: Rule = (j) =>
  j.complete && {
    state: RunState.SUCCEEDED,
    reason: `_complete written ${ago(j, j.complete.lastModified)} ago`,
  };

const failed: Rule = (j) =>
  j.error && {
    state: RunState.FAILED,
    reason: (j.known.errorMessage ?? '_error written') + silent(j) + before(j, 'it failed'),
    errorType: j.known.errorType ?? null,
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

/** Rank 0's writer carries the run's own heartbeats: when they stop with its node file while others beat, it froze. */
function rankZeroFroze(j: Judging, newest: number): string {
  const nodes = currentNodes(j.run, j.boundary);
  const zero = nodes.find((n) => n.rank === 0);
  const beating = nodes.filter((n) => n.rank !== 0 && j.now - n.lastModified <= j.eff.staleAfterMs);
  if (!zero || beating.length === 0 || j.now - zero.lastModified <= j.eff.staleAfterMs) return '';
  if (zero.lastModified > newest + j.eff.staleAfterMs || j.stacks?.suspects.length) return '';
  const others =
    beating.length === 1
      ? `node ${beating[0]!.rank} still beats`
      : `${beating.length} other nodes still beat`;
  return `; ${nodeLabel(0, j.known.nodes?.[0])} froze with the run's own heartbeats (its writer carries them) while ${others}: node 0 is the likely cause`;
}

const timedOut: Rule = (j) => {
  if (j.beats.some((o) => j.now - o.lastModified <= j.eff.staleAfterMs)) return;
  const newest = Math.max(...j.beats.map((o) => o.lastModified));
  // A node silent long before the run's last heartbeat is where it began.
  const tail =
    silent(j, newest, 'before the run stopped') + rankZeroFroze(j, newest) + before(j, 'it stopped');
  return {
    state: RunState.TIMED_OUT,
    reason: `no heartbeat for ${ago(j, newest)} (${limit(j)})${tail}`,
  };
};

/**
 * A still step: STALLED after the learned threshold when the stacks or a silent node show a hang, else after
 * the fixed (or explicit, or phase) threshold; a thread the stacks show busy holds the default one off longer.
 */
const stalled: Rule = (j) => {
  const { eff, stillFor, stacks } = j;
  if (stillFor === undefined) return;
  const head = `step ${j.known.step} has not advanced for ${formatDuration(stillFor)}`;
  const tail = `while heartbeats are fresh${silent(j)}${stacks ? `; ${stacks.text}` : ''}`;
  const cause = stacks ? { cause: 'stacks' as const } : {};
  const hang = showsHang(stacks) || (j.nodesAt(j.now)?.silent.length ?? 0) > 0;
  if (eff.stuckAfterMs !== undefined && stillFor > eff.stuckAfterMs && hang)
    return {
      state: RunState.STALLED,
      reason: `${head} (threshold ${formatDuration(eff.stuckAfterMs)}, learned: ${eff.stuckWhy}) ${tail}`,
      ...cause,
    };
  const busy = eff.stallDefault && !hang && showsBusy(stacks);
  const threshold = busy ? eff.stallAfterMs * BUSY_STALLS : eff.stallAfterMs;
  if (stillFor <= threshold) return;
  const held = busy ? ', held while its stacks show the training thread at work' : '';
  return {
    state: RunState.STALLED,
    reason: `${head} (threshold ${formatDuration(threshold)}${held}) ${tail}`,
    ...cause,
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
  const f = j.known.findings;
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
  const [key] = Object.keys(j.known.findings ?? {})
    .filter((k) => !k.startsWith('health.'))
    .sort();
  return key === undefined
    ? undefined
    : { state: RunState.WARNING, reason: j.known.findings![key]!, cause: 'finding' };
};

const running: Rule = (j): Verdict => {
  const of = j.known.totalSteps ? `/${j.known.totalSteps}` : '';
  return {
    state: RunState.RUNNING,
    reason:
      j.known.step === undefined ? 'heartbeats fresh' : `heartbeats fresh, at step ${j.known.step}${of}`,
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
