import { describe, expect, it } from 'vitest';
import { classifyDetailed, ERROR_TYPES } from '../../../lambdas/core/classify/index.js';
import { scoreSet } from '../../support/classifyAccuracy.js';
import { splitFixtures } from '../../support/corpusSplit.js';
import { loadLogFixtures } from '../../support/logFixtures.js';

// Floors, not targets: raise them when the signals get better, never lower them to let a change through, and
// never move an excerpt between sets (the set follows the project: test/unit/classify/classifySplit.test.ts). A floor is
// re-based only when new excerpts grow the corpus, to the figures the signals reach on it, and only if the signals
// still hold the old floor on the excerpts it was set on. Round 3 (361 → 448): 97.9/98.2 and 87.5/90.0 on the 361
// (floors were 97.5/97.8, 86.2/90.0). Round 4 (→ 539, the second blind round): validation 125/141 family, 127/141
// decision. Round 5 (→ 613, the third blind round): development 434/444 family, 435/444 decision; validation
// 145/169 and 148/169, and on the 141 excerpts of round 4 still 125 and 127 (the floor of 88.6/90.0 held there).
// Fourth blind round (development 444 → 494 with 50 excerpts copied in mid-round): 476 and 478 of 494 when they
// arrived, 484 and 485 after (the 444 still at 434 and 435 or better). Round 6 (→ 694): validation 173/200 family,
// 177/200 decision; on the 169 excerpts of round 5 148 and 152 (the floor of 85.7/87.5 held there). Round 7 (→ 781,
// the fifth blind round): development 532/542 and 533/542; validation 205/239 and 211/239, and on the 200 excerpts
// of round 6 175 and 179 (the floor of 86.5/88.5 held there). Sixth blind round (development 542 → 590 with 48
// excerpts copied in mid-round): 570 and 571 of 590 when they arrived, 581 and 582 after (the 542 unchanged). Round 8
// (→ 867): validation 233/277 and 239/277, and on the 239 excerpts of round 7 206 and 212 (the floor of 85.7/88.2
// held there). Rounds 9 and 10 (→ 1008, the seventh blind round, development 590 → 684 copied in mid-round):
// development 674/684 and 675/684; validation 280/324 and 286/324, and on the 277 excerpts of round 8 235 and 241
// (the floor of 84.1/86.2 held there). Round 11 (→ 1117, the eighth blind round, development 684 → 753 copied in
// mid-round): development 741/753 and 742/753 (the 684 still at 674 and 675); validation 315/364 and 321/364, and on
// the 324 excerpts of rounds 9 and 10 281 and 287 (the floor of 86.4/88.2 held there). Round 12 (→ 1221, the ninth
// blind round, development 753 → 816 copied in mid-round): development 804/816 and 806/816; validation 350/405 and
// 359/405, and on the 364 excerpts of round 11 315 and 321 (the floor of 86.5/88.1 held there). The text-only label
// audit (docs/CORPUS_AUDIT.md; no signal changed) relabelled 9 excerpts by its rule fixed in advance (both blind
// adjudicators for the blind reader): development 805/816 and 807/816; validation 355/405 and 365/405 (of the 8
// validation relabels, 6 turned a miss into a hit, 1 a hit into a miss, 1 stayed a miss). Round 13 (signals from the
// emitters' source, no excerpt added): development unchanged at 805/816 and 807/816; validation 355/405 and 366/405
// (one decision gained, none lost, compared excerpt by excerpt).
const DEV_FLOOR = { family: 0.986, decision: 0.988 };
const VALIDATION_FLOOR = { family: 0.876, decision: 0.903 };

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

  it('never restarts, in either set, a run whose label says a restart would fail the same way or that is healthy', () => {
    for (const set of ['development', 'validation'] as const) {
      const { all, decisions } = scoreSet(fixtures, set);
      const cells = [...decisions.values()].flatMap((row) => [...row.values()]);
      expect(cells.reduce((a, b) => a + b, 0)).toBe(all.n);
      expect([...decisions].reduce((k, [want, row]) => k + (row.get(want) ?? 0), 0)).toBe(all.decision);
      expect([set, decisions.get('dont_restart')?.get('restart') ?? 0]).toEqual([set, 0]);
      expect([set, decisions.get('healthy')?.get('restart') ?? 0]).toEqual([set, 0]);
    }
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
