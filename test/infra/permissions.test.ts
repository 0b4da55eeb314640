import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { actionsOf, logicalId, roleStatements, synthStack } from './synth.js';

type Json = Record<string, unknown>;

// Two syntheses for the file: the default stack, and one on an imported bucket with a customer-key
// Slack parameter and remediation off.
const created = synthStack();
const imported = synthStack({
  bucket: { name: 'team-ml-artifacts' },
  prefix: 'jobs/llm',
  alerts: {
    slackWebhookParameter: '/ml/slack',
    slackWebhookKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/abcd',
  },
  remediation: { enabled: false },
});
const t = created.template;
const bucketArn = { 'Fn::GetAtt': [logicalId(t, 'AWS::S3::Bucket', 'MonitorHeartbeatBucket'), 'Arn'] };
const objects = (prefix: string) => ({ 'Fn::Join': ['', [bucketArn, `/${prefix}/*`]] });
const arn = (service: string, resource: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      `:${service}:`,
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:${resource}`,
    ],
  ],
});

/** Sid → { actions, resource, condition }: the whole permission set of one role, order-free. */
function permissions(statements: Json[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const s of statements) {
    expect(s.Effect).toBe('Allow');
    out[String(s.Sid ?? actionsOf(s).join(','))] = {
      actions: actionsOf(s),
      resource: s.Resource,
      condition: s.Condition,
    };
  }
  return out;
}

function watchdog(role: string): Record<string, Json> {
  return {
    WriteOwnLogs: {
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resource: { 'Fn::GetAtt': [logicalId(t, 'AWS::Logs::LogGroup', `Monitor${role}Logs`), 'Arn'] },
      condition: undefined,
    },
    'sqs:GetQueueAttributes,sqs:GetQueueUrl,sqs:SendMessage': {
      actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
      resource: { 'Fn::GetAtt': [logicalId(t, 'AWS::SQS::Queue', 'MonitorDeadLetterQueue'), 'Arn'] },
      condition: undefined,
    },
    ListRunPrefix: {
      actions: ['s3:ListBucket'],
      resource: bucketArn,
      condition: { StringLike: { 's3:prefix': ['training-runs/*'] } },
    },
    ReadRunFiles: { actions: ['s3:GetObject'], resource: objects('training-runs'), condition: undefined },
    RunState: {
      actions: [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      resource: { 'Fn::GetAtt': [logicalId(t, 'AWS::DynamoDB::Table', 'MonitorStateTable'), 'Arn'] },
      condition: undefined,
    },
    PublishAlerts: {
      actions: ['sns:Publish'],
      resource: { Ref: logicalId(t, 'AWS::SNS::Topic', 'MonitorAlertTopic') },
      condition: undefined,
    },
    EncryptAlerts: {
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resource: { 'Fn::GetAtt': [logicalId(t, 'AWS::KMS::Key', 'MonitorTopicKey'), 'Arn'] },
      condition: undefined,
    },
    PutTransitions: {
      actions: ['events:PutEvents'],
      resource: { 'Fn::GetAtt': [logicalId(t, 'AWS::Events::EventBus', 'MonitorEventBus'), 'Arn'] },
      condition: undefined,
    },
    ReadSlackWebhook: {
      actions: ['ssm:GetParameter'],
      resource: arn('ssm', 'parameter/trainwatch/slack-webhook-url'),
      condition: undefined,
    },
  };
}

describe('least privilege', () => {
  it('Sentinel may read the prefix, its table, topic, bus and Slack parameter, nothing else', () => {
    expect(permissions(roleStatements(t, 'MonitorSentinelRole'))).toEqual(watchdog('Sentinel'));
  });

  it('Sweep may also move ended runs: delete under the run prefix, write under the ended prefix only', () => {
    expect(permissions(roleStatements(t, 'MonitorSweepRole'))).toEqual({
      ...watchdog('Sweep'),
      MoveEndedRunFiles: {
        actions: ['s3:DeleteObject'],
        resource: objects('training-runs'),
        condition: undefined,
      },
      WriteEndedRuns: {
        actions: ['s3:PutObject'],
        resource: objects('trainwatch-ended'),
        condition: undefined,
      },
    });
  });

  it('remediation adds SendCommand on its own documents and on tagged instances only, and archiving under the prefix', () => {
    const docs = Object.keys(t.findResources('AWS::SSM::Document')).sort();
    const documentArn = (id: string) => ({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ssm:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':document/',
          { Ref: id },
        ],
      ],
    });
    expect(permissions(roleStatements(t, 'MonitorRemediateRole'))).toEqual({
      ...watchdog('Remediate'),
      ArchiveRunFiles: {
        actions: ['s3:DeleteObject', 's3:PutObject'],
        resource: objects('training-runs'),
        condition: undefined,
      },
      ListCommandOutput: {
        actions: ['s3:ListBucket'],
        resource: bucketArn,
        condition: { StringLike: { 's3:prefix': ['trainwatch-ssm-output/*'] } },
      },
      ReadCommandOutput: {
        actions: ['s3:GetObject'],
        resource: objects('trainwatch-ssm-output'),
        condition: undefined,
      },
      RunOwnDocuments: {
        actions: ['ssm:SendCommand'],
        resource: docs.map(documentArn),
        condition: undefined,
      },
      OnManagedInstancesOnly: {
        actions: ['ssm:SendCommand'],
        resource: arn('ec2', 'instance/*'),
        condition: { StringEquals: { 'ssm:resourceTag/trainwatch:managed': 'true' } },
      },
      ReadCommandStatus: { actions: ['ssm:GetCommandInvocation'], resource: '*', condition: undefined },
    });
  });

  it('no role is given an AWS managed policy or a wildcard action', () => {
    for (const role of Object.values(t.findResources('AWS::IAM::Role')))
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    for (const policy of Object.values(t.findResources('AWS::IAM::Policy')))
      for (const s of (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement)
        for (const a of actionsOf(s)) expect(a).not.toContain('*');
  });

  it('each function role can be assumed by Lambda only', () => {
    const roles = Object.values(t.findResources('AWS::IAM::Role'));
    expect(roles).toHaveLength(3);
    for (const role of roles)
      expect(role.Properties.AssumeRolePolicyDocument).toEqual({
        Statement: [
          { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
        ],
        Version: '2012-10-17',
      });
  });
});

describe('heartbeat writer policy', () => {
  it('lets training instances write, read and clear run files under the prefix and upload SSM output, nothing else', () => {
    // Two managed policies: this one, and the on-call people's (test/infra/oncall.test.ts).
    expect(Object.values(t.findResources('AWS::IAM::ManagedPolicy'))).toHaveLength(2);
    const policies = Object.values(
      t.findResources('AWS::IAM::ManagedPolicy', {
        Properties: { Description: Match.stringLikeRegexp('write heartbeats') },
      }),
    );
    expect(policies).toHaveLength(1);
    expect(permissions((policies[0]!.Properties.PolicyDocument as { Statement: Json[] }).Statement)).toEqual({
      WriteHeartbeats: {
        actions: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
        resource: objects('training-runs'),
        condition: undefined,
      },
      UploadCommandOutput: {
        actions: ['s3:PutObject'],
        resource: objects('trainwatch-ssm-output'),
        condition: undefined,
      },
      CheckBucketEncryption: {
        actions: ['s3:GetEncryptionConfiguration'],
        resource: bucketArn,
        condition: undefined,
      },
    });
  });

  it('on an imported bucket without remediation, allows only heartbeats under the configured prefix', () => {
    const policies = Object.values(imported.template.findResources('AWS::IAM::ManagedPolicy'));
    const bucket = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::team-ml-artifacts/jobs/llm/*']],
    };
    expect(permissions((policies[0]!.Properties.PolicyDocument as { Statement: Json[] }).Statement)).toEqual({
      WriteHeartbeats: {
        actions: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
        resource: bucket,
        condition: undefined,
      },
    });
  });
});

describe('imported bucket', () => {
  const it2 = imported.template;

  it('creates no bucket, and turns on EventBridge delivery for the existing one', () => {
    it2.resourceCountIs('AWS::S3::Bucket', 0);
    it2.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: 'team-ml-artifacts',
      NotificationConfiguration: { EventBridgeConfiguration: {} },
      Managed: false,
    });
  });

  it('scopes listing and reading to the configured prefix of the existing bucket', () => {
    const s = permissions(roleStatements(it2, 'MonitorSweepRole'));
    expect(s.ListRunPrefix).toEqual({
      actions: ['s3:ListBucket'],
      resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::team-ml-artifacts']] },
      condition: { StringLike: { 's3:prefix': ['jobs/llm/*'] } },
    });
    expect(s.ReadRunFiles?.resource).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::team-ml-artifacts/jobs/llm/*']],
    });
  });

  it('reads the configured Slack parameter and may decrypt it with its customer key only through SSM', () => {
    const s = permissions(roleStatements(it2, 'MonitorSweepRole'));
    expect(s.ReadSlackWebhook?.resource).toEqual(arn('ssm', 'parameter/ml/slack'));
    expect(s.DecryptSlackWebhook).toEqual({
      actions: ['kms:Decrypt'],
      resource: 'arn:aws:kms:us-east-1:123456789012:key/abcd',
      condition: {
        StringEquals: {
          'kms:ViaService': { 'Fn::Join': ['', ['ssm.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
        },
      },
    });
  });

  it('without remediation has no remediation function, rule, documents or SSM permissions', () => {
    it2.resourceCountIs('AWS::SSM::Document', 0);
    expect(
      Object.keys(it2.findResources('AWS::Lambda::Function')).filter((id) =>
        id.startsWith('MonitorRemediate'),
      ),
    ).toEqual([]);
    for (const rule of Object.values(it2.findResources('AWS::Events::Rule')))
      expect(JSON.stringify(rule.Properties.EventPattern ?? {})).not.toContain('Training Run State Change');
    const all = JSON.stringify(it2.findResources('AWS::IAM::Policy'));
    expect(all).not.toContain('ssm:SendCommand');
  });
});
