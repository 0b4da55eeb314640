import type { Thresholds } from '../../lambdas/core/detection/thresholds.js';
import { checkRun } from '../../lambdas/core/pipeline/checkRun.js';
import type { CheckDeps } from '../../lambdas/core/pipeline/deps.js';
import type { ReplayTarget } from '../../local/recording.js';
import { FakeRunStore, FakeStateStore, NO_WAIT, RecordingNotifier } from './fakes.js';

const M = 60_000;
/** The thresholds the sweep-level tests use: stale 10m, stall 30m, startup grace 15m. */
export const THRESHOLDS: Thresholds = {
  staleAfterMs: 10 * M,
  stallAfterMs: 30 * M,
  startupGraceMs: 15 * M,
  phaseStaleAfterMs: {},
};

/**
 * One run `r1` checked as the sweep checks it, over in-memory S3 and DynamoDB and a recording Slack:
 * `check(now)` lists the run and checks it against the stored record. `extra` adds deps (health rules).
 */
export function oneRun(extra: Partial<CheckDeps> = {}) {
  const runs = new FakeRunStore();
  const states = new FakeStateStore();
  const slack = new RecordingNotifier('slack');
  const deps: CheckDeps = {
    runs,
    states,
    notifiers: [slack],
    thresholds: THRESHOLDS,
    classify: () => ({ error_type: null }),
    links: { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' },
    deliverOptions: NO_WAIT,
    ...extra,
  };
  const check = async (now: number) =>
    checkRun(deps, (await runs.listRun('r1'))!, await states.get('r1'), now);
  return { runs, states, slack, deps, check };
}

/** A recording's replay target (local/recording.ts) writing into `h`'s run `r1` and checking it. */
export function replayTarget(h: ReturnType<typeof oneRun>): ReplayTarget {
  return {
    put: (path, body, at) => h.runs.put('r1', path, body, at),
    delete: (path) => h.runs.delete('r1', path),
    check: h.check,
  };
}
