import type { AlertProgress } from './slices/attempt.js';
import type { RunState } from './states.js';

/** Why the alert was sent. */
export type AlertKind =
  | 'transition'
  | 'reminder'
  | 'remediation'
  // on-call lifecycle (lambdas/core/oncall): a person's ack, one alert for many runs, a silence's end
  | 'acknowledgement'
  | 'group'
  | 'summary';

/** One run listed by a grouped alert or a silence summary. */
export interface ListedRun {
  readonly runId: string;
  readonly state: RunState;
  readonly reason: string;
  readonly errorType?: string | null;
  readonly jobName?: string;
}

/**
 * Everything a channel needs to tell people what happened and what to do. Plain data, JSON-safe. The attempt's
 * progress (`step`, `totalSteps`, `loss`, `learningRate`, `lastLogLine`: AlertProgress) is flat on it.
 */
export interface Alert extends AlertProgress {
  /** Unique per (run, version, kind): channels may use it to de-duplicate. */
  readonly id: string;
  readonly kind: AlertKind;
  readonly runId: string;
  readonly state: RunState;
  readonly previousState?: RunState;
  readonly reason: string;
  /** The concrete next step for a person. */
  readonly action: string;
  readonly severity: 'critical' | 'warning' | 'info' | 'success';
  readonly at: number;
  readonly attempt: number;
  readonly errorType?: string | null;
  readonly instanceId?: string;
  /** Where the run lives on a platform other than an instance: "EKS cluster/namespace/PyTorchJob name". */
  readonly where?: string;
  readonly jobName?: string;
  readonly phase?: string;
  /** Since the run started (metadata `started_at`, else first seen). */
  readonly durationMs?: number;
  readonly etaMs?: number;
  /** Extra lines: diagnosis summary, restart decision. */
  readonly details?: readonly string[];
  readonly s3Uri: string;
  readonly consoleUrl: string;
  // on-call lifecycle (lambdas/core/oncall)
  /** Held from people's channels by a silence or `maintenance: true`; EventBridge still gets it. */
  readonly silenced?: boolean;
  /** Who acknowledged, and their note (kind `acknowledgement`). */
  readonly acknowledgedBy?: string;
  readonly note?: string;
  /** The runs a `group` or `summary` alert stands for. */
  readonly runs?: readonly ListedRun[];
  /** When the run entered `state`: a button on the alert acts only while the run is still there. */
  readonly since?: number;
  /** Remediation probed the run and the restart policy would allow a restart: offer "Restart now". */
  readonly offersRestart?: boolean;
  /** The silence a `summary` alert closes. */
  readonly silence?: {
    readonly id: string;
    readonly reason: string;
    readonly by: string;
    readonly scope: string;
  };
}
