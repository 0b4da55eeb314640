import type { RunFileName } from '../../protocol/files.js';
import type { Cadence } from './cadence.js';
import type { HealthState } from './health.js';
import type { NodeSummaries } from './nodes.js';
import type { StackSummary } from './stacks.js';

/** What progress.json and the log's tail told us of the current attempt: what alerts show, and the ETA's inputs. */
export interface ProgressFacts {
  readonly step?: number;
  readonly totalSteps?: number;
  readonly loss?: number;
  /** progress.json's `learning_rate`, shown in alerts and `status`. */
  readonly learningRate?: number;
  readonly lastLogLine?: string;
  /** LastModified of the progress.json in which `step` was first seen at its current value. */
  readonly stepAdvancedAt?: number;
  readonly progressCheckedAt?: number;
  /** The first step we saw and when, for the rate behind the ETA. */
  readonly firstStep?: number;
  readonly firstStepAt?: number;
}

/**
 * The progress facts an alert carries, each in its own field of the same name (docs/ALERTS.md): the one list
 * `buildAlert` copies from and a grouped alert clears.
 */
export const ALERT_PROGRESS_KEYS = [
  'step',
  'totalSteps',
  'loss',
  'learningRate',
  'lastLogLine',
] as const satisfies readonly (keyof ProgressFacts)[];

export type AlertProgressKey = (typeof ALERT_PROGRESS_KEYS)[number];

/** What an alert shows of the attempt's progress (flat on the alert, as always). */
export type AlertProgress = Pick<ProgressFacts, AlertProgressKey>;

/** The alert's progress fields from an attempt's facts: every key of the list, absent ones `undefined`. */
export function alertProgress(f: ProgressFacts): AlertProgress {
  return Object.fromEntries(ALERT_PROGRESS_KEYS.map((k) => [k, f[k]])) as AlertProgress;
}

/**
 * Everything known of the run's current attempt (the `facts` of its record). A new attempt forgets it whole,
 * by dropping this one key (pipeline/ending.ts `revived`).
 */
export interface AttemptFacts extends ProgressFacts {
  /** ETags of the bodies we last read, per file: an unchanged ETag needs no new read. */
  readonly etags: Partial<Record<RunFileName, string>>;
  /** Degraded findings by source (an invalid file, clock skew, a diagnosis), each one line. */
  readonly findings?: Readonly<Record<string, string>>;
  /** The message of the latest `_error` (its last meaningful line). */
  readonly errorMessage?: string;
  /** v1.1: what we know of each node (by rank), from its last body read; freshness comes from the LIST. */
  readonly nodes?: NodeSummaries;
  /** The node count the node files themselves announce (`nodes`), when metadata.json names none. */
  readonly nodesExpected?: number;
  /** v1.3: the run's own cadence, from its node files' pace figures: the learned thresholds (core/detection). */
  readonly cadence?: Cadence;
  /** v1.2: what the stacks of a stuck run say (read once its step is still past a stall threshold; core/stacks). */
  readonly stacks?: StackSummary;
  /** The healthy-run rules' compact memory: rate baseline, straggler and idle-GPU tracks (core/health). */
  readonly health?: HealthState;
}

/** The facts of an attempt nothing has been read of yet. */
export const NO_FACTS: AttemptFacts = { etags: {} };
