// What the text-only label audit found (docs/CORPUS_AUDIT.md; test/fixtures/logs/audit.json): how often a blind
// reader of an excerpt's text alone names the collector's family and decision, per set, and how the classifier
// fares by the reader's basis (the cause stated in a line, inferred by an expert, or not in the text).
// Run: npx tsx scripts/corpus-audit.ts. Counts only: no excerpt is shown.
import { expectedOf, ratio, scoreSet } from '../test/support/classifyAccuracy.js';
import { type AuditBasis, collectorLabel, readAudit } from '../test/support/corpusAudit.js';
import { splitFixtures } from '../test/support/corpusSplit.js';
import { loadLogFixtures } from '../test/support/logFixtures.js';

const audit = readAudit();
const rows = splitFixtures(loadLogFixtures()).flatMap((f) => {
  const entry = audit.excerpts[`${f.label}/${f.name}`];
  return entry ? [{ fixture: f, collector: collectorLabel(f.label, entry), entry }] : [];
});

for (const set of ['validation', 'development'] as const) {
  const r = rows.filter((x) => x.fixture.set === set);
  const agree = (key: 'family' | 'decision') =>
    r.filter((x) => expectedOf(x.entry.reader)[key] === expectedOf(x.collector)[key]).length;
  const changed = r.filter((x) => x.entry.adjudication);
  const relabelled = changed.filter((x) => x.entry.adjudication?.outcome === 'relabel').length;
  console.log(`\n${set}: ${r.length} excerpts audited`);
  console.log(
    `  reader vs collector: family ${ratio(agree('family'), r.length)}, decision ${ratio(agree('decision'), r.length)}`,
  );
  console.log(
    `  adjudicated ${changed.length} (the reader named another family): ${relabelled} relabelled, ${changed.length - relabelled} kept`,
  );
  for (const basis of ['shown', 'inferred', 'not_in_text'] as AuditBasis[]) {
    // Scored as classify-accuracy.ts scores a set, on the excerpts of one basis.
    const b = scoreSet(
      r.filter((x) => x.entry.basis === basis).map((x) => x.fixture),
      set,
    ).all;
    console.log(
      `  basis ${basis}: ${b.n}; classifier family ${ratio(b.family, b.n)}, decision ${ratio(b.decision, b.n)}`,
    );
  }
}
