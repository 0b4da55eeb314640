import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { parseDuration } from '../lambdas/core/base/duration.js';
import type { TrainwatchConfig } from './config.js';
import { scheduleMinutes } from './config.js';
import { TrainingRunMonitor } from './monitor.js';
import type { TrainingRunMonitorProps } from './props.js';
import { propsFromFile } from './settings/index.js';

const ms = (text: string) => Duration.millis(parseDuration(text)!);

/**
 * Turns a validated configuration into construct props, importing the existing resources it names. The
 * runtime settings convert generically (lib/settings); the stack's own settings are listed here.
 */
export function monitorProps(scope: Construct, c: TrainwatchConfig): TrainingRunMonitorProps {
  const settings = propsFromFile(c) as TrainingRunMonitorProps;
  return {
    ...settings,
    bucket: c.bucket ? s3.Bucket.fromBucketName(scope, 'ExistingBucket', c.bucket.name) : undefined,
    enableBucketEventBridge: c.bucket?.enableEventBridge,
    schedule: Duration.minutes(scheduleMinutes(c.schedule)!),
    slackWebhookKey: c.alerts.slackWebhookKeyArn
      ? kms.Key.fromKeyArn(scope, 'SlackWebhookKey', c.alerts.slackWebhookKeyArn)
      : undefined,
    alertEmails: c.alerts.emails,
    alarmTopic: c.alerts.alarmTopicArn
      ? sns.Topic.fromTopicArn(scope, 'AlarmTopic', c.alerts.alarmTopicArn)
      : undefined,
    remediation: { ...settings.remediation, enabled: c.remediation.enabled },
    removalPolicy: c.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    logRetention: c.retention.logsDays as logs.RetentionDays,
    sweepMemorySize: c.sweep.memoryMb,
    sweepTimeout: ms(c.sweep.timeout),
    reservedConcurrency: c.reservedConcurrency,
    serverAccessLogs: c.accessLogs.bucketName
      ? s3.Bucket.fromBucketName(scope, 'AccessLogBucket', c.accessLogs.bucketName)
      : c.accessLogs.enabled,
    customerManagedKey: c.encryption.customerManagedKey,
  };
}

/** Properties of {@link TrainwatchStack}. */
export interface TrainwatchStackProps extends StackProps {
  readonly config: TrainwatchConfig;
}

/** The deployable stack: one {@link TrainingRunMonitor} from configuration, with the values users need as outputs. */
export class TrainwatchStack extends Stack {
  readonly monitor: TrainingRunMonitor;

  constructor(scope: Construct, id: string, props: TrainwatchStackProps) {
    super(scope, id, {
      description:
        'trainwatch: serverless watchdog for ML training runs (heartbeats in S3, alerts on Slack/SNS)',
      ...props,
    });
    this.monitor = new TrainingRunMonitor(this, 'Monitor', monitorProps(this, props.config));
    // AWS::CloudWatch::Dashboard takes no Tags in the CloudFormation schema that cfn-lint checks against.
    const tagOptions = { excludeResourceTypes: ['AWS::CloudWatch::Dashboard'] };
    Tags.of(this).add('trainwatch:stack', this.stackName, tagOptions);
    for (const [k, v] of Object.entries(props.config.tags)) Tags.of(this).add(k, v, tagOptions);
    const m = this.monitor;
    const out = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    out('BucketName', m.bucket.bucketName, 'Heartbeat bucket: training scripts write under the prefix');
    out('Prefix', m.settings.prefix, 'Key prefix of the runs: s3://{bucket}/{prefix}/{run_id}/');
    out('WriterPolicyArn', m.writerPolicy.managedPolicyArn, 'Attach to the training instance role');
    out(
      'OnCallPolicyArn',
      m.onCallPolicy.managedPolicyArn,
      'Attach to on-call people: trainwatch ack, silence',
    );
    if (m.settings.pagerDutyRoutingKeyParameterName)
      out(
        'PagerDutyRoutingKeyParameter',
        m.settings.pagerDutyRoutingKeyParameterName,
        'Put the PagerDuty Events API v2 routing key here (SecureString)',
      );
    out('AlertTopicArn', m.topic.topicArn, 'Subscribe more endpoints here');
    out('EventBusName', m.eventBus.eventBusName, 'Training Run State Change events');
    out('StateTableName', m.table.tableName, 'Run state and history');
    out('DeadLetterQueueUrl', m.deadLetterQueue.queueUrl, 'Failed invocations and undeliverable events');
    out('DashboardName', m.dashboard.dashboardName, 'CloudWatch dashboard');
    out('SweepLogGroup', m.sweep.logGroup.logGroupName, 'Sweep logs: aws logs tail <name> --follow');
    out('SentinelLogGroup', m.sentinel.logGroup.logGroupName, 'Sentinel logs');
    if (m.remediate) out('RemediateLogGroup', m.remediate.logGroup.logGroupName, 'Remediation logs');
    if (m.settings.slackWebhookParameterName)
      out(
        'SlackWebhookParameter',
        m.settings.slackWebhookParameterName,
        'Put the Slack webhook URL here (SecureString)',
      );
    if (m.settings.slack.botTokenParameterName)
      out(
        'SlackBotTokenParameter',
        m.settings.slack.botTokenParameterName,
        "Put the Slack app's bot token (xoxb-…) here (SecureString)",
      );
    if (m.slackEndpoint) {
      out(
        'SlackEndpointUrl',
        m.slackEndpoint.url.url,
        "The Slack app's Interactivity Request URL and /trainwatch command URL",
      );
      out(
        'SlackSigningSecretParameter',
        m.settings.slack.signingSecretParameterName!,
        "Put the Slack app's signing secret here (SecureString)",
      );
      out('SlackLogGroup', m.slackEndpoint.fn.logGroup.logGroupName, 'Slack endpoint logs');
    }
    if (m.settings.remediation.enabled)
      out(
        'ManagedInstanceTag',
        `${m.settings.remediation.managedTag.key}=${m.settings.remediation.managedTag.value}`,
        'Tag instances with this to allow diagnosis and restart',
      );
  }
}
