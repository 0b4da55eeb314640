import type { RunRecord } from '../model/record.js';
import type { RemediationState } from '../model/slices/remediation.js';
import { RunState } from '../model/states.js';
import type { Assessment } from './assess.js';
import type { Decision } from './policy/index.js';
import type { RemediationDeps, RemediationRequest } from './types.js';

/** Launches the next attempt where the run lives (its platform), then moves the run to RESTARTING with the next attempt (conditional write). */
export async function restart(
  deps: RemediationDeps,
  rec: RunRecord,
  a: Assessment,
  d: Decision,
  errorType: string | null,
  req: RemediationRequest,
  now: number,
): Promise<{ decision: Decision; record?: RunRecord }> {
  const alert = (reason: string): { decision: Decision } => ({
    decision: { ...d, action: 'alert', reason: `not restarted: ${reason}` },
  });
  // The diagnosis took a while: a run that recovered meanwhile must not be restarted.
  const before = await deps.states.get(rec.runId);
  if (!before || before.state !== rec.state)
    return alert(`the run became ${before?.state ?? 'unknown'} while it was being diagnosed`);
  const launched = await a.platform.launch(rec, a.target, d, a.seen.nodes, now);
  if (!launched.ok) return alert(launched.reason);
  d = { ...d, reason: `${d.reason}; ${launched.resumed}` };
  const startsAt = now + Math.round((launched.delayMs ?? d.delayMs ?? 0) / 1000) * 1000;
  let fresh: RunRecord | undefined = before;
  for (let i = 0; i < 3 && fresh; i++) {
    if (i > 0) fresh = await deps.states.get(rec.runId);
    if (!fresh) break;
    const rem: RemediationState = {
      restarts: (fresh.remediation?.restarts ?? 0) + 1,
      bestSteps: a.steps,
      attemptStartedAt: startsAt,
      handled: req.alertId ?? fresh.remediation?.handled,
      diagnosis: fresh.remediation?.diagnosis,
      history: fresh.remediation?.history ?? [],
      ...((a.seen.savedJob ?? fresh.remediation?.savedJob) && {
        savedJob: a.seen.savedJob ?? fresh.remediation?.savedJob,
      }),
    };
    const next: RunRecord = {
      ...fresh,
      state: RunState.RESTARTING,
      reason: d.reason,
      errorType,
      attempt: d.nextAttempt!,
      restartIssuedAt: startsAt,
      since: now,
      updatedAt: now,
      version: fresh.version + 1,
      remediation: rem,
    };
    const flip = {
      runId: rec.runId,
      from: fresh.state,
      to: RunState.RESTARTING,
      reason: d.reason,
      at: now,
      attempt: next.attempt,
      version: next.version,
      errorType,
    };
    if (await deps.states.transition(next, flip, fresh.version)) {
      // After the state write, so a sweep in between still sees the failure; RESTARTING ignores older `_error`s anyway.
      if (rec.state === RunState.FAILED)
        await deps.archive.archive(rec.runId, d.nextAttempt! - 1, ['error']).catch(() => undefined);
      return { decision: d, record: next };
    }
  }
  return {
    decision: {
      ...d,
      reason: `${d.reason} (launched, but the state write kept losing to other writers: the next sweep will see the new attempt)`,
    },
  };
}
