// Prints the classification accuracy on the real log excerpts in test/fixtures/logs, by label, as a
// Markdown table (docs/REMEDIATION.md quotes it). Run: npx tsx scripts/classify-accuracy.ts
import { classify } from '../lambdas/core/classify/index.js';
import { loadLogFixtures } from '../test/support/logFixtures.js';

const rows = new Map<string, { n: number; ok: number; misses: string[] }>();
for (const f of loadLogFixtures()) {
  const got = classify(f.text).error_type;
  const expected = f.label === 'healthy' ? null : f.label;
  const r = rows.get(f.label) ?? { n: 0, ok: 0, misses: [] };
  r.n++;
  if (got === expected) r.ok++;
  else r.misses.push(`${f.name} → ${got}`);
  rows.set(f.label, r);
}
let n = 0;
let ok = 0;
console.log('| label | excerpts | correct | accuracy | misses |\n|---|---|---|---|---|');
for (const [label, r] of rows) {
  n += r.n;
  ok += r.ok;
  const name = label === 'healthy' ? 'healthy (false positives = excerpts − correct)' : label;
  console.log(
    `| ${name} | ${r.n} | ${r.ok} | ${((100 * r.ok) / r.n).toFixed(0)}% | ${r.misses.join(', ')} |`,
  );
}
console.log(`| **all** | ${n} | ${ok} | ${((100 * ok) / n).toFixed(1)}% | |`);
