import { describe, expect, it } from 'vitest';
import { classify, classifyDetailed } from '../../lambdas/core/classify/index.js';
import { loadLogFixtures } from '../support/logFixtures.js';

const fixtures = loadLogFixtures();
const failures = fixtures.filter((f) => f.label !== 'healthy');
const healthy = fixtures.filter((f) => f.label === 'healthy');

describe('classification of real log excerpts (test/fixtures/logs)', () => {
  it('has excerpts for most error types and a healthy set, each citing its source', () => {
    expect(new Set(failures.map((f) => f.label)).size).toBeGreaterThanOrEqual(12);
    expect(healthy.length).toBeGreaterThanOrEqual(10);
    for (const f of fixtures)
      expect(f.source).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(issues|pull)\/\d+$/);
  });

  it.each(failures.map((f) => [`${f.label}/${f.name}`, f] as const))('%s', (_, f) => {
    expect(classify(f.text).error_type).toBe(f.label);
  });

  it.each(healthy.map((f) => [`healthy/${f.name}`, f] as const))('%s has no error type', (_, f) => {
    const d = classifyDetailed(f.text);
    expect(d.error_type).toBeNull();
    // Warnings are allowed on healthy logs (a NCCL WARN line), errors are not.
    for (const m of d.matches) expect(m.error_type).toBeNull();
  });
});
