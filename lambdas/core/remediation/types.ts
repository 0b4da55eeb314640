import type { Links } from '../alerting/alerts.js';
import type { DeliverOptions } from '../alerting/deliver.js';
import type { DetailedClassification, Profile } from '../classify/index.js';
import type { Alert } from '../model/alert.js';
import type { AttemptArchive, CommandRunner, Notifier, RunStore, StateStore } from '../model/ports.js';
import type { JobCommand } from '../model/slices/remediation.js';
import type { RunState } from '../model/states.js';
import type { EksSettings } from './eks/place.js';
import type { EksApi } from './eks/types.js';
import type { Decision, RestartPolicy } from './policy/index.js';

/** What remediation needs from configuration. */
export interface RemediationSettings {
  readonly diagnoseDocument?: string;
  readonly restartDocument?: string;
  readonly policy: RestartPolicy;
  readonly profile: Profile | string;
  readonly commands: Readonly<Record<string, JobCommand>>;
  /** @default 150 */
  readonly diagnoseTimeoutSeconds?: number;
  /** @default 90 */
  readonly restartTimeoutSeconds?: number;
  /** Runs on EKS: the clusters and namespaces remediation may act in. Absent: none. */
  readonly eks?: EksSettings;
}

/**
 * Classifies a failure's text with a profile (a name, or a loaded profile): `classifyDetailed`, whose rules a
 * Lambda loads on the first failure (lambdas/adapters/loaders/classifier.ts), not at cold start.
 */
export type DetailedClassifier = (
  text: string,
  profile: Profile | string,
) => DetailedClassification | Promise<DetailedClassification>;

/** Ports and settings, wired once per cold start. `owner` names this worker in the per-run lock. */
export interface RemediationDeps {
  readonly runs: RunStore;
  readonly states: StateStore;
  readonly commands: CommandRunner;
  readonly archive: AttemptArchive;
  readonly notifiers: readonly Notifier[];
  readonly links: Links;
  readonly settings: RemediationSettings;
  /** The classifier (the run's profile, else `settings.profile`); tests pass `classifyDetailed` itself. */
  readonly classify: DetailedClassifier;
  readonly owner: string;
  readonly deliverOptions?: DeliverOptions;
  /** The Kubernetes API of a configured EKS cluster, loaded when a run on EKS needs it. */
  readonly eks?: (cluster: string) => Promise<EksApi>;
  /** Waits (a suspended job's pods going away); the tests pass a fast one. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A transition worth remediating (from the EventBridge event's Alert detail). */
export interface RemediationRequest {
  readonly runId: string;
  readonly state: RunState;
  readonly alertId?: string;
  /** A person asked for it (Slack's Restart now, `trainwatch restart`): who, for the history and the alert. */
  readonly requestedBy?: string;
}

/** What remediation did for one run. */
export interface RemediationOutcome {
  readonly runId: string;
  readonly skipped?: string;
  readonly errorType?: string | null;
  readonly decision?: Decision;
  readonly diagnosis?: readonly string[];
  readonly alert?: Alert;
  readonly delivered?: number;
  readonly failed?: number;
}
