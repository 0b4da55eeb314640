import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledge, checkovSkip } from './nag.js';

/**
 * What every trainwatch bucket is: SSE-S3 (training roles write heartbeats without KMS permissions), TLS only,
 * private, owned by the bucket owner, versioned (a deleted or overwritten object stays recoverable a while), and
 * emptied with the stack only when the stack's removal policy destroys it.
 */
export function privateBucketProps(removalPolicy: RemovalPolicy): s3.BucketProps {
  return {
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: true,
    removalPolicy,
    autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
  };
}

/** A new heartbeat bucket: private, TLS only, versioned, EventBridge on, old runs expire. */
export function createBucket(
  scope: Construct,
  opts: {
    prefix: string;
    /** Where ended runs' files go (`retention.endedPrefix`): they expire there too. */
    endedPrefix: string;
    runRetention: Duration;
    removalPolicy: RemovalPolicy;
    /** Where S3 server access logs go; undefined: none (the default). */
    accessLogs?: s3.IBucket;
  },
): s3.Bucket {
  const expiration = opts.runRetention.toDays() > 0 ? opts.runRetention : undefined;
  const bucket = new s3.Bucket(scope, 'HeartbeatBucket', {
    ...privateBucketProps(opts.removalPolicy),
    serverAccessLogsBucket: opts.accessLogs,
    serverAccessLogsPrefix: opts.accessLogs ? 'heartbeat-bucket/' : undefined,
    lifecycleRules: [
      // Heartbeats are rewritten every minute: old versions pile up fast, keep them one day only.
      {
        id: 'noncurrent-versions',
        noncurrentVersionExpiration: Duration.days(1),
        expiredObjectDeleteMarker: true,
      },
      { id: 'incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      // Files expire runRetention after their last write: a live run's heartbeats, or an ended run's move.
      ...(expiration
        ? [
            { id: 'old-runs', prefix: opts.prefix ? `${opts.prefix}/` : undefined, expiration },
            { id: 'ended-runs', prefix: `${opts.endedPrefix}/`, expiration },
          ]
        : []),
    ],
  });
  // Native EventBridge switch: `eventBridgeEnabled` would add a custom-resource Lambda for nothing.
  (bucket.node.defaultChild as s3.CfnBucket).notificationConfiguration = {
    eventBridgeConfiguration: { eventBridgeEnabled: true },
  };
  if (!opts.accessLogs) {
    acknowledge(
      bucket,
      'AwsSolutions-S1',
      'Server access logs would log every heartbeat PUT (one a minute per run): off by default, `accessLogs.enabled` turns them on; CloudTrail data events are the audit trail when an account needs one.',
    );
    checkovSkip(
      bucket,
      'CKV_AWS_18',
      'Access logs are opt-in (accessLogs.enabled): one log line per heartbeat PUT.',
    );
  }
  return bucket;
}

/** Run state, transition history (TTL `expiresAt`), outbox and locks: one on-demand table. */
export function createTable(scope: Construct, removalPolicy: RemovalPolicy, key?: kms.IKey): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'StateTable', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: 'expiresAt',
    encryption: key ? dynamodb.TableEncryption.CUSTOMER_MANAGED : dynamodb.TableEncryption.AWS_MANAGED,
    encryptionKey: key,
    removalPolicy,
  });
  if (!key)
    checkovSkip(
      table,
      'CKV_AWS_119',
      'AWS-managed encryption by default; encryption.customerManagedKey opts in.',
    );
  return table;
}

/** The alert topic, encrypted with a customer key that CloudWatch alarms may also use. */
export function createTopic(
  scope: Construct,
  opts: { emails: readonly string[]; removalPolicy: RemovalPolicy },
): { topic: sns.Topic; key: kms.Key } {
  const key = new kms.Key(scope, 'TopicKey', {
    description: 'trainwatch: encrypts the alert topic and the dead-letter queue',
    enableKeyRotation: true,
    removalPolicy: opts.removalPolicy,
  });
  // The AWS-managed aws/sns key cannot be used by CloudWatch alarm actions: hence a customer key.
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: ['*'],
    }),
  );
  const topic = new sns.Topic(scope, 'AlertTopic', {
    displayName: 'trainwatch alerts',
    masterKey: key,
    enforceSSL: true,
  });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarms',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  for (const email of opts.emails) topic.addSubscription(new subs.EmailSubscription(email));
  return { topic, key };
}

/** The bus that every transition is put on (`source: trainwatch`). */
export function createBus(scope: Construct): events.EventBus {
  return new events.EventBus(scope, 'EventBus', {
    description: 'trainwatch: Training Run State Change events',
  });
}

/**
 * Keeps every invocation that failed after its retries, and every event EventBridge could not deliver.
 * Encrypted with the stack's customer key (the topic's): EventBridge cannot use the AWS-managed aws/sqs
 * key, and this key's policy lets it in for this account's rules only.
 */
export function createDeadLetterQueue(scope: Construct, key: kms.Key): sqs.Queue {
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowEventBridgeDeadLetters',
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  const queue = new sqs.Queue(scope, 'DeadLetterQueue', {
    encryption: sqs.QueueEncryption.KMS,
    encryptionMasterKey: key,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  acknowledge(
    queue,
    'AwsSolutions-SQS3',
    'This queue is itself the dead-letter queue of the functions and the EventBridge targets.',
  );
  return queue;
}
