import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { PartialItemFailureResponse as Failures } from '@aws-lambda-powertools/batch/types';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent } from 'aws-lambda';
import * as remediation from '../core/remediation/index.js';
import { type Parsed, parseWith, SqsBatch } from '../events/parse.js';
import { remediationRequest } from '../events/restartRequest.js';
import { createApp } from '../wiring/app.js';
import { remediationDeps } from '../wiring/remediation.js';

const logger = new Logger({ serviceName: 'trainwatch' });
let deps: remediation.RemediationDeps | undefined;

/** Remediates every transition in an EventBridge event or an SQS batch of them (locally); failed records are redelivered. */
export async function handleRemediation(
  d: remediation.RemediationDeps,
  event: unknown,
  now: () => number,
): Promise<{ outcomes: remediation.RemediationOutcome[] } & Failures> {
  const outcomes: remediation.RemediationOutcome[] = [];
  const one = async (req: Parsed<remediation.RemediationRequest>) => {
    if (!req.ok) return logger.info('ignored event', { reason: req.problem });
    try {
      outcomes.push(await remediation.remediate(d, req.data, now()));
    } catch (e) {
      // A store or channel failure (not the run's fault): let the platform retry this one.
      logger.error('remediation failed', { runId: req.data.runId, error: (e as Error).message ?? String(e) });
      throw e;
    }
  };
  const batch = parseWith(event, SqsBatch);
  if (!batch.ok) {
    await one(remediationRequest(event));
    return { outcomes, batchItemFailures: [] };
  }
  const { batchItemFailures } = await processPartialResponse(
    batch.data as SQSEvent,
    (r: { body: string }) => one(remediationRequest(r.body)),
    new BatchProcessor(EventType.SQS),
    { processInParallel: false, throwOnFullBatchFailure: false },
  );
  return { outcomes, batchItemFailures };
}

/** Lambda entry: an EventBridge `Training Run State Change` event (or an SQS batch of them, locally). */
export const handler = async (event: unknown): Promise<Failures> => {
  deps ??= remediationDeps(createApp(process.env));
  const { outcomes, batchItemFailures } = await handleRemediation(deps, event, Date.now);
  for (const { runId, skipped, errorType, decision, diagnosis } of outcomes)
    logger.info('remediation', {
      runId,
      skipped,
      errorType,
      action: decision?.action,
      reason: decision?.reason,
      diagnosis,
    });
  return { batchItemFailures };
};
