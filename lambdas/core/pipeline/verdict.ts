import type { Effective, Thresholds } from '../detection/thresholds.js';
import type { WarningCause } from '../model/cause.js';
import type { ObjectInfo, RunFiles } from '../model/listing.js';
import type { RunRecord } from '../model/record.js';
import type { StackSummary } from '../model/slices/stacks.js';
import type { RunState } from '../model/states.js';
import type { NodeVerdict } from '../nodes/freshness.js';

/** The state a run should be in now, and why. */
export interface Verdict {
  readonly state: RunState;
  readonly reason: string;
  readonly errorType?: string | null;
  /** What made a WARNING (a silent node, a throughput drop, …): the alert's action follows it. */
  readonly cause?: WarningCause;
}

/** What every rule of the state decision sees: one run's files, what we know, and the thresholds in force. */
export interface Judging {
  readonly run: RunFiles;
  readonly known: RunRecord;
  readonly now: number;
  readonly t: Thresholds;
  readonly eff: Effective;
  /** When the current attempt was started by a restart (files at or before it are an earlier attempt's). */
  readonly boundary?: number;
  readonly complete?: ObjectInfo;
  readonly error?: ObjectInfo;
  readonly metadata?: ObjectInfo;
  readonly progress?: ObjectInfo;
  /** The run's own heartbeats of this attempt (metadata.json, progress.json). */
  readonly beats: readonly ObjectInfo[];
  /** How long the step has not advanced (ms), when the run reports one. */
  readonly stillFor?: number;
  /** What the stacks of this attempt say, if any were read. */
  readonly stacks?: StackSummary;
  /** Whether they show a hang (detection/evidence.ts `showsHang`), judged once for every rule. */
  readonly stacksShowHang: boolean;
  /** Silent and missing nodes as of `at` (the staleness in force). */
  readonly nodesAt: (at: number) => NodeVerdict | undefined;
}

/** One rule of the state decision: a verdict, or undefined to let the next rule speak. */
export type Rule = (j: Judging) => Verdict | undefined;
