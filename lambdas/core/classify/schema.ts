import * as z from 'zod';

/** How bad a matched signal is. */
export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Regex source that must compile (flags are checked with it). */
const regexSource = z.string().min(1).max(4000);

/** One named signal: a regex (with named capture groups) and what a match means. */
export const SignalSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be snake_case (a-z, 0-9, _), at most 64 characters'),
    /** Matched against each line (lines over 4,000 characters are cut). */
    pattern: regexSource,
    /** Regex flags; `i` by default. Only i, m, s and u are allowed (g and y would make matching stateful). */
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'only the flags i, m, s and u are allowed')
      .default('i'),
    /** The failure class a match means; null for a warning that explains nothing by itself. */
    error_type: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .nullable(),
    severity: z.enum(SEVERITIES),
    /** Where the fault lives: cuda, host, disk, nccl, network, gpu, python, training, scheduler. */
    subsystem: z.string().min(1).max(32),
    /** Higher wins when several signals match; root causes rank above their symptoms. */
    priority: z.number().int().min(0).max(1000),
    /** Named groups to report in `fields`; all named groups when omitted. */
    fields: z.array(z.string().regex(/^[A-Za-z_]\w*$/)).optional(),
    /** Another regex that must match somewhere in the whole text (context, e.g. "EFA was expected"). */
    requires: regexSource.optional(),
    /** A line that also matches this is not a match (e.g. a harmless warning that names the word). */
    unless: regexSource.optional(),
    /** A regex that, matching anywhere in the whole text, turns the signal off (a crash's backtrace is no hang). */
    excludes: regexSource.optional(),
    /**
     * Lines that must match before the signal counts (default 1): one nan grad norm is a skipped fp16 step,
     * the same on every logged step is a diverged run.
     */
    min_lines: z.number().int().min(1).max(1000).optional(),
    /** Overrides the error type's restartability (for custom error types). */
    restartable: z.boolean().optional(),
    description: z.string().max(500).optional(),
  })
  .superRefine((s, ctx) => {
    for (const key of ['pattern', 'requires', 'unless', 'excludes'] as const) {
      const source = s[key];
      if (source === undefined) continue;
      try {
        new RegExp(source, s.flags);
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `is not a valid regex: ${(e as Error).message}`,
        });
      }
    }
    const groups = new Set([...s.pattern.matchAll(/\(\?<([A-Za-z_]\w*)>/g)].map((m) => m[1]));
    for (const f of s.fields ?? [])
      if (!groups.has(f))
        ctx.addIssue({
          code: 'custom',
          path: ['fields'],
          message: `names ${f}, which is not a named group of pattern`,
        });
  });

/** A signal as written in a profile file (`flags` may be omitted). */
export type SignalInput = z.input<typeof SignalSchema>;
/** A validated signal. */
export type Signal = z.output<typeof SignalSchema>;

/** A profile: a named set of signals, optionally built on other profiles. */
export const ProfileSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be letters, digits, . _ -'),
  description: z.string().max(500).optional(),
  /** Built-in profiles whose signals come first; a signal of the same name here replaces theirs. */
  extends: z.array(z.string()).default([]),
  /** Names of inherited signals to drop. */
  disable: z.array(z.string()).default([]),
  signals: z.array(SignalSchema).default([]),
});

export type ProfileInput = z.input<typeof ProfileSchema>;
/** A profile with its inheritance resolved: `signals` is the full list. */
export interface Profile {
  readonly name: string;
  readonly description?: string;
  readonly signals: readonly Signal[];
}
