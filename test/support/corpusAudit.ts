import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_FIXTURES } from './logFixtures.js';

/** The text-only label audit (docs/CORPUS_AUDIT.md): a blind reader's label for each audited excerpt. */
export const AUDIT_FILE = join(LOG_FIXTURES, 'audit.json');

/** How the reader knew: a line states the cause, an expert infers it, or the text does not show it. */
export type AuditBasis = 'shown' | 'inferred' | 'not_in_text';

/** An adjudicator's ruling between the collector's label and the reader's. */
export type AuditRuling = 'collector' | 'reader' | 'both' | 'neither_shown';

export interface AuditEntry {
  readonly reader: string;
  readonly basis: AuditBasis;
  /** Only where the reader named another family than the collector. */
  readonly adjudication?: {
    readonly collector: string;
    readonly rulings: readonly [AuditRuling, AuditRuling];
    /** `relabel` when both ruled for the reader (the fixture moved to the reader's label), else `keep`. */
    readonly outcome: 'relabel' | 'keep';
  };
}

export interface Audit {
  readonly method: string;
  /** Keyed by the fixture's current `label/name`. */
  readonly excerpts: Readonly<Record<string, AuditEntry>>;
}

export function readAudit(file = AUDIT_FILE): Audit {
  return JSON.parse(readFileSync(file, 'utf8')) as Audit;
}

/** The label the collector gave before the audit (the current one unless the audit changed it). */
export function collectorLabel(currentLabel: string, entry: AuditEntry): string {
  return entry.adjudication?.outcome === 'relabel' ? entry.adjudication.collector : currentLabel;
}
