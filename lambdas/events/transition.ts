import * as z from 'zod/mini';
import { runIdProblem } from '../core/protocol/runId.js';
import { DIAGNOSED_WARNING, REMEDIABLE_STATES } from '../core/remediation/eventRules.js';
import type { RemediationRequest } from '../core/remediation/index.js';
import '../core/base/zod.js';

const noDetail = 'not an EventBridge event with a detail';
const badRunId = 'detail.runId is missing or invalid';

/** A remediable transition, from an EventBridge event whose detail is the Alert (or why it is ignored). */
export const Transition = z.pipe(
  z
    .object(
      {
        detail: z.object(
          {
            kind: z.literal('transition', {
              error: (i) => `alert kind ${String(i.input)} is not a transition`,
            }),
            state: z.enum([...REMEDIABLE_STATES, DIAGNOSED_WARNING.state], {
              error: (i) => `state ${String(i.input)} needs no remediation`,
            }),
            reason: z.optional(z.string()),
            runId: z.string({ error: badRunId }).check(z.refine((id) => !runIdProblem(id), badRunId)),
            // An id makes a redelivered event a no-op; an event without one is still handled.
            id: z.pipe(
              z.unknown(),
              z.transform((v) => (typeof v === 'string' ? v : undefined)),
            ),
          },
          { error: noDetail },
        ),
      },
      { error: noDetail },
    )
    // A WARNING is diagnosed only for a throughput drop (the rule says so too; this guards other routes).
    .check(
      z.refine(
        ({ detail: d }) =>
          d.state !== 'WARNING' || d.reason?.startsWith(DIAGNOSED_WARNING.reasonPrefix) === true,
        { error: 'a WARNING needs no remediation unless throughput dropped' },
      ),
    ),
  z.transform(({ detail: d }): RemediationRequest => ({ runId: d.runId, state: d.state, alertId: d.id })),
);
