import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every relative link of the README and docs/ resolves: to a file or folder of the repository, and an #anchor
// to a heading of its file by GitHub's rules (or an explicit <a id>). No network: web links are not followed.

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];

/** GitHub's heading slug: the heading's text, lower-cased, without punctuation, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image counts by its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The page's lines outside fenced code blocks (a `#` there is a comment, a `](` there is code). */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === undefined) fence = m[1]!.slice(0, 3);
      else if (line.trim().startsWith(fence)) fence = undefined;
      out.push('');
    } else out.push(fence === undefined ? line : '');
  }
  return out;
}

/** The anchors a page offers: its headings' slugs (a repeated one as slug-1, slug-2, …) and `<a id|name>`. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const s = slug(h[1]!);
      const n = seen.get(s) ?? 0;
      seen.set(s, n + 1);
      out.add(n === 0 ? s : `${s}-${n}`);
    }
    for (const a of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(a[1]!);
  }
  return out;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

function links(page: string, text: string): Link[] {
  return prose(text).flatMap((raw, i) =>
    [...raw.replace(/`[^`]*`/g, '').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
      page,
      line: i + 1,
      target: m[1]!,
    })),
  );
}

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
const ALL = PAGES.flatMap((p) => links(p, read(p))).filter((l) => !/^[a-z][a-z+.-]*:/i.test(l.target));

describe('the documentation links', () => {
  it('finds the pages and their links', () => {
    expect(PAGES).toContain('README.md');
    expect(PAGES.length).toBeGreaterThan(10);
    expect(ALL.length).toBeGreaterThan(100);
  });

  it('slugs headings as GitHub does', () => {
    expect(slug('Hangs: where each node waits (stacks, protocol v1.2)')).toBe(
      'hangs-where-each-node-waits-stacks-protocol-v12',
    );
    expect(slug('Deploy, start to first alert')).toBe('deploy-start-to-first-alert');
    expect(slug('Why a sweep reads only live runs (issue 24)')).toBe(
      'why-a-sweep-reads-only-live-runs-issue-24',
    );
    expect(slug('`trainwatch classify [FILE] [--all | --explain]`')).toBe(
      'trainwatch-classify-file---all----explain',
    );
    expect(slug('The `trainwatch` CLI')).toBe('the-trainwatch-cli');
    expect([...anchors('# A\n\n## Try it\n\n```bash\n# Try it\n```\n\n### Try it\n')]).toEqual([
      'a',
      'try-it',
      'try-it-1',
    ]);
  });

  it('every relative link names a file or folder that exists', () => {
    const broken = ALL.filter((l) => {
      const path = l.target.split('#')[0]!;
      return path !== '' && !existsSync(join(ROOT, dirname(l.page), decodeURIComponent(path)));
    }).map((l) => `${l.page}:${l.line}: ${l.target}`);
    expect(broken).toEqual([]);
  });

  it('every #anchor names a heading of its page', () => {
    const cache = new Map<string, Set<string>>();
    const broken = ALL.filter((l) => l.target.includes('#')).flatMap((l) => {
      const [path, anchor] = l.target.split('#') as [string, string];
      const file = relative(
        ROOT,
        join(ROOT, dirname(l.page), decodeURIComponent(path || l.page.split('/').pop()!)),
      );
      if (!file.endsWith('.md') || !existsSync(join(ROOT, file)))
        return path ? [] : [`${l.page}:${l.line}: ${l.target}`];
      if (!cache.has(file)) cache.set(file, anchors(read(file)));
      return cache.get(file)!.has(decodeURIComponent(anchor))
        ? []
        : [`${l.page}:${l.line}: ${l.target} (in ${file})`];
    });
    expect(broken).toEqual([]);
  });
});

describe('the README', () => {
  const readme = read('README.md');

  it('is a front page: the two commands first, at most 300 lines, the rest in docs/', () => {
    expect(readme.split('\n').slice(0, 6).join('\n')).toMatch(
      /^# trainwatch\n\n```bash\nnpm ci && npm start {3}# .+\nnpm ci && npm test {4}# .+\n```$/,
    );
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    for (const page of PAGES.filter((p) => p !== 'README.md')) expect(readme, page).toContain(`](${page})`);
  });
});
