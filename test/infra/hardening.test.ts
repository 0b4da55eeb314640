import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { logicalId, roleStatements, synthStack } from './synth.js';

type Json = Record<string, unknown>;

describe('by default (IaC scan items, off where they cost)', () => {
  const { template } = synthStack();
  const keyId = logicalId(template, 'AWS::KMS::Key', 'MonitorTopicKey');

  it('lets EventBridge encrypt dead letters with the stack key, for this account only', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AllowEventBridgeDeadLetters',
            Principal: { Service: 'events.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toEqual([keyId]);
  });

  it('creates no access-log bucket and keeps AWS-managed table and log encryption', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true } });
    const table = Object.values(template.findResources('AWS::DynamoDB::Table'))[0]!;
    expect((table.Properties.SSESpecification as Json).KMSMasterKeyId).toBeUndefined();
    for (const group of Object.values(template.findResources('AWS::Logs::LogGroup')))
      expect(group.Properties.KmsKeyId).toBeUndefined();
  });

  it('records each accepted checkov finding on its resource, with the reason', () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
    const skipped = (fn.Metadata as { checkov: { skip: { id: string; comment: string }[] } }).checkov.skip;
    expect(skipped.map((s) => s.id).sort()).toEqual(['CKV_AWS_116', 'CKV_AWS_117', 'CKV_AWS_173']);
    for (const s of skipped) expect(s.comment.length).toBeGreaterThan(20);
    template.hasResource('AWS::S3::Bucket', {
      Metadata: Match.objectLike({ checkov: { skip: [Match.objectLike({ id: 'CKV_AWS_18' })] } }),
    });
  });
});

describe('reservedConcurrency', () => {
  it('takes the numbers given, per function', () => {
    const { template } = synthStack({ reservedConcurrency: { sweep: 1, sentinel: 50 } });
    const reserved = Object.entries(template.findResources('AWS::Lambda::Function'))
      .map(([id, fn]) => [
        id.replace(/^Monitor(\w+?)Function.*$/, '$1'),
        fn.Properties.ReservedConcurrentExecutions,
      ])
      .sort();
    expect(reserved).toEqual([
      ['Remediate', 5],
      ['Sentinel', 50],
      ['Sweep', 1],
    ]);
  });

  it('false reserves nothing (for accounts still at the new-account quota)', () => {
    const { template } = synthStack({ reservedConcurrency: false });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')))
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('rejects 0, which would stop the function', () => {
    expect(() => synthStack({ reservedConcurrency: { sweep: 0 } })).toThrow(
      'reservedConcurrency.sweep: Too small: expected number to be >=1',
    );
  });
});

describe('accessLogs.enabled', () => {
  const { template } = synthStack({ accessLogs: { enabled: true } });
  const logBucket = logicalId(template, 'AWS::S3::Bucket', 'MonitorAccessLogBucket');

  it('logs the heartbeat bucket to a private, encrypted, expiring log bucket', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: { DestinationBucketName: { Ref: logBucket }, LogFilePrefix: 'heartbeat-bucket/' },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({
            ExpirationInDays: 30,
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            Status: 'Enabled',
          }),
        ],
      },
      LoggingConfiguration: Match.absent(),
    });
  });

  it('lets only S3 log delivery for the heartbeat bucket write there (a bucket policy, no ACL)', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logBucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'logging.s3.amazonaws.com' },
            Action: 's3:PutObject',
            Condition: Match.objectLike({
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::GetAtt': [logicalId(template, 'AWS::S3::Bucket', 'MonitorHeartbeatBucket'), 'Arn'],
                },
              },
            }),
          }),
        ]),
      },
    });
    const bucket = template.findResources('AWS::S3::Bucket')[logBucket]!;
    expect(bucket.Properties.AccessControl).toBeUndefined();
  });

  it('refuses them for an existing heartbeat bucket (its own logging settings stay as they are)', () => {
    expect(() =>
      synthStack({ bucket: { name: 'team-ml-artifacts' }, accessLogs: { enabled: true } }),
    ).toThrow('TrainingRunMonitor: serverAccessLogs applies to a created bucket');
  });

  it('sends them to an existing bucket when named', () => {
    const { template: t } = synthStack({ accessLogs: { enabled: true, bucketName: 'acme-s3-logs' } });
    t.resourceCountIs('AWS::S3::Bucket', 1);
    t.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: { DestinationBucketName: 'acme-s3-logs' },
    });
  });
});

describe('encryption.customerManagedKey', () => {
  const { template } = synthStack({ encryption: { customerManagedKey: true } });
  const dataKey = logicalId(template, 'AWS::KMS::Key', 'MonitorDataKey');

  it('encrypts the table and every log group with a rotated customer key', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: {
        SSEEnabled: true,
        SSEType: 'KMS',
        KMSMasterKeyId: { 'Fn::GetAtt': [dataKey, 'Arn'] },
      },
    });
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(groups).toHaveLength(3);
    for (const g of groups) expect(g.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [dataKey, 'Arn'] });
  });

  it("lets CloudWatch Logs use the key only for this account's log groups in this region", () => {
    const key = template.findResources('AWS::KMS::Key')[dataKey]!;
    const statements = (key.Properties.KeyPolicy as { Statement: Json[] }).Statement;
    const logs = statements.find((s) => s.Sid === 'AllowCloudWatchLogs')!;
    expect(logs.Principal).toEqual({
      Service: { 'Fn::Join': ['', ['logs.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
    });
    expect(JSON.stringify(logs.Condition)).toContain('kms:EncryptionContext:aws:logs:arn');
    expect(JSON.stringify(logs.Condition)).toContain(':log-group:*');
  });

  it('grants each function the key only through DynamoDB', () => {
    for (const role of ['MonitorSweepRole', 'MonitorSentinelRole', 'MonitorRemediateRole']) {
      const statement = roleStatements(template, role).find((s) => s.Sid === 'RunStateKey')!;
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [dataKey, 'Arn'] });
      expect(statement.Condition).toEqual({
        StringEquals: {
          'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
        },
      });
    }
  });
});
