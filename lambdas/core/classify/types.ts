import type { Severity } from './schema.js';

/** The outcome of classifying an error text, log tail or diagnosis (contract of `trainwatch classify`). */
export interface Classification {
  readonly error_type: string | null;
  readonly restartable: boolean;
  /** Name of the signal that matched, or null. */
  readonly signal: string | null;
  readonly severity: 'critical' | 'error' | 'warning' | 'info' | null;
  /** Named capture groups of the matching signal (e.g. the size of an OOM allocation). */
  readonly fields: Readonly<Record<string, string>>;
}

/** One signal that matched, with where. */
export interface SignalMatch {
  readonly signal: string;
  readonly error_type: string | null;
  readonly severity: Severity;
  readonly subsystem: string;
  readonly priority: number;
  readonly restartable: boolean;
  readonly fields: Readonly<Record<string, string>>;
  /** 1-based line number of the first match. */
  readonly line: number;
  /** The matching line, trimmed to 300 characters. */
  readonly text: string;
}
