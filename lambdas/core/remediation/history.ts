import type { StateStore } from '../model/ports.js';
import type { RunRecord } from '../model/record.js';
import { HISTORY_KEPT, type RemediationState } from '../model/slices/remediation.js';
import { RunState } from '../model/states.js';
import type { Decision } from './policy/index.js';
import type { Seen } from './probe.js';

/** One handled transition, as remediation records it on the run. */
export interface Handled {
  readonly steps: Record<string, number>;
  readonly alertId?: string;
  readonly seen: Seen;
  readonly errorType: string | null;
  readonly decision: Decision;
  readonly now: number;
}

/** The run's remediation state after `h`: the decision appended to its history, the diagnosis kept. */
export function remediationState(base: RunRecord, h: Handled): RemediationState {
  return {
    restarts: base.remediation?.restarts ?? 0,
    bestSteps: h.steps,
    attemptStartedAt: base.remediation?.attemptStartedAt,
    handled: h.alertId ?? base.remediation?.handled,
    diagnosis: h.seen.probe.ok
      ? { at: h.now, lines: h.seen.probe.summary.lines, commandId: h.seen.commandId }
      : base.remediation?.diagnosis,
    history: [
      ...(base.remediation?.history ?? []),
      {
        at: h.now,
        attempt: base.attempt,
        state: base.state,
        errorType: h.errorType,
        action: h.decision.action,
        reason: h.decision.reason,
      },
    ].slice(-HISTORY_KEPT),
    ...((h.seen.savedJob ?? base.remediation?.savedJob) && {
      savedJob: h.seen.savedJob ?? base.remediation?.savedJob,
    }),
  };
}

/** Records a decision that changes no state (bookkeeping on the run, conditional write, a few tries). */
export async function recordDecision(
  states: StateStore,
  runId: string,
  h: Handled,
): Promise<RunRecord | undefined> {
  for (let i = 0; i < 3; i++) {
    const fresh = await states.get(runId);
    if (!fresh) return undefined;
    const next: RunRecord = {
      ...fresh,
      errorType: fresh.state === RunState.FAILED ? h.errorType : fresh.errorType,
      remediation: remediationState(fresh, h),
      version: fresh.version + 1,
      updatedAt: h.now,
    };
    if (await states.update(next, fresh.version)) return next;
  }
  return undefined;
}
