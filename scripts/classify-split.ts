// Writes test/fixtures/logs/split.json: every source project of the log corpus and its set (development or
// validation). The rule is in test/support/corpusSplit.ts; this script only fixes its inputs and applies it.
//   npx tsx scripts/classify-split.ts --init   once, before any tuning: the tuned-on projects (from git) and the salt
//   npx tsx scripts/classify-split.ts          after adding excerpts: the same rule applied to new projects
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import {
  type CorpusSet,
  readSplit,
  SPLIT_FILE,
  SPLIT_RULE,
  type Split,
  setOf,
} from '../test/support/corpusSplit.js';
import { type LogFixture, loadLogFixtures, projectOf } from '../test/support/logFixtures.js';

/** The commit that added the first 68 excerpts, on which the signals were written and tuned. */
const TUNED_COMMIT = '81e867c';
const VALIDATION_SHARE = 0.4;

function tunedProjects(): string[] {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' });
  const files = git('ls-tree', '-r', '--name-only', TUNED_COMMIT, 'test/fixtures/logs').trim().split('\n');
  const projects = files.map((f) => {
    const source = /^# source:\s*(\S+)/m.exec(git('show', `${TUNED_COMMIT}:${f}`))?.[1];
    if (!source) throw new Error(`${f} at ${TUNED_COMMIT} has no source`);
    return projectOf(source);
  });
  return [...new Set(projects)].sort();
}

/**
 * The first salt whose split gives every label with at least two untuned projects a validation excerpt, and
 * sends 30–50 % of the untuned excerpts to validation. It looks at labels only, never at classifier output.
 */
function chooseSalt(fixtures: readonly LogFixture[], tunedOn: readonly string[]): number {
  const fresh = fixtures.filter((f) => !tunedOn.includes(f.project));
  for (let salt = 0; salt < 10_000; salt++) {
    const params = { tuned_on: tunedOn, salt, validation_share: VALIDATION_SHARE };
    const inVal = fresh.filter((f) => setOf(f.project, params) === 'validation');
    const share = inVal.length / fresh.length;
    if (share < 0.3 || share > 0.5) continue;
    const labels = new Set(fresh.map((f) => f.label));
    const covered = [...labels].every(
      (l) =>
        new Set(fresh.filter((f) => f.label === l).map((f) => f.project)).size < 2 ||
        inVal.some((f) => f.label === l),
    );
    if (covered) return salt;
  }
  throw new Error('no salt gives every label a validation excerpt');
}

const fixtures = loadLogFixtures();
const init = process.argv.includes('--init') || !existsSync(SPLIT_FILE);
const base = init ? undefined : readSplit();
const tuned_on = base?.tuned_on ?? tunedProjects();
const salt = base?.salt ?? chooseSalt(fixtures, tuned_on);
const params = { tuned_on, salt, validation_share: base?.validation_share ?? VALIDATION_SHARE };
const projects: Record<string, CorpusSet> = {};
for (const p of [...new Set(fixtures.map((f) => f.project))].sort()) projects[p] = setOf(p, params);
const split: Split = { rule: SPLIT_RULE, ...params, projects };
writeFileSync(SPLIT_FILE, `${JSON.stringify(split, null, 2)}\n`);

const counts = new Map<string, Record<CorpusSet, number>>();
for (const f of fixtures) {
  const c = counts.get(f.label) ?? { development: 0, validation: 0 };
  c[projects[f.project]!]++;
  counts.set(f.label, c);
}
console.log(`salt ${salt}; ${Object.keys(projects).length} projects; per label (development / validation):`);
for (const [label, c] of counts) console.log(`  ${label}: ${c.development} / ${c.validation}`);
