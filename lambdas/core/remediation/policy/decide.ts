import { formatDuration } from '../../base/duration.js';
import { NEEDS_OTHER_NODE, NOT_RESTARTABLE } from '../../classify/errorTypes.js';
import { RunState } from '../../model/states.js';
import type { DiagnosisSummary } from '../diagnosis/summary.js';
import type { Mode, ModePolicy, RestartPolicy } from './schema.js';

/** What the probe (the diagnosis on the instance) established, or why it could not. */
export type Probe =
  | { readonly ok: true; readonly summary: DiagnosisSummary }
  | { readonly ok: false; readonly finding: string };

/** Everything a restart decision depends on. Plain data: the decision is a pure function of it. */
export interface DecideInput {
  readonly state: RunState;
  readonly errorType: string | null;
  /** The attempt that just failed (1 for the first run). */
  readonly attempt: number;
  /** Restarts already issued for this run. */
  readonly restarts: number;
  /** Highest step each attempt reached (undefined: it made no progress of its own). */
  readonly bestSteps: Readonly<Record<number, number | undefined>>;
  readonly probe: Probe;
  readonly policy: RestartPolicy;
}

/** The verdict, with the reason people read in the alert. */
export interface Decision {
  readonly action: 'restart' | 'alert' | 'give_up';
  readonly mode: Mode | null;
  readonly reason: string;
  /** For a restart: how long the new attempt waits before starting (the backoff). */
  readonly delayMs?: number;
  readonly nextAttempt?: number;
}

const NON_RESTARTABLE: ReadonlySet<string> = new Set(NOT_RESTARTABLE);
const OTHER_NODE: ReadonlySet<string> = new Set(NEEDS_OTHER_NODE);

/** FAILED → crash, STALLED → stall, TIMED_OUT → timeout; other states are not failures. */
export function modeOf(state: RunState): Mode | null {
  if (state === RunState.FAILED) return 'crash';
  if (state === RunState.STALLED) return 'stall';
  if (state === RunState.TIMED_OUT) return 'timeout';
  return null;
}

/** Whether the mode's lists allow a restart for this type, and why. A type known not to be restartable needs naming. */
export function ruleAllows(mp: ModePolicy, errorType: string | null): { allow: boolean; why: string } {
  const t = errorType ?? 'unknown';
  if (mp.exclude.includes(t) || (t !== 'unknown' && mp.exclude.includes('*')))
    return { allow: false, why: `${t} is excluded` };
  if (mp.restart_on.includes(t)) return { allow: true, why: `${t} is listed` };
  // A restart would fail the same way for these: only naming them explicitly opts in, never `*` or a default.
  if (NON_RESTARTABLE.has(t))
    return { allow: false, why: `${t} is not restartable (a restart would fail the same way)` };
  // A faulty GPU fails again on the same node: only a policy that names the type (its restart command moves
  // the job to a new node) restarts it, never `*` or a default.
  if (OTHER_NODE.has(t))
    return {
      allow: false,
      why: `${t} needs another node (name it in restart_on if the restart command moves the job)`,
    };
  if (t !== 'unknown' && mp.restart_on.includes('*')) return { allow: true, why: `${t} matches *` };
  return mp.default_action === 'restart'
    ? { allow: true, why: `${t} falls to the default (restart)` }
    : { allow: false, why: `${t} is not listed (default: alert)` };
}

/** Two restarted attempts in a row that never got past the best step before them: a loop, not a blip. */
export function crashLoop(
  attempt: number,
  bestSteps: Readonly<Record<number, number | undefined>>,
): string | undefined {
  if (attempt < 3) return undefined;
  const bestBefore = (k: number) => {
    let best: number | undefined;
    for (let j = 1; j < k; j++) {
      const s = bestSteps[j];
      if (s !== undefined && (best === undefined || s > best)) best = s;
    }
    return best;
  };
  const advanced = (k: number) => {
    const s = bestSteps[k];
    const before = bestBefore(k);
    return s !== undefined && (before === undefined || s > before);
  };
  if (advanced(attempt) || advanced(attempt - 1)) return undefined;
  const best = bestBefore(attempt - 1);
  return `attempts ${attempt - 1} and ${attempt} both died without getting past step ${best ?? 'none'} (a crash loop, not a transient fault)`;
}

/** Why the probe forbids a restart in this mode, or undefined when it confirms one is safe. */
function probeBlocks(mode: Mode, probe: Probe): string | undefined {
  if (!probe.ok) return `the probe could not check the instance: ${probe.finding}`;
  const s = probe.summary;
  if (s.gpuFailure) return `this node cannot run the job: ${s.gpuFailure}`;
  if (s.diskFull) return s.diskFull;
  if (s.processAlive === null)
    return 'could not confirm the training process is gone (give the run a pid_file or a process pattern)';
  // A stalled run is alive by definition (fresh heartbeats, no progress): the restart document stops it first.
  if (s.processAlive && mode !== 'stall')
    return mode === 'crash'
      ? 'the training process is still running although the run reported an error'
      : 'the training process is still running: heartbeats stopped but the job may be working (check the heartbeat writer)';
  if (s.truncated) return 'the diagnosis output was incomplete, so the probe is not conclusive';
  return undefined;
}

/** Backoff before restart number `n` (0-based): initial × factor^n, capped. */
export function backoffMs(policy: RestartPolicy, n: number): number {
  const { initial_seconds, factor, max_seconds } = policy.backoff;
  return Math.round(Math.min(max_seconds, initial_seconds * factor ** n) * 1000);
}

/** Decides whether to restart a failed, stalled or timed-out run. Pure; every outcome carries its reason. */
export function decide(input: DecideInput): Decision {
  const { policy, errorType, attempt, restarts } = input;
  const mode = modeOf(input.state);
  if (!mode) return { action: 'alert', mode, reason: `${input.state} is not a failure: nothing to restart` };
  const type = errorType ?? 'unknown';
  const rule = ruleAllows(policy.modes[mode], errorType);
  if (!rule.allow || policy.max_restarts === 0) {
    const why = policy.max_restarts === 0 ? 'it never restarts' : rule.why;
    return { action: 'alert', mode, reason: `not restarting: policy ${policy.name} (${mode}): ${why}` };
  }
  if (restarts >= policy.max_restarts)
    return {
      action: 'give_up',
      mode,
      reason: `giving up: retries exhausted (${restarts} of ${policy.max_restarts} restarts used)`,
    };
  const loop = crashLoop(attempt, input.bestSteps);
  if (loop) return { action: 'give_up', mode, reason: `giving up: ${loop}` };
  const blocked = probeBlocks(mode, input.probe);
  if (blocked) return { action: 'alert', mode, reason: `not restarting: ${blocked}` };
  const delayMs = backoffMs(policy, restarts);
  return {
    action: 'restart',
    mode,
    delayMs,
    nextAttempt: attempt + 1,
    reason: `restarting as attempt ${attempt + 1} in ${formatDuration(delayMs)}: policy ${policy.name} (${mode}) restarts ${type} (${rule.why}); restart ${restarts + 1} of ${policy.max_restarts}`,
  };
}
