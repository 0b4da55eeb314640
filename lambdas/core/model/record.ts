import type { AttemptFacts } from './slices/attempt.js';
import type { RunState } from './states.js';

/** What we remember of the last `metadata.json` we read (the fields evaluation and alerts need). */
export interface KnownMetadata {
  readonly phase?: string;
  readonly status?: string;
  readonly instanceId?: string;
  /** Where the run lives when not on an instance of its own: "EKS cluster/namespace/PyTorchJob name" (v1.4). */
  readonly where?: string;
  readonly jobName?: string;
  readonly startedAt?: number;
  readonly attempt?: number;
  readonly staleMinutes?: number;
  readonly profile?: string;
  readonly logPath?: string;
  readonly checkpointDir?: string;
  /** v1.1: how many nodes the run expects (each writes `nodes/{rank}.json`). */
  readonly nodes?: number;
  /** `"maintenance": true` in metadata.json: alerts to people are held while set (on-call lifecycle). */
  readonly maintenance?: boolean;
  /** The run's own health thresholds (`throughput_drop`, `idle_gpu_after`, … in metadata.json). */
  readonly health?: import('./slices/health.js').HealthOverrides;
}

/** An alert waiting for (or retrying) delivery on some channels. */
export interface OutboxEntry {
  readonly alert: import('./alert.js').Alert;
  readonly pending: readonly string[];
  readonly attempts: number;
  /** Nobody else retries this entry before then (the sender holds a lease). */
  readonly leaseUntil: number;
  readonly lastError?: string;
}

/** A channel that gave up on an alert: recorded so nothing is silently lost. */
export interface Undelivered {
  readonly alertId: string;
  readonly channel: string;
  readonly error: string;
  readonly at: number;
}

/** One item per run in DynamoDB: the durable state; freshness is derived from S3 and `now`. */
export interface RunRecord {
  readonly runId: string;
  readonly state: RunState;
  readonly reason: string;
  /** What made the current WARNING (the alert's action follows it). */
  readonly cause?: import('./cause.js').WarningCause;
  readonly errorType?: string | null;
  readonly attempt: number;
  /** Bumped by every write; every write is conditional on it (0: not stored yet). */
  readonly version: number;
  /** When the run entered `state`. */
  readonly since: number;
  readonly updatedAt: number;
  readonly firstSeenAt: number;
  /** Everything known of the current attempt: a new attempt forgets it by dropping this one key. */
  readonly facts: AttemptFacts;
  readonly meta?: KnownMetadata;
  /** Per-run locks (e.g. one restart at a time): owner and expiry. */
  readonly locks?: Readonly<Record<string, { readonly owner: string; readonly until: number }>>;
  /** After the run's evaluation threw: failures in a row and when to try again (no crash loop). */
  readonly backoff?: { readonly failures: number; readonly until: number; readonly error: string };
  readonly lastAlertAt?: number;
  readonly outbox?: Readonly<Record<string, OutboxEntry>>;
  readonly undelivered?: readonly Undelivered[];
  /** When a restart was issued (state RESTARTING); set by remediation. */
  readonly restartIssuedAt?: number;
  /** `trainwatch ack`: reminders stop until the next transition (see oncall/ack.ts). */
  readonly ack?: import('./slices/oncall.js').Acknowledgement;
  /** Remediation's memory of the run: restarts, best step per attempt, last diagnosis and decision. */
  readonly remediation?: import('./slices/remediation.js').RemediationState;
  /** Set when the run ended: it left the sweep, its files moved to `ended.folder` (pipeline/ending.ts). */
  readonly ended?: Ended;
  /** The Slack app's thread of the current attempt (written by the Slack notifier: core/slack/thread.ts). */
  readonly slackThread?: import('./slices/slack.js').SlackThread;
}

/** Where and when a run ended: its record left the live set and its files the swept prefix. */
export interface Ended {
  readonly at: number;
  /** The S3 folder (key prefix, ending in `/`) that holds the run's files since it ended. */
  readonly folder: string;
  /** How many files were moved there. */
  readonly files: number;
}

/** A transition, appended to the run's history. */
export interface Flip {
  readonly runId: string;
  readonly from?: RunState;
  readonly to: RunState;
  readonly reason: string;
  readonly at: number;
  readonly attempt: number;
  readonly version: number;
  readonly errorType?: string | null;
}

/** `r` with some of its current attempt's facts replaced (the rest kept). */
export function withFacts(r: RunRecord, f: Partial<AttemptFacts>): RunRecord {
  return { ...r, facts: { ...r.facts, ...f } };
}
