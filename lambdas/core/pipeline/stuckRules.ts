import { formatDuration } from '../base/duration.js';
import { showsBusy } from '../detection/evidence.js';
import { BUSY_STALLS } from '../detection/thresholds.js';
import { nodeLabel } from '../model/slices/nodes.js';
import { RunState } from '../model/states.js';
import { currentNodes } from '../nodes/observe.js';
import type { Judging, Rule } from './verdict.js';

// The rules of a stuck run (failed, timed out, stalled; RULES in rules.ts orders them): each says what the
// stacks said and names a silent node, whichever fires first.

export const ago = (j: Judging, at: number) => formatDuration(j.now - at);
export const limit = (j: Judging) =>
  `threshold ${formatDuration(j.eff.staleAfterMs)}${j.eff.why === 'default' ? '' : `, ${j.eff.why}`}`;

/** Every alert of a run with a silent node names it, whichever state fires first. */
function silent(j: Judging, at = j.now, tail = 'while the run still beats'): string {
  const text = j.nodesAt(at)?.silentText;
  return text ? `; ${text} ${tail}` : '';
}

/** Every alert of a stuck run says what its stacks said, whichever state fires first. */
const before = (j: Judging, what: string) => (j.stacks ? `; before ${what}: ${j.stacks.text}` : '');

export const failed: Rule = (j) =>
  j.error && {
    state: RunState.FAILED,
    reason: (j.known.facts.errorMessage ?? '_error written') + silent(j) + before(j, 'it failed'),
    errorType: j.known.errorType ?? null,
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
  return `; ${nodeLabel(0, j.known.facts.nodes?.[0])} froze with the run's own heartbeats (its writer carries them) while ${others}: node 0 is the likely cause`;
}

export const timedOut: Rule = (j) => {
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
export const stalled: Rule = (j) => {
  const { eff, stillFor, stacks } = j;
  if (stillFor === undefined) return;
  const head = `step ${j.known.facts.step} has not advanced for ${formatDuration(stillFor)}`;
  const tail = `while heartbeats are fresh${silent(j)}${stacks ? `; ${stacks.text}` : ''}`;
  const cause = stacks ? { cause: 'stacks' as const } : {};
  const hang = j.stacksShowHang || (j.nodesAt(j.now)?.silent.length ?? 0) > 0;
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
