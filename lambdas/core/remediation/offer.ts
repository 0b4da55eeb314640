import type { RunRecord } from '../model/record.js';
import type { Assessment } from './assess.js';
import { type Decision, modeOf, ruleAllows } from './policy/index.js';
import type { RemediationSettings } from './types.js';

/**
 * Whether a person may ask for a restart now ("Restart now" in Slack): remediation probed the instance
 * and did not restart, yet the restart policy allows this failure (its mode lists the error type and the
 * budget is not spent) and a restart could be carried out. What held it back was the probe (the process
 * still running, a full disk) or time: once fixed, a new remediation request restarts it. Never a blind
 * restart: the request probes and decides again.
 */
export function offersRestart(
  rec: RunRecord,
  a: Assessment,
  decision: Decision,
  settings: RemediationSettings,
): boolean {
  const mode = modeOf(rec.state);
  if (decision.action !== 'alert' || !mode || !a.seen.probe.ok) return false;
  const policy = settings.policy;
  if (policy.max_restarts <= a.restarts || !ruleAllows(policy.modes[mode], a.errorType).allow) return false;
  return a.platform.cannotRestart(a.target) === undefined;
}
