import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as eks from 'aws-cdk-lib/aws-eks';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { EventRules } from '../lambdas/core/remediation/eventRules.js';
import { WatchdogAlarms } from './alarms.js';
import { createDashboard } from './dashboard.js';
import { DEFAULTS } from './defaults.js';
import { eksAccessEntries, eksCertificateAuthorities, grantCertificateAuthorities } from './eksAccess.js';
import { commonEnvironment, remediationEnvironment } from './environment.js';
import { WatchdogFunction } from './functions.js';
import {
  createWriterPolicy,
  grantEnding,
  grantPagerDutyKey,
  grantRemediation,
  grantWatchdog,
  type RunResources,
} from './grants.js';
import { createAccessLogBucket, createDataKey } from './hardening.js';
import { acknowledge } from './nag.js';
import { createOnCallPolicy } from './onCallPolicy.js';
import type { TrainingRunMonitorProps } from './props.js';
import { RemediationDocuments, remediationRule, restartRequestRule } from './remediation.js';
import { type ResolvedProps, resolveProps } from './resolve.js';
import { checkRuntimeConfig } from './runtimeCheck.js';
import { SlackEndpoint } from './slackEndpoint.js';
import { createBucket, createBus, createDeadLetterQueue, createTable, createTopic } from './storage.js';

/** The id aws-cdk-lib gives its singleton S3 bucket-notifications handler. */
const NOTIFICATIONS_HANDLER_ID = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';

/**
 * Watches ML training runs that write heartbeats to S3: a scheduled sweep and an S3-event sentinel keep
 * each run's state in DynamoDB and alert on transitions (SNS, Slack, EventBridge); remediation diagnoses
 * and restarts tagged instances with the stack's own SSM documents. Watches itself with alarms.
 */
export class TrainingRunMonitor extends Construct {
  /** The props with every default applied. */
  readonly settings: ResolvedProps;
  readonly bucket: s3.IBucket;
  readonly table: dynamodb.Table;
  readonly topic: sns.Topic;
  readonly topicKey: kms.Key;
  readonly eventBus: events.IEventBus;
  readonly deadLetterQueue: sqs.Queue;
  /** The customer-managed key of the table and the log groups, when `customerManagedKey` is on. */
  readonly dataKey?: kms.Key;
  /** Where the created heartbeat bucket's server access logs go, when `serverAccessLogs` is on. */
  readonly accessLogBucket?: s3.IBucket;
  readonly sweep: WatchdogFunction;
  readonly sentinel: WatchdogFunction;
  readonly remediate?: WatchdogFunction;
  readonly documents?: RemediationDocuments;
  /** The remediation role's access entry on each configured EKS cluster (`remediation.eks.clusters`). */
  readonly eksAccessEntries: eks.CfnAccessEntry[] = [];
  /** The Slack app's endpoint (buttons, `/trainwatch status`), when `slack.signingSecretParameterName` is set. */
  readonly slackEndpoint?: SlackEndpoint;
  /** Attach to the training instances' role: write heartbeats (and SSM output) under the prefixes only. */
  readonly writerPolicy: iam.ManagedPolicy;
  /** Attach to on-call people: `trainwatch ack`, `silence`, `unsilence` (their items only) and `status`. */
  readonly onCallPolicy: iam.ManagedPolicy;
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: TrainingRunMonitorProps = {}) {
    super(scope, id);
    // Access logs are delivered under a bucket policy, never an ACL (the buckets enforce bucket-owner objects).
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    const s = resolveProps(props);
    this.settings = s;

    this.dataKey = s.customerManagedKey ? createDataKey(this, s.removalPolicy) : undefined;
    this.accessLogBucket =
      s.serverAccessLogs === true
        ? createAccessLogBucket(this, {
            removalPolicy: s.removalPolicy,
            retention: Duration.days(s.logRetention === logs.RetentionDays.INFINITE ? 3650 : s.logRetention),
          })
        : s.serverAccessLogs || undefined;
    this.bucket =
      props.bucket ??
      createBucket(this, {
        prefix: s.prefix,
        endedPrefix: s.endedPrefix,
        runRetention: s.runRetention,
        removalPolicy: s.removalPolicy,
        accessLogs: this.accessLogBucket,
      });
    if (props.bucket && (props.enableBucketEventBridge ?? true)) {
      props.bucket.enableEventBridgeNotification();
      this.acknowledgeNotificationsHandler();
    }
    this.table = createTable(this, s.removalPolicy, this.dataKey);
    const { topic, key } = createTopic(this, { emails: s.alertEmails, removalPolicy: s.removalPolicy });
    this.topic = topic;
    this.topicKey = key;
    this.eventBus = props.eventBus ?? createBus(this);
    this.deadLetterQueue = createDeadLetterQueue(this, key);

    const resources: RunResources = {
      bucket: this.bucket,
      prefix: s.prefix,
      table: this.table,
      topic: this.topic,
      topicKey: this.topicKey,
      bus: this.eventBus,
      slackParameterName: s.slackWebhookParameterName,
      pagerDutyParameterName: s.pagerDutyRoutingKeyParameterName,
      slackBotTokenParameterName: s.slack.botTokenParameterName,
      slackKey: props.slackWebhookKey,
      tableKey: this.dataKey,
    };
    const wiring = {
      bucket: this.bucket.bucketName,
      table: this.table.tableName,
      topicArn: this.topic.topicArn,
      eventBus: this.eventBus.eventBusName,
    };
    const environment = commonEnvironment(wiring, s);
    checkRuntimeConfig('sweep and sentinel', environment);
    const common = {
      environment,
      logRetention: s.logRetention,
      removalPolicy: s.removalPolicy,
      deadLetterQueue: this.deadLetterQueue,
      logKey: this.dataKey,
    };
    const reserved = s.reservedConcurrency;

    this.sweep = new WatchdogFunction(this, 'Sweep', {
      ...common,
      handler: 'sweep',
      description: `trainwatch: evaluates every run under ${s.prefix}/ every ${s.schedule.toHumanString()}`,
      memorySize: s.sweepMemorySize,
      timeout: s.sweepTimeout,
      // The next tick sweeps again; a retried stale sweep would only repeat it.
      retryAttempts: 0,
      maxEventAge: Duration.seconds(Math.max(60, s.schedule.toSeconds())),
      reservedConcurrency: reserved?.sweep,
    });
    grantWatchdog(this.sweep.role, resources);
    grantEnding(this.sweep.role, { ...resources, endedPrefix: s.endedPrefix });
    grantPagerDutyKey(this.sweep.role, resources);
    new events.Rule(this, 'SweepSchedule', {
      description: `trainwatch: sweep every ${s.schedule.toHumanString()}`,
      schedule: events.Schedule.rate(s.schedule),
      targets: [
        new targets.LambdaFunction(this.sweep.function, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 2,
          maxEventAge: Duration.seconds(Math.max(60, s.schedule.toSeconds())),
        }),
      ],
    });

    this.sentinel = new WatchdogFunction(this, 'Sentinel', {
      ...common,
      handler: 'sentinel',
      description: `trainwatch: reacts within seconds to _error and _complete under ${s.prefix}/`,
      memorySize: DEFAULTS.sentinelMemoryMb,
      timeout: Duration.seconds(DEFAULTS.sentinelTimeoutSeconds),
      retryAttempts: 2,
      reservedConcurrency: reserved?.sentinel,
    });
    grantWatchdog(this.sentinel.role, resources);
    grantPagerDutyKey(this.sentinel.role, resources);
    new events.Rule(this, 'SentinelRule', {
      description: `trainwatch: a run under ${s.prefix}/ wrote _error or _complete`,
      eventPattern: EventRules.sentinel(this.bucket.bucketName, s.prefix),
      targets: [
        new targets.LambdaFunction(this.sentinel.function, {
          deadLetterQueue: this.deadLetterQueue,
          retryAttempts: 8,
        }),
      ],
    });

    const others: Record<string, WatchdogFunction> = { Sentinel: this.sentinel };
    if (s.remediation.enabled) {
      const rem = s.remediation;
      this.documents = new RemediationDocuments(this, 'Documents');
      const [diagnoseDocument, restartDocument] = this.documents.names as [string, string];
      // The function gets each cluster's CA as the name of the parameter it is stored in.
      const cas = eksCertificateAuthorities(this, rem.eks.clusters ?? []);
      const withParams = { ...s, remediation: { ...rem, eks: { ...rem.eks, clusters: cas.clusters } } };
      const remediateEnv = {
        ...environment,
        ...remediationEnvironment({ diagnose: diagnoseDocument, restart: restartDocument }, withParams),
      };
      checkRuntimeConfig('remediate', remediateEnv);
      this.remediate = new WatchdogFunction(this, 'Remediate', {
        ...common,
        environment: remediateEnv,
        handler: 'remediate',
        description:
          'trainwatch: diagnoses failed, timed-out and stalled runs over SSM; restarts them per policy',
        memorySize: DEFAULTS.remediateMemoryMb,
        timeout: Duration.seconds(DEFAULTS.remediateTimeoutSeconds),
        retryAttempts: 1,
        reservedConcurrency: reserved?.remediate,
      });
      grantWatchdog(this.remediate.role, resources);
      grantRemediation(this.remediate.role, {
        ...resources,
        documentNames: this.documents.names,
        managedTag: rem.managedTag,
        ssmOutputPrefix: rem.ssmOutputPrefix,
      });
      this.eksAccessEntries = eksAccessEntries(this, this.remediate.role, rem.eks.clusters ?? []);
      grantCertificateAuthorities(this.remediate.role, cas.parameters);
      remediationRule(this, {
        bus: this.eventBus,
        target: this.remediate.function,
        deadLetterQueue: this.deadLetterQueue,
      });
      restartRequestRule(this, {
        bus: this.eventBus,
        target: this.remediate.function,
        deadLetterQueue: this.deadLetterQueue,
      });
      others.Remediate = this.remediate;
    }

    if (s.slack.botTokenParameterName && s.slack.signingSecretParameterName) {
      this.slackEndpoint = new SlackEndpoint(this, 'Slack', {
        ...common,
        deadLetterQueue: undefined,
        memorySize: DEFAULTS.slackMemoryMb,
        timeout: Duration.seconds(DEFAULTS.slackTimeoutSeconds),
        reservedConcurrency: reserved?.slack,
        table: this.table,
        tableKey: this.dataKey,
        bus: this.eventBus,
        botTokenParameterName: s.slack.botTokenParameterName,
        signingSecretParameterName: s.slack.signingSecretParameterName,
        restart: s.slack.restartBy.length > 0 && s.remediation.enabled,
      });
      others.Slack = this.slackEndpoint.fn;
    }

    this.writerPolicy = createWriterPolicy(this, {
      bucket: this.bucket,
      prefix: s.prefix,
      ssmOutputPrefix: s.remediation.enabled ? s.remediation.ssmOutputPrefix : undefined,
    });
    this.onCallPolicy = createOnCallPolicy(
      this,
      this.table,
      s.remediation.enabled ? this.eventBus : undefined,
    );

    const watchdogAlarms = new WatchdogAlarms(this, 'Alarms', {
      sweep: this.sweep.function,
      schedule: s.schedule,
      others: Object.fromEntries(Object.entries(others).map(([k, v]) => [k, v.function])),
      deadLetterQueue: this.deadLetterQueue,
      topic: props.alarmTopic ?? this.topic,
    });
    this.alarms = watchdogAlarms.alarms;
    this.dashboard = createDashboard(this, {
      functions: {
        Sweep: this.sweep.function,
        ...Object.fromEntries(Object.entries(others).map(([k, v]) => [k, v.function])),
      },
      deadLetterQueue: this.deadLetterQueue,
      alarms: this.alarms,
    });
  }

  /** CDK's singleton handler that turns on EventBridge for an imported bucket (runs at deploy time only). */
  private acknowledgeNotificationsHandler(): void {
    const handler = Stack.of(this).node.tryFindChild(NOTIFICATIONS_HANDLER_ID);
    if (!handler) return;
    acknowledge(
      handler,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "aws-cdk-lib's bucket-notifications custom resource handler attaches this policy to its own role; it runs only during deployment.",
    );
  }
}
