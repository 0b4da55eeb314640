import { runIdProblem } from './runId.js';

/**
 * The shapes every SSM document parameter must have. The documents use the same patterns as
 * `allowedPattern`, and the scripts put parameters in single-quoted assignments: none of these
 * shapes can hold a quote, `$`, `;`, a backtick or a newline, so nothing can reach a shell as code.
 */
export const PARAM_PATTERNS = {
  runId: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
  /** Absolute, no `.`/`..` segment (a segment cannot start with a dot), safe characters; or empty. */
  path: '^(|(/[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}){1,32}/?)$',
  /** A `pgrep -f` pattern: words, paths, flags; or empty. */
  processPattern: '^[A-Za-z0-9 ._/=:+-]{0,200}$',
  /** The operator's restart command: a program and its arguments, no shell syntax. */
  command: '^[A-Za-z0-9 _./=:,@%+-]{1,1024}$',
  user: '^(|[a-z_][a-z0-9_-]{0,31})$',
  count: '^[0-9]{1,5}$',
  instanceId: '^i-[0-9a-f]{8,17}$',
  /** A DNS host name (the master address of a multi-node restart), or empty. */
  host: '^(|[A-Za-z0-9][A-Za-z0-9_-]{0,62}(\\.[A-Za-z0-9_-]{1,63}){0,8})$',
  /** Host names separated by commas (hosts the scheduler should avoid), or empty. */
  hosts: '^(|[A-Za-z0-9][A-Za-z0-9._-]{0,252}(,[A-Za-z0-9][A-Za-z0-9._-]{0,252}){0,63})$',
  /** What a restart does without a checkpoint: refuse, or start from scratch. */
  resume: '^(require|allow_scratch)$',
} as const;

const RE = Object.fromEntries(Object.entries(PARAM_PATTERNS).map(([k, v]) => [k, new RegExp(v)])) as Record<
  keyof typeof PARAM_PATTERNS,
  RegExp
>;

/** Whether `value` has the shape of parameter `kind`. */
export function validParam(kind: keyof typeof PARAM_PATTERNS, value: string): boolean {
  if (kind === 'runId') return runIdProblem(value) === undefined && RE.runId.test(value);
  return RE[kind].test(value);
}

/** `value` if it has the shape of `kind`, else undefined (and `problems` gets a line saying why). */
export function checked(
  kind: keyof typeof PARAM_PATTERNS,
  name: string,
  value: string | undefined,
  problems: string[],
): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (validParam(kind, value)) return value;
  problems.push(
    `${name} ${JSON.stringify(value.slice(0, 80))} is not a safe ${kind === 'path' ? 'absolute path' : kind}: ignored`,
  );
  return undefined;
}
