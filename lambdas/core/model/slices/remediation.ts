/** One remediation decision, kept on the run (the last few) so people and the crash-loop check can see them. */
export interface RemediationEntry {
  readonly at: number;
  readonly attempt: number;
  readonly state: string;
  readonly errorType: string | null;
  readonly action: 'restart' | 'alert' | 'give_up';
  readonly reason: string;
}

/** What remediation remembers about a run, on its DynamoDB item. JSON-safe. */
export interface RemediationState {
  /** Restarts issued so far. */
  readonly restarts: number;
  /** Highest step each attempt reached by its own progress, by attempt number ("1", "2", …). */
  readonly bestSteps: Readonly<Record<string, number>>;
  /** When the current attempt was started by a restart (absent for attempt 1). */
  readonly attemptStartedAt?: number;
  /** The id of the last transition alert handled, so a redelivered event does nothing twice. */
  readonly handled?: string;
  /** The latest diagnosis, summarised (with where its full output is, if SSM wrote it to S3). */
  readonly diagnosis?: {
    readonly at: number;
    readonly lines: readonly string[];
    readonly commandId?: string;
  };
  readonly history: readonly RemediationEntry[];
  /** A run on EKS: its job's manifest (JSON) as last read while it existed, to re-create it from. */
  readonly savedJob?: string;
}

/** How many decisions a run keeps. */
export const HISTORY_KEPT = 10;

/** The operator's command for one job (from stack configuration, never from heartbeat content). */
export interface JobCommand {
  readonly command: string;
  /** `pgrep -f` pattern that finds the job's process when the run names no pid_file / process pattern. */
  readonly processPattern?: string;
  /** User the new attempt runs as (default: the SSM agent's user). */
  readonly user?: string;
  /** A multi-node job: restart on every node's instance (`all`, default) or once on node 0 (`head`). */
  readonly target?: 'all' | 'head';
  /** Without a checkpoint: refuse (`require`, default) or start from scratch (`allow_scratch`). */
  readonly resume?: 'require' | 'allow_scratch';
}
