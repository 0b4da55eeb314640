import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TYPES } from '../../../lambdas/core/classify/index.js';
import { expectedOf } from '../../support/classifyAccuracy.js';
import { collectorLabel, readAudit } from '../../support/corpusAudit.js';
import { LOG_FIXTURES, loadLogFixtures } from '../../support/logFixtures.js';

// The audit file must stay true to the corpus: a fixture moved or relabelled without it would silently change
// what scripts/corpus-audit.ts reports, and a relabel the rule did not allow would be a label fitted by hand.
const audit = readAudit();
const fixtures = new Map(loadLogFixtures().map((f) => [`${f.label}/${f.name}`, f]));
const LABELS = new Set<string>([...ERROR_TYPES, 'healthy']);
const entries = Object.entries(audit.excerpts);

describe('text-only label audit (test/fixtures/logs/audit.json)', () => {
  it('names only fixtures that exist under their current label', () => {
    const missing = entries.map(([path]) => path).filter((path) => !fixtures.has(path));
    expect(missing).toEqual([]);
  });

  it('uses only known labels and bases', () => {
    for (const [path, e] of entries) {
      expect(LABELS.has(e.reader), `${path}: reader ${e.reader}`).toBe(true);
      expect(['shown', 'inferred', 'not_in_text']).toContain(e.basis);
      if (e.adjudication) expect(LABELS.has(e.adjudication.collector), path).toBe(true);
    }
  });

  it('sends to adjudication exactly the excerpts whose reader named another family', () => {
    for (const [path, e] of entries) {
      const collector = collectorLabel(path.split('/')[0]!, e);
      const differ = expectedOf(e.reader).family !== expectedOf(collector).family;
      expect(e.adjudication !== undefined, path).toBe(differ);
    }
  });

  it('relabels only where both adjudicators ruled for the reader, and says so in the fixture', () => {
    for (const [path, e] of entries) {
      const a = e.adjudication;
      if (!a) continue;
      const both = a.rulings.every((r) => r === 'reader');
      expect(a.outcome, path).toBe(both ? 'relabel' : 'keep');
      const label = path.split('/')[0]!;
      expect(label, path).toBe(a.outcome === 'relabel' ? e.reader : a.collector);
      expect(collectorLabel(label, e)).toBe(a.collector);
      const header = readFileSync(join(LOG_FIXTURES, path), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('# note:'));
      expect(
        header.some((l) => /relabelled \S+ -> \S+ by the text-only audit/.test(l)),
        path,
      ).toBe(a.outcome === 'relabel');
    }
  });
});
