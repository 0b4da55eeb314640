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
