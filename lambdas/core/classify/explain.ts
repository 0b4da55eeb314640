import { causeRankOf, FAMILIES, familyOf } from './causes.js';
import type { Hint } from './hint.js';
import type { Severity } from './schema.js';
import type { SignalMatch } from './types.js';

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { critical: 3, error: 2, warning: 1, info: 0 };

type Ranked = Pick<SignalMatch, 'signal' | 'error_type' | 'priority' | 'severity' | 'line'>;

/** Better first: an error type over a bare warning, then the root cause (family rank), then priority, severity, line. */
export function compareMatches(a: Ranked, b: Ranked): number {
  const typed = Number(b.error_type !== null) - Number(a.error_type !== null);
  if (typed) return typed;
  const cause = causeRankOf(b.error_type) - causeRankOf(a.error_type);
  if (cause) return cause;
  if (a.priority !== b.priority) return b.priority - a.priority;
  const sev = SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity];
  return sev || a.line - b.line;
}

function kind(m: Ranked): string {
  return m.error_type ? `${m.error_type}, ${familyOf(m.error_type)}` : 'warning';
}

/** Which step of `compareMatches` put `winner` above `other`, in words. */
export function orderRule(winner: Ranked, other: Ranked): string {
  if ((winner.error_type !== null) !== (other.error_type !== null))
    return 'a failure outranks a warning (a warning has no error type)';
  const [rw, ro] = [causeRankOf(winner.error_type), causeRankOf(other.error_type)];
  if (rw !== ro)
    return `root cause over consequence: ${familyOf(winner.error_type)} (rank ${rw}) outranks ${familyOf(other.error_type)} (rank ${ro})`;
  if (winner.priority !== other.priority)
    return `same cause rank ${rw}: signal priority ${winner.priority} > ${other.priority}`;
  if (winner.severity !== other.severity)
    return `same cause rank and priority: severity ${winner.severity} > ${other.severity}`;
  return `same cause rank, priority and severity: earlier line (${winner.line} < ${other.line})`;
}

/** The ordering rule as a whole, for the last line of an explanation. */
export const ORDER_RULE = `order: a failure over a warning, then root cause over consequence (${[
  ...new Set(FAMILIES.map((f) => f.rank)),
]
  .map((r) =>
    FAMILIES.filter((f) => f.rank === r)
      .map((f) => f.family)
      .join('/'),
  )
  .join(' > ')}), then signal priority, severity, earliest line`;

/** What an explanation needs: the winner's outcome and every match, best first. */
export interface Explainable {
  readonly error_type: string | null;
  readonly signal: string | null;
  readonly fields: Readonly<Record<string, string>>;
  readonly matches: readonly SignalMatch[];
  /** Lines that read like an error where no signal matched (classify's `hints`). */
  readonly hints?: readonly Hint[];
}

/**
 * Why the classifier decided what it did, as lines: the winner, the line it matched, the runners-up with the
 * rule that put the winner above each. The one text both `trainwatch classify --explain` and the alert show.
 */
export function explain(c: Explainable, maxRunnersUp = 3): string[] {
  const fields = Object.entries(c.fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  if (!c.error_type) {
    const warnings = c.matches.filter((m) => m.error_type === null);
    const lines = ['error type: unknown (no signal matched)'];
    if (warnings.length)
      lines[0] = `error type: unknown (only warnings matched: ${warnings.map((m) => m.signal).join(', ')})`;
    const hints = c.hints ?? [];
    const which = hints.length > 1 ? ['first ', 'last '] : [''];
    for (const [i, h] of hints.entries()) lines.push(`${which[i]}error-like line ${h.line}: ${h.text}`);
    if (hints.length)
      lines.push(
        'no signal knows these words: read the line; a signal in a custom profile teaches trainwatch',
      );
    return lines;
  }
  const best = c.matches.find((m) => m.signal === c.signal);
  if (!best) return [`error type: ${c.error_type} (recorded earlier; no signal matches the current text)`];
  const lines = [
    `error type: ${c.error_type} (signal ${c.signal}${fields ? `; ${fields}` : ''})`,
    `matched line ${best.line}: ${best.text}`,
  ];
  const others = c.matches.filter((m) => m !== best);
  for (const m of others.slice(0, maxRunnersUp))
    lines.push(`runner-up: ${m.signal} (${kind(m)}) line ${m.line}, lost: ${orderRule(best, m)}`);
  if (others.length > maxRunnersUp) lines.push(`and ${others.length - maxRunnersUp} more signals matched`);
  lines.push(others.length ? ORDER_RULE : 'no other signal matched');
  return lines;
}
