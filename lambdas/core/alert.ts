import type { RunState } from './states.js';

/** Why the alert was sent. */
export type AlertKind = 'transition' | 'reminder' | 'remediation';

/** Everything a channel needs to tell people what happened and what to do. Plain data, JSON-safe. */
export interface Alert {
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
  readonly jobName?: string;
  readonly phase?: string;
  /** Since the run started (metadata `started_at`, else first seen). */
  readonly durationMs?: number;
  readonly step?: number;
  readonly totalSteps?: number;
  readonly etaMs?: number;
  readonly loss?: number;
  readonly lastLogLine?: string;
  /** Extra lines: diagnosis summary, restart decision. */
  readonly details?: readonly string[];
  readonly s3Uri: string;
  readonly consoleUrl: string;
}
