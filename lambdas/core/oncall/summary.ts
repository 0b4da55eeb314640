import type { Links } from '../alerting/alerts.js';
import { prefixLinks } from '../alerting/links.js';
import type { Alert, ListedRun } from '../model/alert.js';
import type { RunRecord } from '../model/record.js';
import { RunState } from '../model/states.js';
import { runList } from './group.js';
import { describeScope, type Silence } from './silence.js';

const WORST: readonly RunState[] = [RunState.FAILED, RunState.TIMED_OUT, RunState.STALLED, RunState.WARNING];

function listed(r: RunRecord): ListedRun {
  return {
    runId: r.runId,
    state: r.state,
    reason: r.reason,
    errorType: r.errorType,
    jobName: r.meta?.jobName,
  };
}

/** The one alert at a silence's end: which runs in its scope are still unhealthy. */
export function summaryAlert(s: Silence, runs: readonly RunRecord[], now: number, links: Links): Alert {
  const first = runs[0]!;
  const state = WORST.find((w) => runs.some((r) => r.state === w)) ?? first.state;
  const ended = s.removedAt !== undefined ? `was removed by ${s.removedBy ?? 'someone'}` : 'ended';
  const ids = runs.map((r) => `${r.runId} (${r.state})`);
  return {
    id: `silence:${s.id}:summary`,
    kind: 'summary',
    runId: first.runId,
    state,
    reason: `Silence ${s.id} on ${describeScope(s.scope)} ("${s.reason}", by ${s.by}) ${ended}: ${runs.length} run${runs.length === 1 ? '' : 's'} still unhealthy: ${runList(ids)}`,
    action: 'Look at each run listed (trainwatch status RUN_ID); acknowledge the ones someone is on',
    severity: state === RunState.WARNING ? 'warning' : 'critical',
    at: now,
    attempt: first.attempt,
    errorType: undefined,
    jobName: s.scope.kind === 'job' ? s.scope.jobName : undefined,
    ...prefixLinks(links),
    runs: runs.map(listed),
    silence: { id: s.id, reason: s.reason, by: s.by, scope: describeScope(s.scope) },
  };
}
