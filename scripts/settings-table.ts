// Rewrites the "Runtime configuration" table of docs/CONFIGURATION.md from the settings registry
// (lambdas/settings/registry.ts). test/infra/settings.test.ts fails while the two disagree.
//   npm run docs:settings
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/functions.js';
import { withRuntimeTable } from '../lib/settings/readme.js';

const path = join(PROJECT_ROOT, 'docs', 'CONFIGURATION.md');
const before = readFileSync(path, 'utf8');
const after = withRuntimeTable(before);
writeFileSync(path, after);
console.log(
  before === after
    ? 'docs/CONFIGURATION.md: table already up to date'
    : 'docs/CONFIGURATION.md: table rewritten',
);
