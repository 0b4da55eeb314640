// Classification accuracy on the real log excerpts of test/fixtures/logs, per label and overall, on the
// validation set (the headline: projects the signals were never tuned on) and the development set, as
// Markdown (docs/DIAGNOSIS.md and docs/ACCURACY.md quote it). Run: npx tsx scripts/classify-accuracy.ts [--misses] [--since REV]
// --since REV adds the figures of the excerpts added after git revision REV alone: the freshest test, excerpts
// nobody had seen, not even as a count, when the signals of REV were written.
// Families and decisions are defined once, in lambdas/core/classify/causes.ts; the split in
// test/support/corpusSplit.ts (split.json). --misses lists development misses only: validation excerpts are
// counted, never shown, so that no rule is written from them.
import { execFileSync } from 'node:child_process';
import { classify } from '../lambdas/core/classify/index.js';
import { expectedOf, ratio, scoreSet, type Tally } from '../test/support/classifyAccuracy.js';
import { splitFixtures } from '../test/support/corpusSplit.js';
import { loadLogFixtures } from '../test/support/logFixtures.js';

const fixtures = splitFixtures(loadLogFixtures());

// CPU time of classifying the whole corpus once, in this process, regexes compiled on first use included.
const cpu0 = process.cpuUsage();
for (const f of fixtures) classify(f.text);
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;

const dev = scoreSet(fixtures, 'development');
const val = scoreSet(fixtures, 'validation');
const labels = [...new Set(fixtures.map((f) => f.label))].sort();
const cell = (t: Tally | undefined, k: 'family' | 'decision' | 'exact') => (t ? ratio(t[k], t.n) : '–');

console.log(
  '| label | family | decision | validation: family | decision | exact type | development: family | decision | exact type |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const l of labels) {
  const v = val.byLabel.get(l);
  const d = dev.byLabel.get(l);
  const e = expectedOf(l);
  console.log(
    `| ${l} | ${e.family} | ${e.decision} | ${cell(v, 'family')} | ${cell(v, 'decision')} | ${cell(v, 'exact')} | ${cell(d, 'family')} | ${cell(d, 'decision')} | ${cell(d, 'exact')} |`,
  );
}
console.log(
  `| **all** | | | **${cell(val.all, 'family')}** | **${cell(val.all, 'decision')}** | ${cell(val.all, 'exact')} | ${cell(dev.all, 'family')} | ${cell(dev.all, 'decision')} | ${cell(dev.all, 'exact')} |`,
);
const healthy = (s: typeof dev) => s.byLabel.get('healthy');
console.log(
  `\nFalse alarms (an error type on a healthy log): validation ${healthy(val)?.falseAlarms ?? 0} of ${healthy(val)?.n ?? 0}, development ${healthy(dev)?.falseAlarms ?? 0} of ${healthy(dev)?.n ?? 0}.`,
);
console.log(
  `Corpus: ${fixtures.length} excerpts from ${new Set(fixtures.map((f) => f.project)).size} projects; validation ${val.all.n}, development ${dev.all.n}.`,
);
// What each set's decisions would do in the product: a failure read as healthy ("nothing matched") still alerts on
// the run's state (FAILED, STALLED) and is never restarted; a wrong restart or a wrong "don't" is the costly kind.
const DECISIONS = ['restart', 'dont_restart', 'warn', 'healthy'] as const;
for (const [name, r] of [
  ['Validation', val],
  ['Development', dev],
] as const) {
  console.log(`\n${name}: the label's decision (rows) against trainwatch's (columns)\n`);
  console.log(`| label's decision | ${DECISIONS.join(' | ')} |`);
  console.log(`|---|${DECISIONS.map(() => '---').join('|')}|`);
  for (const want of DECISIONS)
    console.log(`| ${want} | ${DECISIONS.map((got) => r.decisions.get(want)?.get(got) ?? 0).join(' | ')} |`);
}
console.log(`CPU time to classify the whole corpus once (one process, cold): ${cpuMs.toFixed(0)} ms.`);
const since = process.argv[process.argv.indexOf('--since') + 1];
if (process.argv.includes('--since') && since) {
  const added = new Set(
    execFileSync('git', ['diff', '--name-only', '--diff-filter=A', since, '--', 'test/fixtures/logs'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((p) => p.endsWith('.txt'))
      .map((p) => p.split('/').slice(-2).join('/')),
  );
  const fresh = fixtures.filter((f) => added.has(`${f.label}/${f.name}`));
  for (const set of ['validation', 'development'] as const) {
    const r = scoreSet(fresh, set);
    const h = r.byLabel.get('healthy');
    console.log(
      `Added since ${since}, ${set}: family ${cell(r.all, 'family')}, decision ${cell(r.all, 'decision')}, exact ${cell(r.all, 'exact')}, false alarms ${h?.falseAlarms ?? 0} of ${h?.n ?? 0}.`,
    );
  }
}
if (process.argv.includes('--misses')) {
  console.log('\nDevelopment misses (exact type):');
  for (const [l, t] of dev.byLabel) for (const m of t.misses) console.log(`  ${l}/${m}`);
}
