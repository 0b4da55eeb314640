import * as z from 'zod/mini';
import '../base/zod.js';

/** How bad a matched signal is. */
export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Regex source that must compile (flags are checked with it). */
const regexSource = z.string().check(z.minLength(1), z.maxLength(4000));

/** One named signal: a regex (with named capture groups) and what a match means. */
export const SignalSchema = z
  .strictObject({
    name: z
      .string()
      .check(z.regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be snake_case (a-z, 0-9, _), at most 64 characters')),
    /** Matched against each line (lines over 4,000 characters are cut). */
    pattern: regexSource,
    /** Regex flags; `i` by default. Only i, m, s and u are allowed (g and y would make matching stateful). */
    flags: z._default(
      z.string().check(z.regex(/^[imsu]*$/, 'only the flags i, m, s and u are allowed')),
      'i',
    ),
    /** The failure class a match means; null for a warning that explains nothing by itself. */
    error_type: z.nullable(z.string().check(z.regex(/^[a-z][a-z0-9_]{0,63}$/))),
    severity: z.enum(SEVERITIES),
    /** Where the fault lives: cuda, host, disk, nccl, network, gpu, python, training, scheduler. */
    subsystem: z.string().check(z.minLength(1), z.maxLength(32)),
    /** Higher wins when several signals match; root causes rank above their symptoms. */
    priority: z.int().check(z.minimum(0), z.maximum(1000)),
    /** Named groups to report in `fields`; all named groups when omitted. */
    fields: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_]\w*$/)))),
    /** Another regex that must match somewhere in the whole text (context, e.g. "EFA was expected"). */
    requires: z.optional(regexSource),
    /** A line that also matches this is not a match (e.g. a harmless warning that names the word). */
    unless: z.optional(regexSource),
    /** A regex that, matching anywhere in the whole text, turns the signal off (a crash's backtrace is no hang). */
    excludes: z.optional(regexSource),
    /**
     * Lines that must match before the signal counts (default 1): one nan grad norm is a skipped fp16 step,
     * the same on every logged step is a diverged run.
     */
    min_lines: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
    /** Overrides the error type's restartability (for custom error types). */
    restartable: z.optional(z.boolean()),
    description: z.optional(z.string().check(z.maxLength(500))),
  })
  .check(
    z.superRefine((s, ctx) => {
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
    }),
  );

/** A signal as written in a profile file (`flags` may be omitted). */
export type SignalInput = z.input<typeof SignalSchema>;
/** A validated signal. */
export type Signal = z.output<typeof SignalSchema>;

/** A profile: a named set of signals, optionally built on other profiles. */
export const ProfileSchema = z.strictObject({
  name: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be letters, digits, . _ -')),
  description: z.optional(z.string().check(z.maxLength(500))),
  /** Built-in profiles whose signals come first; a signal of the same name here replaces theirs. */
  extends: z._default(z.array(z.string()), []),
  /** Names of inherited signals to drop. */
  disable: z._default(z.array(z.string()), []),
  signals: z._default(z.array(SignalSchema), []),
});

export type ProfileInput = z.input<typeof ProfileSchema>;
/** A profile with its inheritance resolved: `signals` is the full list. */
export interface Profile {
  readonly name: string;
  readonly description?: string;
  readonly signals: readonly Signal[];
}
