import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { SETTINGS } from '../lambdas/settings/index.js';
import type { EksCluster, ManagedTag, PropsOf, RestartCommand } from './settings/index.js';

type Settings = typeof SETTINGS;

/**
 * When a run counts as stale, stalled or late, and how often to remind. Each prop, its TSDoc and its
 * default come from `SETTINGS.thresholds` (lambdas/settings/registry.ts).
 */
export interface ThresholdProps extends PropsOf<Settings['thresholds']> {}

/**
 * Healthy-run rules (throughput drop, straggler nodes, idle GPUs): docs/HEALTH.md. Each prop, its TSDoc
 * and its default come from `SETTINGS.health`.
 */
export interface HealthProps extends PropsOf<Settings['health']> {}

export type { EksCluster, ManagedTag, RestartCommand };

/**
 * The Slack app: one thread per run attempt, buttons and `/trainwatch status` (docs/ONCALL.md, "Slack app"). Each
 * prop, its TSDoc and its default come from `SETTINGS.slack`.
 */
export interface SlackAppProps extends PropsOf<Settings['slack']> {}

/** Diagnosis and restart of training instances with SSM Run Command (settings: `SETTINGS.remediation`). */
export interface RemediationProps extends PropsOf<Settings['remediation']> {
  /**
   * Deploy the remediation function, its rule and the two SSM documents.
   * @default true (the default restart policy `none` still only diagnoses, never restarts)
   */
  readonly enabled?: boolean;
}

/** Reserved concurrency of each function; see {@link TrainingRunMonitorProps.reservedConcurrency}. */
export interface ReservedConcurrencyProps {
  /** @default 2 */
  readonly sweep?: number;
  /** @default 10 */
  readonly sentinel?: number;
  /** @default 5 */
  readonly remediate?: number;
  /** The Slack app's endpoint (a public URL: this caps what a flood of requests can cost). @default 5 */
  readonly slack?: number;
}

/** The runtime settings at the top level of the props (`prefix`, `profile`, `concurrency`, …). */
export interface TopLevelSettingProps
  extends PropsOf<Omit<Settings, 'thresholds' | 'health' | 'remediation' | 'slack'>> {}

/** Properties of {@link TrainingRunMonitor}; every one is optional. */
export interface TrainingRunMonitorProps extends TopLevelSettingProps {
  /**
   * An existing bucket that training scripts already write to.
   * @default - a new bucket: SSE-S3, TLS only, public access blocked, versioned, lifecycle on old runs
   */
  readonly bucket?: s3.IBucket;
  /**
   * Turn on EventBridge delivery of an imported bucket's events (a CDK custom resource that keeps the
   * bucket's other notification settings). A created bucket always has it on.
   * @default true
   */
  readonly enableBucketEventBridge?: boolean;
  /**
   * How often the sweep runs: whole minutes from 1 to 60.
   * @default Duration.minutes(1)
   */
  readonly schedule?: Duration;
  /** @default - see {@link ThresholdProps} */
  readonly thresholds?: ThresholdProps;
  /** @default - see {@link HealthProps} */
  readonly health?: HealthProps;
  /** @default - see {@link SlackAppProps} */
  readonly slack?: SlackAppProps;
  /**
   * The customer-managed KMS key of that parameter, if it is not the default `aws/ssm` key.
   * @default - the `aws/ssm` key, whose key policy already lets account principals decrypt via SSM
   */
  readonly slackWebhookKey?: kms.IKey;
  /**
   * Name of the SSM SecureString holding the PagerDuty Events API v2 routing key; the stack reads it
   * (ssm:GetParameter on this parameter only), never creates it. Unset: no PagerDuty channel.
   * @default - no PagerDuty
   */
  readonly pagerDutyRoutingKeyParameterName?: string;
  /**
   * Same-kind unhealthy transitions in one sweep that make one grouped Slack/SNS alert; 0: never group.
   * @default 3
   */
  readonly groupMin?: number;
  /**
   * Email addresses subscribed to the alert topic (each confirms once by email).
   * @default []
   */
  readonly alertEmails?: readonly string[];
  /**
   * Where the watchdog's own alarms go.
   * @default - the alert topic
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * The bus that transitions are put on.
   * @default - a new event bus
   */
  readonly eventBus?: events.IEventBus;
  /** @default - see {@link RemediationProps} */
  readonly remediation?: RemediationProps;
  /**
   * Removal policy of the stateful resources (bucket, table, key, log groups). `DESTROY` empties the
   * created bucket on delete.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Retention of the functions' log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Memory of the sweep function (it may evaluate 10,000 runs per tick).
   * @default 512
   */
  readonly sweepMemorySize?: number;
  /**
   * Timeout of the sweep function. Overlapping sweeps are safe (state writes are conditional).
   * @default Duration.minutes(2)
   */
  readonly sweepTimeout?: Duration;
  /**
   * Reserved concurrency of each function: a flood of S3 events or a bug cannot take the account's
   * Lambda concurrency, and the watchdog always has its own. `false`: no reservation (an account whose
   * concurrency quota is still the new-account 10 cannot reserve any).
   * @default { sweep: 2, sentinel: 10, remediate: 5 }
   */
  readonly reservedConcurrency?: ReservedConcurrencyProps | false;
  /**
   * S3 server access logs of the created heartbeat bucket (every heartbeat PUT, one a minute per run).
   * `true` creates a log bucket; or give one. An imported heartbeat bucket keeps its own settings.
   * @default false
   */
  readonly serverAccessLogs?: boolean | s3.IBucket;
  /**
   * Encrypt the state table and the functions' log groups with a customer-managed KMS key (rotated
   * yearly, about 1 USD a month), instead of AWS-owned keys. `true` creates one.
   * @default false
   */
  readonly customerManagedKey?: boolean;
}
