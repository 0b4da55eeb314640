import type { RunFileName } from '../protocol/files.js';
import type { Alert } from './alert.js';
import type { RunFiles } from './listing.js';
import type { Ended, Flip, OutboxEntry, RunRecord, Undelivered } from './record.js';

/** What moving an ended run's files did. */
export interface MovedFiles {
  /** The folder they moved to, `{endedPrefix}/{run_id}/{stamp}/`. */
  readonly folder: string;
  readonly moved: number;
  /** Keys a writer changed or created while they were being moved: left where they are, the run goes on. */
  readonly changed: readonly string[];
}

/** Where heartbeats live (S3). */
export interface RunStore {
  /**
   * Every run under the prefix, grouped from LIST pages. `splitAt`: run ids (sorted) at which a new
   * LIST range starts; the ranges are listed in parallel and together cover the whole prefix.
   */
  listRuns(
    splitAt?: readonly string[],
  ): Promise<{ runs: RunFiles[]; ignored: { key: string; problem: string }[] }>;
  /** One run, by listing its prefix (the sentinel path). */
  listRun(runId: string): Promise<RunFiles | undefined>;
  /** A file's bytes (the last `tailBytes` when given); undefined if it vanished. */
  read(runId: string, file: RunFileName, tailBytes?: number): Promise<Uint8Array | undefined>;
  /** One node's file, `nodes/{rank}.json` (protocol v1.1); undefined if it vanished. */
  readNode(runId: string, rank: number): Promise<Uint8Array | undefined>;
  /** A node's stack file (`stacks/{rank}.json`, protocol v1.2); undefined when it vanished. */
  readStack(runId: string, rank: number): Promise<Uint8Array | undefined>;
  /**
   * Moves every file under the run's folder to its ended folder, named by `stamp`: each is copied only
   * while its ETag is the one listed and deleted only while it still is, so a writer starting a new
   * attempt meanwhile loses nothing (what it wrote stays, and is reported in `changed`). A protocol or
   * node file that `seen` (the sweep's view of the run) lacks, or saw with another ETag, is news the
   * sweep has not judged: it stays too, in `changed`.
   */
  moveToEnded(runId: string, stamp: string, seen?: RunFiles): Promise<MovedFiles>;
}

/**
 * Where run state lives (DynamoDB). Every write bumps the run's version and, except `settleOutbox`,
 * is conditional on the version it read (0: the run is new), so a stale writer loses instead of
 * overwriting: false means another writer won.
 */
export interface StateStore {
  /** The live runs (not ended): what a sweep reads, whatever the table keeps of runs that ended. */
  loadLive(): Promise<Map<string, RunRecord>>;
  /** The stored records of runs that are not live (ended ones), by id; ids unknown to the table are absent. */
  find(runIds: readonly string[]): Promise<Map<string, RunRecord>>;
  /** One run, live or ended (strongly consistent). */
  get(runId: string): Promise<RunRecord | undefined>;
  /**
   * Puts an ended run back in the live set as `next` (version = expectedVersion + 1), conditional on the
   * ended record's version: a new attempt wrote files. False when another writer won.
   */
  revive(next: RunRecord, expectedVersion: number): Promise<boolean>;
  /**
   * Takes the run out of the live set (conditional on `r.version`) as ended, with `flip` in its history;
   * false when another writer won. The ended record expires with the run's files (retention).
   */
  end(r: RunRecord, ended: Ended, flip: Flip): Promise<boolean>;
  /** Writes `next` (version = expectedVersion + 1) and appends `flip` to the history, atomically. */
  transition(next: RunRecord, flip: Flip, expectedVersion: number): Promise<boolean>;
  /** Writes `next` (version = expectedVersion + 1) without a history entry. */
  update(next: RunRecord, expectedVersion: number): Promise<boolean>;
  /** Replaces (or, with null, removes) one outbox entry whatever the version; records what gave up. */
  settleOutbox(
    runId: string,
    alertId: string,
    entry: OutboxEntry | null,
    gaveUp: readonly Undelivered[],
    at: number,
  ): Promise<void>;
  /** Takes a named per-run lock until `untilMs`, unless another owner holds an unexpired one. */
  acquireLock(runId: string, name: string, owner: string, untilMs: number, nowMs: number): Promise<boolean>;
  releaseLock(runId: string, name: string, owner: string): Promise<void>;
  history(runId: string, limit?: number): Promise<Flip[]>;
}

/** One alert channel (Slack, SNS, EventBridge). Throws DeliveryError. */
export interface Notifier {
  readonly channel: string;
  notify(alert: Alert): Promise<void>;
}

/** What one command on one instance came to (remediation's view of SSM Run Command). */
export interface CommandResult {
  /** `Success`, or why not: `Failed`, `TimedOut`, `Cancelled`, `Undeliverable` (agent offline),
   *  `InvalidInstance` (terminated or not managed), `AccessDenied`, `Error`. */
  readonly status:
    | 'Success'
    | 'Failed'
    | 'TimedOut'
    | 'Cancelled'
    | 'Undeliverable'
    | 'InvalidInstance'
    | 'AccessDenied'
    | 'Error';
  readonly ok: boolean;
  /** Standard output, complete (read from S3 when SSM's inline copy was cut at 24,000 characters). */
  readonly output: string;
  readonly commandId?: string;
  readonly exitCode?: number;
  /** One line for people when not ok, e.g. "instance i-0abc… is not managed by SSM (terminated?)". */
  readonly finding?: string;
}

/** Runs one of the stack's SSM documents on one instance and waits for the outcome. Never throws. */
export interface CommandRunner {
  run(request: {
    readonly instanceId: string;
    readonly document: string;
    readonly parameters: Readonly<Record<string, string>>;
    /** How long to wait for the outcome, delivery included. */
    readonly timeoutSeconds: number;
    readonly comment?: string;
  }): Promise<CommandResult>;
  /** The same document on several instances (a multi-node run's nodes): one result per instance id. */
  runOnEach(request: {
    readonly instanceIds: readonly string[];
    readonly document: string;
    readonly parameters: Readonly<Record<string, string>>;
    readonly timeoutSeconds: number;
    readonly comment?: string;
  }): Promise<ReadonlyMap<string, CommandResult>>;
}

/** Moves a finished attempt's files under `attempts/{n}/` so the next attempt starts clean. */
export interface AttemptArchive {
  /** Returns the keys written; files that do not exist are skipped. */
  archive(runId: string, attempt: number, files: readonly RunFileName[]): Promise<string[]>;
}
