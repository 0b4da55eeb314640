import { classify, decisionOf, familyOf, type RestartDecision } from '../../lambdas/core/classify/index.js';
import type { CorpusSet } from './corpusSplit.js';
import type { LogFixture } from './logFixtures.js';

/** What a fixture's label means: the family and the restart decision a person would take. */
export function expectedOf(label: string): { family: string; decision: RestartDecision } {
  const type = label === 'healthy' ? null : label;
  return { family: familyOf(type), decision: decisionOf(type) };
}

/** Figures for one group of excerpts (a label, or all of a set). */
export interface Tally {
  n: number;
  /** Same failure family as the label (memory, disk, code, collective, …; healthy for no error type). */
  family: number;
  /** Same decision: restart / don't restart / warn / healthy. */
  decision: number;
  /** Same error type exactly (stricter than family). */
  exact: number;
  /** Healthy excerpts that got an error type. */
  falseAlarms: number;
  misses: string[];
}

export interface SetReport {
  readonly byLabel: ReadonlyMap<string, Tally>;
  readonly all: Tally;
  /** How many excerpts whose label calls for one decision got another: `decisions.get(want)?.get(got)`. */
  readonly decisions: ReadonlyMap<RestartDecision, ReadonlyMap<RestartDecision, number>>;
}

const empty = (): Tally => ({ n: 0, family: 0, decision: 0, exact: 0, falseAlarms: 0, misses: [] });

/** Classifies every excerpt of one set and tallies it per label and overall. */
export function scoreSet(fixtures: readonly (LogFixture & { set: CorpusSet })[], set: CorpusSet): SetReport {
  const byLabel = new Map<string, Tally>();
  const all = empty();
  const decisions = new Map<RestartDecision, Map<RestartDecision, number>>();
  for (const f of fixtures) {
    if (f.set !== set) continue;
    const got = classify(f.text);
    const want = expectedOf(f.label);
    const decided = decisionOf(got.error_type, got.restartable);
    const row = decisions.get(want.decision) ?? new Map<RestartDecision, number>();
    decisions.set(want.decision, row.set(decided, (row.get(decided) ?? 0) + 1));
    const t = byLabel.get(f.label) ?? empty();
    byLabel.set(f.label, t);
    for (const x of [t, all]) {
      x.n++;
      if (familyOf(got.error_type) === want.family) x.family++;
      if (decided === want.decision) x.decision++;
      if (got.error_type === (f.label === 'healthy' ? null : f.label)) x.exact++;
      if (f.label === 'healthy' && got.error_type !== null) x.falseAlarms++;
    }
    if (got.error_type !== (f.label === 'healthy' ? null : f.label))
      t.misses.push(`${f.name} → ${got.error_type}`);
  }
  return { byLabel: new Map([...byLabel].sort(([a], [b]) => a.localeCompare(b))), all, decisions };
}

export const pct = (k: number, n: number): string => (n ? `${((100 * k) / n).toFixed(1)}%` : '–');

/** `k/n (p%)`, as the accuracy tables print a count. */
export const ratio = (k: number, n: number): string => `${k}/${n} (${pct(k, n)})`;
