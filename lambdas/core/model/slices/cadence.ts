/**
 * The run's own cadence, as its node files report it (protocol v1.3): what the learned thresholds are made
 * of. Stored on the run record; updated only when node bodies are read anyway (no extra GET, no extra write).
 */
export interface Cadence {
  /** The attempt these figures belong to: a restarted attempt learns its own. */
  readonly attempt: number;
  /** The p99 seconds between progress() calls at each recent read (the largest over the nodes read), newest last. */
  readonly p99s: readonly number[];
  /** The median seconds between progress() calls at the latest read (the largest over the nodes read). */
  readonly gapS: number;
  /** How many gaps the latest figures cover (the fewest over the nodes read). */
  readonly calls: number;
  /** The longest writer interval the nodes report, in seconds (node files and metadata.json). */
  readonly everyS?: number;
}
