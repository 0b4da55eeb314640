/** Run states, as in docs/DESIGN: stored on the run item and carried by every alert. */
export const RunState = {
  PENDING: 'PENDING',
  RUNNING: 'RUNNING',
  WARNING: 'WARNING',
  STALLED: 'STALLED',
  TIMED_OUT: 'TIMED_OUT',
  FAILED: 'FAILED',
  SUCCEEDED: 'SUCCEEDED',
  RESTARTING: 'RESTARTING',
} as const;

export type RunState = (typeof RunState)[keyof typeof RunState];

export const ALL_STATES: readonly RunState[] = Object.values(RunState);

/** States that need a person (or the restart policy) to act. */
export const UNHEALTHY: ReadonlySet<RunState> = new Set([
  RunState.WARNING,
  RunState.STALLED,
  RunState.TIMED_OUT,
  RunState.FAILED,
]);

/** States a run leaves only by a new attempt. */
export const TERMINAL: ReadonlySet<RunState> = new Set([RunState.FAILED, RunState.SUCCEEDED]);

/** Whether entering `to` from `from` is worth telling someone about. */
export function alertsOn(from: RunState | undefined, to: RunState): boolean {
  if (to === RunState.PENDING) return false;
  if (to === RunState.RUNNING)
    return from !== undefined && from !== RunState.PENDING && from !== RunState.RUNNING;
  return true;
}
