import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
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

describe('module boundaries', () => {
  it('core imports nothing from the AWS SDK, Powertools, adapters, handlers or the wiring', () => {
    expect(offending('lambdas/core', imports('@aws-sdk/'))).toEqual([]);
    expect(offending('lambdas/core', imports('@aws-lambda-powertools/'))).toEqual([]);
    expect(offending('lambdas/core', imports('(\\.\\./)+(adapters|handlers|events)/'))).toEqual([]);
    expect(
      offending('lambdas/core', imports('(\\.\\./)+(app|config|remediationConfig|remediationDeps)\\.js')),
    ).toEqual([]);
  });

  it('core reads no environment and no clock: time is an argument', () => {
    expect(offending('lambdas/core', /process\.env|Date\.now\(|new Date\(\)/)).toEqual([]);
  });

  it('adapters and event parsers never import a handler', () => {
    expect(offending('lambdas/adapters', imports('\\.\\./handlers/'))).toEqual([]);
    expect(offending('lambdas/events', imports('\\.\\./handlers/'))).toEqual([]);
  });

  it('nothing a Lambda bundles imports the local mode, the CLI or the tests', () => {
    expect(offending('lambdas', imports('(\\.\\./)+(local|bin|test|bench)/'))).toEqual([]);
  });

  it('the local mode imports nothing from the tests (their fakes are theirs to change)', () => {
    expect(offending('local', imports('(\\.\\./)+test/'))).toEqual([]);
  });

  it('the SQS client stays out of the Lambda code (only the local mode reads queues)', () => {
    expect(offending('lambdas', imports('@aws-sdk/client-sqs'))).toEqual([]);
  });
});
