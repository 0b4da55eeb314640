// How often the error-like line hints (lambdas/core/classify/hint.ts) land on the line a signal matched, on the
// excerpts a signal does read: a proxy for whether, where no signal reads a log, the hint points at its cause.
// Run: npx tsx scripts/hint-proxy.ts [--set development|validation]. Counts only; no excerpt is printed.

import { errorHints } from '../lambdas/core/classify/hint.js';
import { classifyDetailed } from '../lambdas/core/classify/index.js';
import { ratio } from '../test/support/classifyAccuracy.js';
import { splitFixtures } from '../test/support/corpusSplit.js';
import { loadLogFixtures } from '../test/support/logFixtures.js';

const i = process.argv.indexOf('--set');
const set = i > 0 ? process.argv[i + 1] : 'development';
const fixtures = splitFixtures(loadLogFixtures()).filter((f) => f.set === set);
let read = 0;
let hinted = 0;
let onLine = 0;
let near = 0;
let nulls = 0;
let nullHinted = 0;
let healthy = 0;
let healthyHinted = 0;
for (const f of fixtures) {
  const d = classifyDetailed(f.text);
  const hints = errorHints(f.text);
  if (f.label === 'healthy') {
    healthy++;
    if (hints.length) healthyHinted++;
    continue;
  }
  if (d.error_type === null) {
    nulls++;
    if (hints.length) nullHinted++;
    continue;
  }
  const best = d.matches.find((m) => m.signal === d.signal)!;
  read++;
  if (!hints.length) continue;
  hinted++;
  if (hints.some((h) => h.line === best.line)) onLine++;
  if (hints.some((h) => Math.abs(h.line - best.line) <= 3)) near++;
}
console.log(`${set}: failures a signal reads: ${read}; with a hint ${ratio(hinted, read)}`);
console.log(`  a hint on the signal's own line ${ratio(onLine, read)}; within 3 lines ${ratio(near, read)}`);
console.log(`  failures no signal reads: ${nulls}, with a hint ${ratio(nullHinted, nulls)}`);
console.log(
  `  healthy logs with a hint (shown by --explain only; a healthy run raises no alert): ${ratio(healthyHinted, healthy)}`,
);
