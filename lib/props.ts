import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';

/** When a run counts as stale, stalled or late, and how often to remind. */
export interface ThresholdProps {
  /**
   * A heartbeat older than this is stale (one stale: WARNING, both: TIMED_OUT).
   * @default Duration.minutes(10)
   */
  readonly staleAfter?: Duration;
  /**
   * `step` not advancing for this long while heartbeats are fresh: STALLED.
   * @default Duration.minutes(30)
   */
  readonly stallAfter?: Duration;
  /**
   * How long a new run prefix may go without any heartbeat before it is TIMED_OUT.
   * @default Duration.minutes(15)
   */
  readonly startupGrace?: Duration;
  /**
   * Longer stale thresholds while the run reports a phase (e.g. a long checkpoint write).
   * @default { setup: 30 min, checkpointing: 30 min }
   */
  readonly phaseStaleAfter?: Readonly<Record<string, Duration>>;
  /**
   * Re-alert this often while a run stays unhealthy.
   * @default - never: one alert per transition
   */
  readonly remindEvery?: Duration;
}

/** The instance tag that allows remediation: SSM commands go only to instances that carry it. */
export interface ManagedTag {
  readonly key: string;
  readonly value: string;
}

/** How to restart one job: the command line, or the command with how to find and run the process. */
export type RestartCommand =
  | string
  | { readonly command: string; readonly process_pattern?: string; readonly user?: string };

/** Diagnosis and restart of training instances with SSM Run Command. */
export interface RemediationProps {
  /**
   * Deploy the remediation function, its rule and the two SSM documents.
   * @default true (the default restart policy `none` still only diagnoses, never restarts)
   */
  readonly enabled?: boolean;
  /**
   * Restart policy: a preset (`none`, `transient`, `aggressive`, `conservative`) or a policy object
   * (see the README, "Deploy to your AWS account").
   * @default 'none'
   */
  readonly restartPolicy?: string | Readonly<Record<string, unknown>>;
  /**
   * The command that resumes a job from its latest checkpoint, by `job_name`; key `*` is the fallback.
   * A string, or `{ command, process_pattern?, user? }`. A program and its arguments, no shell syntax.
   * @default {} (no restart command: restarts are skipped with a reason)
   */
  readonly restartCommands?: Readonly<Record<string, RestartCommand>>;
  /**
   * Only instances with this tag may receive `ssm:SendCommand` from the stack.
   * @default { key: 'trainwatch:managed', value: 'true' }
   */
  readonly managedTag?: ManagedTag;
  /**
   * Key prefix in the heartbeat bucket where SSM writes full command output.
   * @default 'trainwatch-ssm-output'
   */
  readonly ssmOutputPrefix?: string;
}

/** Properties of {@link TrainingRunMonitor}; every one is optional. */
export interface TrainingRunMonitorProps {
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
   * Key prefix of the runs: `s3://{bucket}/{prefix}/{run_id}/`.
   * @default 'training-runs'
   */
  readonly prefix?: string;
  /**
   * How often the sweep runs: whole minutes from 1 to 60.
   * @default Duration.minutes(1)
   */
  readonly schedule?: Duration;
  /** @default - see {@link ThresholdProps} */
  readonly thresholds?: ThresholdProps;
  /**
   * Name of the SSM parameter (String or SecureString) holding the Slack incoming-webhook URL; the stack
   * reads it, never creates it. Empty string: no Slack.
   * @default '/trainwatch/slack-webhook-url'
   */
  readonly slackWebhookParameterName?: string;
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
  /**
   * Default classification profile for runs that set none: a built-in name (`basic`, `nccl`, `stall`,
   * `production`) or a custom profile object (`{ name, extends, disable, signals }`).
   * @default 'production'
   */
  readonly profile?: string | Readonly<Record<string, unknown>>;
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
   * A created bucket deletes run files this long after they were last written (0: keep forever).
   * @default Duration.days(90)
   */
  readonly runRetention?: Duration;
  /**
   * How long transition history stays in DynamoDB (TTL).
   * @default Duration.days(90)
   */
  readonly historyTtl?: Duration;
  /**
   * How many runs one sweep evaluates in parallel.
   * @default 16
   */
  readonly concurrency?: number;
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
}
