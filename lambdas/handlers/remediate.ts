import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { S3AttemptArchive } from '../adapters/s3AttemptArchive.js';
import { SsmCommandRunner, type SsmCommandRunnerOptions } from '../adapters/ssmCommandRunner.js';
import { type App, createApp } from '../app.js';
import { REMEDIABLE_STATES } from '../core/eventRules.js';
import { runIdProblem } from '../core/protocol/runId.js';
import {
  type RemediationDeps,
  type RemediationOutcome,
  type RemediationRequest,
  remediate,
} from '../core/remediation/index.js';
import { ALL_STATES, type RunState } from '../core/states.js';

const logger = new Logger({ serviceName: 'trainwatch' });
const REMEDIABLE: ReadonlySet<string> = new Set(REMEDIABLE_STATES);
let deps: RemediationDeps | undefined;

/** Remediation's ports, from the app (its clients and stores) and the remediation settings. */
export function remediationDeps(app: App, ssm: SsmCommandRunnerOptions = {}): RemediationDeps {
  const { config, clients } = app;
  const r = config.remediation;
  return {
    runs: app.runs,
    states: app.states,
    commands: new SsmCommandRunner(
      clients.ssm,
      clients.s3,
      { bucket: config.bucket, prefix: r.ssmOutputPrefix },
      ssm,
    ),
    archive: new S3AttemptArchive(config.bucket, config.prefix, clients.s3),
    notifiers: app.deps.notifiers,
    links: app.deps.links,
    settings: {
      diagnoseDocument: r.diagnoseDocument,
      restartDocument: r.restartDocument,
      policy: r.policy,
      profile: r.profile,
      commands: r.commands,
    },
    owner: `remediate:${randomUUID()}`,
  };
}

/** The remediable transition an EventBridge event (detail: the Alert) describes, or why it is ignored. */
export function requestOf(event: unknown): RemediationRequest | string {
  const e = event as { source?: unknown; 'detail-type'?: unknown; detail?: Record<string, unknown> } | null;
  const d = e?.detail;
  if (!d || typeof d !== 'object') return 'not an EventBridge event with a detail';
  if (d.kind !== 'transition') return `alert kind ${String(d.kind)} is not a transition`;
  if (typeof d.state !== 'string' || !REMEDIABLE.has(d.state))
    return `state ${String(d.state)} needs no remediation`;
  if (typeof d.runId !== 'string' || runIdProblem(d.runId)) return 'detail.runId is missing or invalid';
  if (!ALL_STATES.includes(d.state as RunState)) return 'unknown state';
  return { runId: d.runId, state: d.state as RunState, alertId: typeof d.id === 'string' ? d.id : undefined };
}

/** Unwraps an SQS batch of EventBridge events (the local mode's route) or takes one EventBridge event. */
function events(event: unknown): { id?: string; body: unknown }[] {
  const records = (event as { Records?: { messageId?: string; body?: string; eventSource?: string }[] })
    ?.Records;
  if (!Array.isArray(records)) return [{ body: event }];
  return records.map((r) => {
    try {
      return { id: r.messageId, body: JSON.parse(r.body ?? 'null') };
    } catch {
      return { id: r.messageId, body: null };
    }
  });
}

/** Remediates every transition in the event; SQS records that threw are reported for redelivery. */
export async function handleRemediation(
  d: RemediationDeps,
  event: unknown,
  now: () => number,
): Promise<{ outcomes: RemediationOutcome[]; batchItemFailures: { itemIdentifier: string }[] }> {
  const outcomes: RemediationOutcome[] = [];
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const { id, body } of events(event)) {
    const req = requestOf(body);
    if (typeof req === 'string') {
      logger.info('ignored event', { reason: req });
      continue;
    }
    try {
      outcomes.push(await remediate(d, req, now()));
    } catch (e) {
      // A store or channel failure (not the run's fault): let the platform retry this one.
      logger.error('remediation failed', {
        runId: req.runId,
        error: e instanceof Error ? e.message : String(e),
      });
      if (id === undefined) throw e;
      batchItemFailures.push({ itemIdentifier: id });
    }
  }
  return { outcomes, batchItemFailures };
}

/** Lambda entry: an EventBridge `Training Run State Change` event (or an SQS batch of them, locally). */
export const handler = async (
  event: unknown,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> => {
  deps ??= remediationDeps(createApp(process.env));
  const { outcomes, batchItemFailures } = await handleRemediation(deps, event, Date.now);
  for (const o of outcomes)
    logger.info('remediation', {
      runId: o.runId,
      skipped: o.skipped,
      errorType: o.errorType,
      action: o.decision?.action,
      reason: o.decision?.reason,
      diagnosis: o.diagnosis,
    });
  return { batchItemFailures };
};
