import * as z from 'zod/mini';
import { runIdProblem } from '../core/protocol/runId.js';
import { REMEDIABLE_STATES, RESTART_REQUEST } from '../core/remediation/eventRules.js';
import type { RemediationRequest } from '../core/remediation/index.js';
import '../core/base/zod.js';
import { jsonOf, type Parsed, parseWith } from './parse.js';
import { Transition } from './transition.js';

const badRunId = 'detail.runId is missing or invalid';

/** The `detail` of a restart request (adapters/aws/restartRequests.ts puts it; the remediation function takes it). */
export interface RestartRequestDetail {
  readonly runId: string;
  /** The state the person saw: remediation does nothing if the run moved on. */
  readonly state: (typeof REMEDIABLE_STATES)[number];
  /** Unique per request: a redelivered event does nothing twice. */
  readonly id: string;
  readonly requestedBy: string;
}

/** A person's restart request (`detail-type: Training Run Restart Requested`), as a remediation request. */
export const RestartRequest = z.pipe(
  z.object({
    'detail-type': z.literal(RESTART_REQUEST.detailType, { error: 'not a restart request' }),
    detail: z.object({
      runId: z.string({ error: badRunId }).check(z.refine((id) => !runIdProblem(id), badRunId)),
      state: z.enum(REMEDIABLE_STATES, { error: (i) => `state ${String(i.input)} needs no restart` }),
      id: z.string().check(z.minLength(1), z.maxLength(200)),
      requestedBy: z.string().check(z.minLength(1), z.maxLength(200)),
    }),
  }),
  z.transform(
    ({ detail: d }): RemediationRequest => ({
      runId: d.runId,
      state: d.state,
      alertId: d.id,
      requestedBy: d.requestedBy,
    }),
  ),
);

/**
 * What the remediation function takes: a transition, or a person's restart request (the detail-type says
 * which); an SQS record's body (the local mode) is JSON text of either.
 */
export function remediationRequest(event: unknown): Parsed<RemediationRequest> {
  const either = (schema: typeof RestartRequest | typeof Transition) =>
    parseWith(event, typeof event === 'string' ? jsonOf(schema) : schema);
  const asked = either(RestartRequest);
  return asked.ok ? asked : either(Transition);
}
