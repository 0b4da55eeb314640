// What the text-only label audit found (docs/CORPUS_AUDIT.md; test/fixtures/logs/audit.json): how often a blind
// reader of an excerpt's text alone names the collector's family and decision, per set, and how the classifier
// fares by the reader's basis (the cause stated in a line, inferred by an expert, or not in the text).
// Run: npx tsx scripts/corpus-audit.ts. Counts only: no excerpt is shown.
import { classify, decisionOf, familyOf } from '../lambdas/core/classify/index.js';
import { expectedOf, pct } from '../test/support/classifyAccuracy.js';
import { type AuditBasis, collectorLabel, readAudit } from '../test/support/corpusAudit.js';
import { splitFixtures } from '../test/support/corpusSplit.js';
import { loadLogFixtures } from '../test/support/logFixtures.js';

const audit = readAudit();
const rows = splitFixtures(loadLogFixtures()).flatMap((f) => {
  const entry = audit.excerpts[`${f.label}/${f.name}`];
  if (!entry) return [];
  const got = classify(f.text);
  return [{ set: f.set, label: f.label, collector: collectorLabel(f.label, entry), entry, got }];
});
const frac = (k: number, n: number) => `${k}/${n} (${pct(k, n)})`;

for (const set of ['validation', 'development'] as const) {
  const r = rows.filter((x) => x.set === set);
  const agree = (key: 'family' | 'decision') =>
    r.filter((x) => expectedOf(x.entry.reader)[key] === expectedOf(x.collector)[key]).length;
  const changed = r.filter((x) => x.entry.adjudication);
  const relabelled = changed.filter((x) => x.entry.adjudication?.outcome === 'relabel').length;
  console.log(`\n${set}: ${r.length} excerpts audited`);
  console.log(
    `  reader vs collector: family ${frac(agree('family'), r.length)}, decision ${frac(agree('decision'), r.length)}`,
  );
  console.log(
    `  adjudicated ${changed.length} (the reader named another family): ${relabelled} relabelled, ${changed.length - relabelled} kept`,
  );
  for (const basis of ['shown', 'inferred', 'not_in_text'] as AuditBasis[]) {
    const b = r.filter((x) => x.entry.basis === basis);
    const fam = b.filter((x) => familyOf(x.got.error_type) === expectedOf(x.label).family).length;
    const dec = b.filter(
      (x) => decisionOf(x.got.error_type, x.got.restartable) === expectedOf(x.label).decision,
    ).length;
    console.log(
      `  basis ${basis}: ${b.length}; classifier family ${frac(fam, b.length)}, decision ${frac(dec, b.length)}`,
    );
  }
}
