import type { Alert } from './alert.js';
import type { RunFiles } from './listing.js';
import type { RunFileName } from './protocol/files.js';
import type { Flip, RunRecord } from './record.js';

/** Where heartbeats live (S3). */
export interface RunStore {
  /** Every run under the prefix, grouped from LIST pages. */
  listRuns(): Promise<{ runs: RunFiles[]; ignored: { key: string; problem: string }[] }>;
  /** One run, by listing its prefix (the sentinel path). */
  listRun(runId: string): Promise<RunFiles | undefined>;
  /** A file's bytes (the last `tailBytes` when given); undefined if it vanished. */
  read(runId: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined>;
}

/** Where run state lives (DynamoDB). Writes are conditional on `expectedVersion`. */
export interface StateStore {
  loadAll(): Promise<Map<string, RunRecord>>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** Writes a transition and its history entry atomically; false if another writer won. */
  transition(next: RunRecord, flip: Flip, expectedVersion: number | undefined): Promise<boolean>;
  /** Writes bookkeeping without a transition (same version); false if the run changed meanwhile. */
  update(next: RunRecord, expectedVersion: number | undefined): Promise<boolean>;
  history(runId: string, limit?: number): Promise<Flip[]>;
}

/** One alert channel (Slack, SNS, EventBridge). Throws DeliveryError. */
export interface Notifier {
  readonly channel: string;
  notify(alert: Alert): Promise<void>;
}
