import { describe, expect, it } from 'vitest';
import { classifyDetailed, ERROR_TYPES } from '../../lambdas/core/classify/index.js';
import { scoreSet } from '../support/classifyAccuracy.js';
import { splitFixtures } from '../support/corpusSplit.js';
import { loadLogFixtures } from '../support/logFixtures.js';

// Floors, not targets: raise them when the signals get better, never lower them to let a change through, and
// never move an excerpt between sets (the set follows the project: test/unit/classifySplit.test.ts). Re-based
// when round 3 grew the corpus from 361 to 448 excerpts (the figures the signals reach on it); on the 361 the
// earlier floors were set on (97.5/97.8, 86.2/90.0) the signals now score 97.9/98.2 and 87.5/90.0. Development
// floor raised when the development set grew to 398 excerpts (the second blind round: 388/398 family and decision);
// validation floor raised after round 4 (141 excerpts; the second blind round: 125/141 family, 127/141 decision).
const DEV_FLOOR = { family: 0.977, decision: 0.979 };
const VALIDATION_FLOOR = { family: 0.886, decision: 0.9 };

const fixtures = splitFixtures(loadLogFixtures());
const healthy = fixtures.filter((f) => f.label === 'healthy');

describe('classification of real log excerpts (test/fixtures/logs)', () => {
  it('is a corpus of at least 300 cited excerpts covering every error type, 40 of them healthy', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(300);
    expect(healthy.length).toBeGreaterThanOrEqual(40);
    const labels = new Set(fixtures.map((f) => f.label));
    for (const t of ERROR_TYPES) expect([t, labels.has(t)]).toEqual([t, true]);
    for (const f of fixtures)
      expect(f.source).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(issues|pull)\/\d+$/);
  });

  it('raises no false alarm on any healthy excerpt, in either set (warnings are allowed)', () => {
    const alarms = healthy
      .map((f) => ({ f, d: classifyDetailed(f.text) }))
      .filter(({ d }) => d.matches.some((m) => m.error_type !== null))
      .map(({ f, d }) => `${f.set}: ${f.name} → ${d.error_type}`);
    expect(alarms).toEqual([]);
  });

  it('holds its floor on the development set (the excerpts the signals were tuned on)', () => {
    const { all } = scoreSet(fixtures, 'development');
    expect(all.n).toBeGreaterThanOrEqual(200);
    expect(all.family / all.n).toBeGreaterThanOrEqual(DEV_FLOOR.family);
    expect(all.decision / all.n).toBeGreaterThanOrEqual(DEV_FLOOR.decision);
  });

  it('is measured on the validation set (projects never tuned on) and holds its floor there', () => {
    const { all, byLabel } = scoreSet(fixtures, 'validation');
    expect(all.n).toBe(fixtures.filter((f) => f.set === 'validation').length);
    expect(all.n).toBeGreaterThanOrEqual(50);
    expect(byLabel.size).toBeGreaterThanOrEqual(15);
    console.log(
      `validation: family ${all.family}/${all.n}, decision ${all.decision}/${all.n}, exact ${all.exact}/${all.n}`,
    );
    expect(all.family / all.n).toBeGreaterThanOrEqual(VALIDATION_FLOOR.family);
    expect(all.decision / all.n).toBeGreaterThanOrEqual(VALIDATION_FLOOR.decision);
  });
});
