import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// The layering docs/ARCHITECTURE.md describes, checked on the source: core is pure, adapters implement its
// ports, handlers wire. A violation names the file and the offending line.
const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/** `file: line` for every line of the files under `dir` that matches `pattern`. */
function offending(dir: string, pattern: RegExp): string[] {
  return sources(dir).flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .filter((line) => pattern.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line))
      .map((line) => `${relative(ROOT, join(ROOT, file))}: ${line.trim()}`),
  );
}

const imports = (what: string) => new RegExp(`(from|import\\()\\s*'${what}`);

// The floors of core, bottom-up (docs/ARCHITECTURE.md "Floors"): a folder may import only the folders listed
// for it. Type imports count: a cycle through types is still a knot a reader has to untie.
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  base: [],
  protocol: ['base'],
  model: ['base', 'protocol'],
  render: ['base', 'model'],
  alerting: ['base', 'protocol', 'model', 'render'],
  classify: ['base'],
  nodes: ['base', 'protocol', 'model'],
  health: ['base', 'protocol', 'model', 'nodes'],
  stacks: ['base', 'protocol', 'model', 'nodes', 'health'],
  detection: ['base', 'protocol', 'model', 'nodes', 'stacks'],
  oncall: ['base', 'protocol', 'model', 'render', 'alerting'],
  slack: ['base', 'protocol', 'model', 'render', 'alerting', 'oncall'],
  remediation: ['base', 'protocol', 'model', 'render', 'alerting', 'classify', 'nodes', 'health', 'stacks'],
  pipeline: [
    'base',
    'protocol',
    'model',
    'render',
    'alerting',
    'nodes',
    'health',
    'stacks',
    'detection',
    'oncall',
  ],
};

/** Every relative import of every core file, as core-relative paths (`pipeline/sweep.ts`). */
function coreImports(): Map<string, string[]> {
  const core = join(ROOT, 'lambdas', 'core');
  const graph = new Map<string, string[]>();
  for (const file of sources('lambdas/core').map((f) => relative(core, join(ROOT, f)))) {
    const text = readFileSync(join(core, file), 'utf8');
    const deps = [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)\.js'/g)].map((m) =>
      relative(core, join(core, dirname(file), `${m[1]}.ts`)),
    );
    graph.set(file, deps);
  }
  return graph;
}

const folderOf = (file: string): string => (file.includes(sep) ? (file.split(sep)[0] ?? '') : '(core root)');

/** The import circles among `graph`'s nodes (strongly connected parts of more than one node). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) part.push(w);
    if (part.length > 1) out.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('the floors of core', () => {
  const graph = coreImports();

  it('every core file lives in a floor folder, none at the root', () => {
    expect([...graph.keys()].map(folderOf).filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('each folder imports only the floors below it (the MAY_IMPORT table)', () => {
    const offences = [...graph].flatMap(([file, deps]) =>
      deps
        .filter((d) => folderOf(d) !== folderOf(file) && !MAY_IMPORT[folderOf(file)]?.includes(folderOf(d)))
        .map((d) => `${file} imports ${d}`),
    );
    expect(offences).toEqual([]);
  });

  it('no import circle between files, type imports included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('the checks can fail: a made-up circle and a made-up upward import are found', () => {
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
    expect(MAY_IMPORT.model).not.toContain('pipeline');
  });
});

describe('module boundaries', () => {
  it('core imports nothing from the AWS SDK, Powertools, adapters, handlers or the wiring', () => {
    expect(offending('lambdas/core', imports('@aws-sdk/'))).toEqual([]);
    expect(offending('lambdas/core', imports('@aws-lambda-powertools/'))).toEqual([]);
    expect(
      offending('lambdas/core', imports('(\\.\\./)+(adapters|handlers|events|wiring|operations)/')),
    ).toEqual([]);
    expect(offending('lambdas/core', imports('(\\.\\./)+config\\.js'))).toEqual([]);
  });

  it('core reads no environment and no clock: time is an argument', () => {
    expect(offending('lambdas/core', /process\.env|Date\.now\(|new Date\(\)/)).toEqual([]);
  });

  it('adapters and event parsers never import a handler or the wiring (entries → wiring → adapters → core)', () => {
    expect(offending('lambdas/adapters', imports('(\\.\\./)+(handlers|wiring)/'))).toEqual([]);
    expect(offending('lambdas/events', imports('(\\.\\./)+(handlers|wiring)/'))).toEqual([]);
  });

  it('nothing a Lambda bundles imports the local mode, the CLI or the tests', () => {
    expect(offending('lambdas', imports('(\\.\\./)+(local|bin|test|bench)/'))).toEqual([]);
  });

  it('the local mode imports nothing from the tests (their fakes are theirs to change)', () => {
    expect(offending('local', imports('(\\.\\./)+test/'))).toEqual([]);
  });

  it('each store is made once, in lambdas/wiring/ (the Slack app thread store in its own chunk)', () => {
    const made = offending(
      'lambdas',
      /new (Dynamo[A-Za-z]+(Store|Log|Requests|Threads)|S3RunStore|S3AttemptArchive|RestartRequests)\(/,
    );
    const kinds = made.map((line) => /new (\w+)\(/.exec(line)?.[1]);
    expect(kinds.length).toBe(new Set(kinds).size);
    expect(made.filter((line) => !line.startsWith(join('lambdas', 'wiring')))).toEqual([
      `${join('lambdas', 'adapters', 'channels', 'slack', 'slackAppChannel.ts')}: threads: new DynamoSlackThreads(s.table, clients.ddb),`,
    ]);
  });

  it('outside the pipeline, the runtime, the local mode and the CLI use the pipeline through its index.ts', () => {
    const inside = join('lambdas', 'core', 'pipeline');
    const deep = /(from|import\()\s*'[./]*(lambdas\/)?core\/pipeline\/(?!index\.js)/;
    const offences = ['lambdas', 'local', 'bin', 'bench'].flatMap((dir) =>
      offending(dir, deep).filter((line) => !line.startsWith(inside)),
    );
    expect(offences).toEqual([]);
  });

  it('the SQS client stays out of the Lambda code (only the local mode reads queues)', () => {
    expect(offending('lambdas', imports('@aws-sdk/client-sqs'))).toEqual([]);
  });
});
