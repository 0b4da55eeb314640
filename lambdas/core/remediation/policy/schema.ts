import * as z from 'zod/mini';
import '../../base/zod.js';

/** Which kind of trouble a restart would answer: DESIGN's modes, from the run's state. */
export const MODES = ['crash', 'stall', 'timeout'] as const;
export type Mode = (typeof MODES)[number];

const errorType = z
  .string()
  .check(z.regex(/^(\*|unknown|[a-z][a-z0-9_]{0,63})$/, 'an error type, "unknown" (none classified) or "*"'));

/** What to do in one mode. */
export const ModePolicySchema = z.strictObject({
  /** Error types to restart on; `*` means every restartable type, `unknown` means no type was classified. */
  restart_on: z._default(z.array(errorType), []),
  /** Error types never to restart on (wins over `restart_on`). */
  exclude: z._default(z.array(errorType), []),
  /** For a type in neither list. */
  default_action: z._default(z.enum(['restart', 'alert']), 'alert'),
});

/** A restart policy: per-mode rules, a budget and a backoff. */
export const PolicySchema = z.strictObject({
  name: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)),
  description: z.optional(z.string().check(z.maxLength(500))),
  /** Restarts allowed per run (attempts = restarts + 1). */
  max_restarts: z.int().check(z.minimum(0), z.maximum(100)),
  backoff: z.prefault(
    z.strictObject({
      /** Delay before the first restart. */
      initial_seconds: z._default(z.int().check(z.minimum(0), z.maximum(86_400)), 60),
      factor: z._default(z.number().check(z.minimum(1), z.maximum(10)), 2),
      max_seconds: z._default(z.int().check(z.minimum(0), z.maximum(86_400)), 900),
    }),
    {},
  ),
  modes: z.strictObject({
    crash: z.prefault(ModePolicySchema, {}),
    stall: z.prefault(ModePolicySchema, {}),
    timeout: z.prefault(ModePolicySchema, {}),
  }),
});

export type ModePolicy = z.output<typeof ModePolicySchema>;
/** A validated restart policy. */
export type RestartPolicy = z.output<typeof PolicySchema>;
/** A policy as written in JSON or YAML (defaults may be omitted). */
export type RestartPolicyInput = z.input<typeof PolicySchema>;
