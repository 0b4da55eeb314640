import * as z from 'zod';

/** Which kind of trouble a restart would answer: DESIGN's modes, from the run's state. */
export const MODES = ['crash', 'stall', 'timeout'] as const;
export type Mode = (typeof MODES)[number];

const errorType = z
  .string()
  .regex(/^(\*|unknown|[a-z][a-z0-9_]{0,63})$/, 'an error type, "unknown" (none classified) or "*"');

/** What to do in one mode. */
export const ModePolicySchema = z.strictObject({
  /** Error types to restart on; `*` means every restartable type, `unknown` means no type was classified. */
  restart_on: z.array(errorType).default([]),
  /** Error types never to restart on (wins over `restart_on`). */
  exclude: z.array(errorType).default([]),
  /** For a type in neither list. */
  default_action: z.enum(['restart', 'alert']).default('alert'),
});

/** A restart policy: per-mode rules, a budget and a backoff. */
export const PolicySchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
  description: z.string().max(500).optional(),
  /** Restarts allowed per run (attempts = restarts + 1). */
  max_restarts: z.number().int().min(0).max(100),
  backoff: z
    .strictObject({
      /** Delay before the first restart. */
      initial_seconds: z.number().int().min(0).max(86_400).default(60),
      factor: z.number().min(1).max(10).default(2),
      max_seconds: z.number().int().min(0).max(86_400).default(900),
    })
    .prefault({}),
  modes: z.strictObject({
    crash: ModePolicySchema.prefault({}),
    stall: ModePolicySchema.prefault({}),
    timeout: ModePolicySchema.prefault({}),
  }),
});

export type ModePolicy = z.output<typeof ModePolicySchema>;
/** A validated restart policy. */
export type RestartPolicy = z.output<typeof PolicySchema>;
/** A policy as written in JSON or YAML (defaults may be omitted). */
export type RestartPolicyInput = z.input<typeof PolicySchema>;
