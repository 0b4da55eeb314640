import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { logicalId, synthStack } from './synth.js';

// One synthesis for the whole file (bundling skipped): every assertion reads the same template.
const { template } = synthStack({ alerts: { emails: ['oncall@example.com', 'ml-team@example.com'] } });
const bucketId = logicalId(template, 'AWS::S3::Bucket', 'MonitorHeartbeatBucket');
const tableId = logicalId(template, 'AWS::DynamoDB::Table', 'MonitorStateTable');
const topicId = logicalId(template, 'AWS::SNS::Topic', 'MonitorAlertTopic');
const keyId = logicalId(template, 'AWS::KMS::Key', 'MonitorTopicKey');
const queueId = logicalId(template, 'AWS::SQS::Queue', 'MonitorDeadLetterQueue');
const busId = logicalId(template, 'AWS::Events::EventBus', 'MonitorEventBus');
const fnId = (name: string) => logicalId(template, 'AWS::Lambda::Function', `Monitor${name}Function`);

describe('heartbeat bucket', () => {
  it('is encrypted, private, versioned and sends events to EventBridge', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      VersioningConfiguration: { Status: 'Enabled' },
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
  });

  it('expires old runs under the prefix and under the ended prefix, and old heartbeat versions after a day', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Id: 'noncurrent-versions', NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
          Match.objectLike({
            Id: 'incomplete-uploads',
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          }),
          Match.objectLike({
            Id: 'old-runs',
            Prefix: 'training-runs/',
            ExpirationInDays: 90,
            Status: 'Enabled',
          }),
          Match.objectLike({
            Id: 'ended-runs',
            Prefix: 'trainwatch-ended/',
            ExpirationInDays: 90,
            Status: 'Enabled',
          }),
        ]),
      },
    });
  });

  it('denies every request that is not TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('is kept when the stack is deleted (default removal policy)', () => {
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('state table', () => {
  it('is on demand with pk/sk, point-in-time recovery and TTL on expiresAt', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
  });
});

describe('alert topic', () => {
  it('is encrypted with a rotating customer key that CloudWatch alarms may use', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          }),
        ]),
      },
    });
  });

  it('accepts only TLS and lets CloudWatch alarms of this account publish', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
  });

  it('subscribes each configured email address', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 2);
    for (const email of ['oncall@example.com', 'ml-team@example.com'])
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: email,
        TopicArn: { Ref: topicId },
      });
  });
});

describe('functions', () => {
  it.each([
    ['Sweep', 512, 120],
    ['Sentinel', 256, 30],
    ['Remediate', 256, 300],
  ])('%s runs Node.js 22 on arm64 with %i MB and a %i s timeout, source maps on', (name, memory, timeout) => {
    const fn = template.findResources('AWS::Lambda::Function')[fnId(name)]!.Properties as Record<
      string,
      unknown
    >;
    expect(fn).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: memory,
      Timeout: timeout,
      Handler: 'index.handler',
    });
    expect((fn.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'trainwatch',
      POWERTOOLS_METRICS_NAMESPACE: 'Trainwatch',
    });
  });

  it('gives the functions the configuration lambdas/config.ts reads', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TRAINWATCH_BUCKET: { Ref: bucketId },
          TRAINWATCH_PREFIX: 'training-runs',
          TRAINWATCH_TABLE: { Ref: tableId },
          TRAINWATCH_TOPIC_ARN: { Ref: topicId },
          TRAINWATCH_EVENT_BUS: { Ref: busId },
          TRAINWATCH_SLACK_WEBHOOK_PARAM: '/trainwatch/slack-webhook-url',
          // unset: learned from each run (lambdas/core/detection)
          TRAINWATCH_STALE_AFTER: Match.absent(),
          TRAINWATCH_STALL_AFTER: Match.absent(),
          TRAINWATCH_STARTUP_GRACE: '15m',
          TRAINWATCH_PHASE_STALE_AFTER: 'setup=30m,checkpointing=30m,evaluation=30m,validation=30m',
          TRAINWATCH_HISTORY_TTL_DAYS: '90',
          TRAINWATCH_CONCURRENCY: '16',
          TRAINWATCH_PROFILE: 'production',
        }),
      },
    });
  });

  it('gives remediation its documents, policy, commands, output prefix and tag', () => {
    const docs = Object.keys(template.findResources('AWS::SSM::Document')).sort();
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TRAINWATCH_DIAGNOSE_DOCUMENT: { Ref: docs.find((d) => d.includes('Diagnose')) },
          TRAINWATCH_RESTART_DOCUMENT: { Ref: docs.find((d) => d.includes('Restart')) },
          TRAINWATCH_RESTART_POLICY: 'none',
          TRAINWATCH_RESTART_COMMANDS: '{}',
          TRAINWATCH_SSM_OUTPUT_PREFIX: 'trainwatch-ssm-output',
          TRAINWATCH_MANAGED_TAG: 'trainwatch:managed=true',
        }),
      },
    });
  });

  it.each(['Sweep', 'Sentinel', 'Remediate'])('%s logs to its own log group kept 30 days', (name) => {
    const logs = logicalId(template, 'AWS::Logs::LogGroup', `Monitor${name}Logs`);
    expect(template.findResources('AWS::Logs::LogGroup')[logs]!.Properties.RetentionInDays).toBe(30);
    expect(template.findResources('AWS::Lambda::Function')[fnId(name)]!.Properties.LoggingConfig).toEqual({
      LogGroup: { Ref: logs },
    });
  });

  it.each([
    ['Sweep', 0],
    ['Sentinel', 2],
    ['Remediate', 1],
  ])('%s keeps a failed invocation in the dead-letter queue after %i retries', (name, retries) => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId(name) },
      MaximumRetryAttempts: retries,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
  });

  it.each([
    ['Sweep', 2],
    ['Sentinel', 10],
    ['Remediate', 5],
  ])("%s has its own reserved concurrency (%d): a flood cannot take the account's", (name, reserved) => {
    const fn = template.findResources('AWS::Lambda::Function')[fnId(name)]!;
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(reserved);
  });
});

describe('triggers', () => {
  it('runs the sweep every minute, undeliverable events to the dead-letter queue', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [fnId('Sweep'), 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        }),
      ],
    });
  });

  it('runs the sentinel on S3 Object Created for {prefix}/*/_error and {prefix}/*/_complete of this bucket', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: Match.absent(),
      EventPattern: {
        source: ['aws.s3'],
        'detail-type': ['Object Created'],
        detail: {
          bucket: { name: [{ Ref: bucketId }] },
          object: {
            key: [{ wildcard: 'training-runs/*/_error' }, { wildcard: 'training-runs/*/_complete' }],
          },
        },
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [fnId('Sentinel'), 'Arn'] },
          DeadLetterConfig: Match.anyValue(),
        }),
      ],
    });
  });

  it('runs remediation on transitions to FAILED, TIMED_OUT or STALLED, and on a throughput-drop WARNING', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: busId },
      EventPattern: {
        source: ['trainwatch'],
        'detail-type': ['Training Run State Change'],
        detail: {
          kind: ['transition'],
          $or: [
            { state: ['FAILED', 'TIMED_OUT', 'STALLED'] },
            { state: ['WARNING'], reason: [{ prefix: 'throughput fell' }] },
          ],
        },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId('Remediate'), 'Arn'] } })],
    });
  });

  it('lets only its own rules invoke each function', () => {
    const perms = Object.values(template.findResources('AWS::Lambda::Permission'));
    // sweep, sentinel, remediate, and remediate again for restart requests (lib/remediation.ts)
    expect(perms).toHaveLength(4);
    for (const p of perms)
      expect(p.Properties).toMatchObject({ Principal: 'events.amazonaws.com', SourceArn: expect.anything() });
  });
});

describe('remediation documents', () => {
  it('creates the diagnose and restart documents as Command documents that update by new version', () => {
    template.resourceCountIs('AWS::SSM::Document', 2);
    for (const doc of Object.values(template.findResources('AWS::SSM::Document'))) {
      expect(doc.Properties).toMatchObject({
        DocumentType: 'Command',
        UpdateMethod: 'NewVersion',
        DocumentFormat: 'JSON',
      });
      expect(doc.Properties.Content).toMatchObject({ schemaVersion: '2.2' });
      expect(JSON.stringify(doc.Properties.Content)).toContain('aws:runShellScript');
      expect(doc.Properties.Name).toBeUndefined();
    }
  });
});

describe('dead-letter queue', () => {
  it('is encrypted, TLS only, and keeps messages 14 days', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
      MessageRetentionPeriod: 1_209_600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('outputs', () => {
  it('tells the user the bucket, prefix, writer policy, topic, bus, Slack parameter, instance tag and log groups', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs.sort()).toEqual(
      [
        'AlertTopicArn',
        'BucketName',
        'DashboardName',
        'DeadLetterQueueUrl',
        'EventBusName',
        'ManagedInstanceTag',
        'OnCallPolicyArn',
        'Prefix',
        'RemediateLogGroup',
        'SentinelLogGroup',
        'SweepLogGroup',
        'SlackWebhookParameter',
        'StateTableName',
        'WriterPolicyArn',
      ].sort(),
    );
  });
});
