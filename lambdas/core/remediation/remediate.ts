import { buildAlert } from '../alerting/alerts.js';
import { deliver } from '../alerting/deliver.js';
import type { RunRecord } from '../model/record.js';
import { assess } from './assess.js';
import { remediationDetails } from './details.js';
import { type Handled, recordDecision, remediationState } from './history.js';
import { offersRestart } from './offer.js';
import { restart } from './restart.js';
import type { RemediationDeps, RemediationOutcome, RemediationRequest } from './types.js';
import { verdict } from './verdict.js';

const LOCK = 'remediation';
const LOCK_MS = 10 * 60_000;

/** Diagnoses a failed, stalled or timed-out run, decides by policy, restarts if safe, and alerts. Never throws for a run's fault. */
export async function remediate(
  deps: RemediationDeps,
  req: RemediationRequest,
  now: number,
): Promise<RemediationOutcome> {
  const skip = (why: string): RemediationOutcome => ({ runId: req.runId, skipped: why });
  const rec = await deps.states.get(req.runId);
  if (!rec) return skip('no such run');
  if (rec.state !== req.state) return skip(`the run is ${rec.state} now, not ${req.state}`);
  if (req.alertId && rec.remediation?.handled === req.alertId)
    return skip('this transition was already handled');
  if (!(await deps.states.acquireLock(req.runId, LOCK, deps.owner, now + LOCK_MS, now)))
    return skip('another remediation holds the lock');
  try {
    return await locked(deps, rec, req, now);
  } finally {
    await deps.states.releaseLock(req.runId, LOCK, deps.owner).catch(() => undefined);
  }
}

/** Assess, decide, act (restart or record), then one remediation alert saying what was done and why. */
async function locked(
  deps: RemediationDeps,
  rec: RunRecord,
  req: RemediationRequest,
  now: number,
): Promise<RemediationOutcome> {
  const a = await assess(deps, rec, now);
  const { errorType, seen } = a;
  let decision = verdict(rec, a, deps.settings);
  // A person's request: their name goes with the decision into the run's history and the alert.
  if (req.requestedBy)
    decision = { ...decision, reason: `${decision.reason} (requested by ${req.requestedBy})` };
  let written: RunRecord | undefined;
  if (decision.action === 'restart') {
    const r = await restart(deps, rec, a, decision, errorType, req, now);
    decision = r.decision;
    written = r.record;
  }
  const offer = offersRestart(rec, a, decision, deps.settings);
  const handled: Handled = { steps: a.steps, alertId: req.alertId, seen, errorType, decision, now };
  // No state change: record the decision and the diagnosis on the run (bookkeeping, same state).
  written ??= await recordDecision(deps.states, rec.runId, handled);
  const forAlert = written ?? { ...rec, errorType, remediation: remediationState(rec, handled) };
  const c = a.classification;
  const alert = buildAlert(forAlert, {
    kind: 'remediation',
    previousState: decision.action === 'restart' ? rec.state : undefined,
    now,
    links: deps.links,
    details: remediationDetails(
      c.error_type ? c : { ...c, error_type: errorType },
      seen.probe,
      decision,
      a.target.problems,
      seen.nodes,
      // A stalled run typed by its stacks says so instead of explaining the log's classification.
      errorType !== c.error_type && errorType === seen.stackFamily
        ? `error type: ${errorType} (from the stacks: the call the training thread blocks in${c.error_type ? `; the log read ${c.error_type}` : ''})`
        : undefined,
    ),
  });
  const report = await deliver(
    offer ? { ...alert, offersRestart: true } : alert,
    deps.notifiers,
    deps.deliverOptions,
  );
  return {
    runId: rec.runId,
    errorType,
    decision,
    diagnosis: seen.probe.ok ? seen.probe.summary.lines : [seen.probe.finding],
    alert,
    delivered: report.delivered.length,
    failed: report.failed.length,
  };
}
