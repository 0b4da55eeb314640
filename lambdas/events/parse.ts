import { parse } from '@aws-lambda-powertools/parser';
import * as z from 'zod/mini';
import '../core/base/zod.js';

// Powertools' own EventBridge and SQS schemas and envelopes import `{ z }` from zod, which bundles all of
// zod's locales (+360 KB per function, past the 250 KB budget): the schemas here are ours, parsed with its `parse`.

/** One event parsed: its data, or one line saying why it is not what the handler takes. */
export type Parsed<T> =
  | { readonly ok: true; readonly data: T }
  | { readonly ok: false; readonly problem: string };

/** Parses `data` with `schema` (Powertools Parser, safe mode); the first issue becomes the problem. */
export function parseWith<S extends z.ZodMiniType>(data: unknown, schema: S): Parsed<z.output<S>> {
  const r = parse(data, undefined, schema, true);
  if (r.success) return { ok: true, data: r.data as z.output<S> };
  const issue = (r.error.cause as readonly z.core.$ZodIssue[] | undefined)?.[0];
  if (!issue) return { ok: false, problem: r.error.message };
  return {
    ok: false,
    problem: issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  };
}

/** JSON text holding an event (an SQS record's body), then `schema`. */
export function jsonOf<S extends z.ZodMiniType>(schema: S) {
  return z.pipe(
    z.pipe(
      z.string(),
      z.transform((text: string, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.issues.push({ code: 'custom', message: 'the message body is not JSON', input: text });
          return z.NEVER;
        }
      }),
    ),
    schema,
  );
}

/**
 * An SQS batch as the local mode hands it over (the emulator cannot invoke Lambdas, so EventBridge
 * events reach the handlers through queues): each record's id, for redelivery, and its body.
 */
export const SqsBatch = z.object({
  Records: z.array(z.object({ messageId: z.optional(z.string()), body: z.string() })),
});
