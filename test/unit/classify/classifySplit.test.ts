import { describe, expect, it } from 'vitest';
import { projectHash, readSplit, SPLIT_RULE, setOf, splitFixtures } from '../../support/corpusSplit.js';
import { loadLogFixtures, projectOf } from '../../support/logFixtures.js';

const fixtures = loadLogFixtures();
const split = readSplit();

describe('the development / validation split of the log corpus (split.json)', () => {
  it('names the project of a source URL, lowercased, and refuses anything else', () => {
    expect(projectOf('https://github.com/NVIDIA/nccl/issues/1241')).toBe('nvidia/nccl');
    expect(projectOf('https://github.com/pytorch/pytorch/pull/7')).toBe('pytorch/pytorch');
    expect(() => projectOf('https://example.com/x')).toThrow(/not a GitHub issue/);
  });

  it('lists exactly the projects of the corpus (run scripts/classify-split.ts after adding excerpts)', () => {
    expect(Object.keys(split.projects).sort()).toEqual([...new Set(fixtures.map((f) => f.project))].sort());
  });

  it('derives every set from the project by the rule, never per file or per project by hand', () => {
    expect(split.rule).toBe(SPLIT_RULE);
    for (const [project, set] of Object.entries(split.projects))
      expect([project, set]).toEqual([project, setOf(project, split)]);
    // One project, one set: an excerpt cannot sit in validation while a sibling from its tracker is tuned on.
    const byProject = new Map<string, Set<string>>();
    for (const f of splitFixtures(fixtures, split))
      byProject.set(f.project, (byProject.get(f.project) ?? new Set()).add(f.set));
    for (const sets of byProject.values()) expect(sets.size).toBe(1);
  });

  it('keeps every project the signals were first tuned on in development', () => {
    expect(split.tuned_on.length).toBeGreaterThanOrEqual(40);
    for (const p of split.tuned_on) expect(setOf(p, split)).toBe('development');
  });

  it('holds out about the validation share of the other projects, with validation excerpts for most labels', () => {
    const fresh = Object.keys(split.projects).filter((p) => !split.tuned_on.includes(p));
    const val = fresh.filter((p) => split.projects[p] === 'validation');
    expect(val.length / fresh.length).toBeGreaterThan(0.2);
    expect(val.length / fresh.length).toBeLessThan(0.6);
    const inVal = new Set(
      splitFixtures(fixtures, split)
        .filter((f) => f.set === 'validation')
        .map((f) => f.label),
    );
    expect(inVal.size).toBeGreaterThanOrEqual(15);
    expect(inVal).toContain('healthy');
  });

  it('hashes deterministically into [0, 1)', () => {
    expect(projectHash('nvidia/nccl', 11)).toBe(projectHash('nvidia/nccl', 11));
    expect(projectHash('nvidia/nccl', 11)).not.toBe(projectHash('nvidia/nccl', 12));
    for (const p of Object.keys(split.projects)) expect(projectHash(p, split.salt)).toBeLessThan(1);
  });
});
