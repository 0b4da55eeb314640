import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the real log excerpts: one folder per expected error type, plus `healthy/`. */
export const LOG_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'logs');

/** One excerpt: its expected label (the folder), where it came from, and the text without the header. */
export interface LogFixture {
  readonly label: string;
  readonly name: string;
  readonly source: string;
  /** The source repository, `owner/name` lowercased: the unit of the development/validation split. */
  readonly project: string;
  readonly text: string;
}

/** `owner/name` (lowercased) of a GitHub issue or pull request URL; throws on anything else. */
export function projectOf(source: string): string {
  const m = /^https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\/(?:issues|pull)\/\d+/.exec(source);
  if (!m) throw new Error(`source ${JSON.stringify(source)} is not a GitHub issue or pull request URL`);
  return `${m[1]}/${m[2]}`.toLowerCase();
}

/** Reads every fixture; the `# source:` / `# note:` header lines are not part of the excerpt. */
export function loadLogFixtures(root = LOG_FIXTURES): LogFixture[] {
  const out: LogFixture[] = [];
  for (const label of readdirSync(root).sort()) {
    // Files beside the label folders (split.json) describe the corpus; they are not excerpts.
    if (!statSync(join(root, label)).isDirectory()) continue;
    for (const name of readdirSync(join(root, label)).sort()) {
      const lines = readFileSync(join(root, label, name), 'utf8').split('\n');
      let i = 0;
      let source = '';
      while (i < lines.length && /^# (source|note):/.test(lines[i]!)) {
        if (lines[i]!.startsWith('# source:')) source = lines[i]!.slice('# source:'.length).trim();
        i++;
      }
      if (!source) throw new Error(`${label}/${name} has no "# source:" header`);
      out.push({ label, name, source, project: projectOf(source), text: lines.slice(i).join('\n') });
    }
  }
  return out;
}
