import type { RunRecord } from '../model/record.js';
import { RunState } from '../model/states.js';
import type { Assessment } from './assess.js';
import { type Decision, decide } from './policy/index.js';
import type { RemediationSettings } from './types.js';

/** The policy's decision, turned into an alert where this stack could not carry a restart out. */
export function verdict(rec: RunRecord, a: Assessment, settings: RemediationSettings): Decision {
  const decision = decide({
    state: rec.state,
    errorType: a.errorType,
    attempt: a.attempt,
    restarts: a.restarts,
    bestSteps: Object.fromEntries(Object.entries(a.steps).map(([k, v]) => [Number(k), v])),
    probe: a.seen.probe,
    policy: settings.policy,
  });
  // A degraded run (a throughput drop) is diagnosed, never restarted: the alert says what the nodes showed.
  if (rec.state === RunState.WARNING)
    return {
      ...decision,
      action: 'alert',
      reason: 'diagnosis only: the run is degraded, not failed; nothing is restarted',
    };
  const broken = a.seen.nodes?.culprit?.hardware ? a.seen.nodes.culprit : undefined;
  if (decision.action !== 'restart' && broken)
    return { ...decision, reason: `${decision.reason}; replace ${broken.label} first (${broken.evidence})` };
  const cannot = decision.action === 'restart' ? a.platform.cannotRestart(a.target) : undefined;
  return cannot ? { ...decision, action: 'alert', reason: `not restarting: ${cannot}` } : decision;
}
