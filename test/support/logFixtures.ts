import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the real log excerpts: one folder per expected error type, plus `healthy/`. */
export const LOG_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'logs');

/** One excerpt: its expected label (the folder), where it came from, and the text without the header. */
export interface LogFixture {
  readonly label: string;
  readonly name: string;
  readonly source: string;
  readonly text: string;
}

/** Reads every fixture; the `# source:` / `# note:` header lines are not part of the excerpt. */
export function loadLogFixtures(root = LOG_FIXTURES): LogFixture[] {
  const out: LogFixture[] = [];
  for (const label of readdirSync(root).sort()) {
    for (const name of readdirSync(join(root, label)).sort()) {
      const lines = readFileSync(join(root, label, name), 'utf8').split('\n');
      let i = 0;
      let source = '';
      while (i < lines.length && /^# (source|note):/.test(lines[i]!)) {
        if (lines[i]!.startsWith('# source:')) source = lines[i]!.slice('# source:'.length).trim();
        i++;
      }
      if (!source) throw new Error(`${label}/${name} has no "# source:" header`);
      out.push({ label, name, source, text: lines.slice(i).join('\n') });
    }
  }
  return out;
}
