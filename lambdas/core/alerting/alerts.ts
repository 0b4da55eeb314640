import type { Alert, AlertKind } from '../model/alert.js';
import type { RunRecord } from '../model/record.js';
import { alertProgress, type ProgressFacts } from '../model/slices/attempt.js';
import type { RunState } from '../model/states.js';
import { actionFor, severityFor } from './actions.js';

/** Where the run's files are, for links in alerts. */
export interface Links {
  readonly bucket: string;
  readonly prefix: string;
  readonly region: string;
}

/** Steps per ms between the first step we saw and the latest advance; undefined without two points. */
function etaMs(r: ProgressFacts): number | undefined {
  const { step, totalSteps, firstStep, firstStepAt, stepAdvancedAt } = r;
  if (step === undefined || !totalSteps || firstStep === undefined || firstStepAt === undefined)
    return undefined;
  if (stepAdvancedAt === undefined || stepAdvancedAt <= firstStepAt || step <= firstStep) return undefined;
  const rate = (step - firstStep) / (stepAdvancedAt - firstStepAt);
  return Math.max(0, Math.round((totalSteps - step) / rate));
}

/** Builds the alert for `record` (already in its new state). Pure. */
export function buildAlert(
  record: RunRecord,
  opts: { kind: AlertKind; previousState?: RunState; now: number; links: Links; details?: readonly string[] },
): Alert {
  const { links } = opts;
  const path = `${links.prefix ? `${links.prefix}/` : ''}${record.runId}/`;
  const started = record.meta?.startedAt ?? record.firstSeenAt;
  return {
    id: `${record.runId}:${record.version}:${opts.kind}`,
    kind: opts.kind,
    runId: record.runId,
    state: record.state,
    previousState: opts.previousState,
    reason: record.reason,
    action: actionFor(record.state, record.errorType, record.cause),
    severity: severityFor(record.state),
    at: opts.now,
    since: record.since,
    attempt: record.attempt,
    errorType: record.errorType ?? undefined,
    instanceId: record.meta?.instanceId,
    where: record.meta?.where,
    jobName: record.meta?.jobName,
    phase: record.meta?.phase,
    durationMs: Math.max(0, opts.now - started),
    ...alertProgress(record.facts),
    etaMs: record.state === 'RUNNING' ? etaMs(record.facts) : undefined,
    details: opts.details?.length ? opts.details : undefined,
    s3Uri: `s3://${links.bucket}/${path}`,
    consoleUrl: `https://s3.console.aws.amazon.com/s3/buckets/${encodeURIComponent(links.bucket)}?region=${links.region}&prefix=${encodeURIComponent(path)}`,
  };
}

export { etaMs };
