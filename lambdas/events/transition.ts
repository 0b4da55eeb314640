import * as z from 'zod';
import { REMEDIABLE_STATES } from '../core/eventRules.js';
import { runIdProblem } from '../core/protocol/runId.js';
import type { RemediationRequest } from '../core/remediation/index.js';
import { ALL_STATES, type RunState } from '../core/states.js';

const REMEDIABLE: ReadonlySet<string> = new Set(REMEDIABLE_STATES);

/** A remediable transition, from an EventBridge event whose detail is the Alert (or why it is ignored). */
export const Transition = z
  .object(
    {
      detail: z.object(
        {
          kind: z.literal('transition', {
            error: (i) => `alert kind ${String(i.input)} is not a transition`,
          }),
          state: z
            .string({ error: (i) => `state ${String(i.input)} needs no remediation` })
            .refine((s) => REMEDIABLE.has(s), {
              error: (i) => `state ${String(i.input)} needs no remediation`,
            })
            .refine((s) => ALL_STATES.includes(s as RunState), 'unknown state'),
          runId: z
            .string({ error: 'detail.runId is missing or invalid' })
            .refine((id) => !runIdProblem(id), 'detail.runId is missing or invalid'),
          // An id makes a redelivered event a no-op; an event without one is still handled.
          id: z.unknown().transform((v) => (typeof v === 'string' ? v : undefined)),
        },
        { error: 'not an EventBridge event with a detail' },
      ),
    },
    { error: 'not an EventBridge event with a detail' },
  )
  .transform(
    ({ detail: d }): RemediationRequest => ({ runId: d.runId, state: d.state as RunState, alertId: d.id }),
  );
