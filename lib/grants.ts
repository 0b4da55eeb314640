import { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { allowScoped, allowScopedInPolicy } from './nag.js';

/** What the watchdog functions touch; each grant below names exactly these. */
export interface RunResources {
  readonly bucket: s3.IBucket;
  readonly prefix: string;
  readonly table: dynamodb.ITable;
  readonly topic: sns.ITopic;
  readonly topicKey?: kms.IKey;
  readonly bus: events.IEventBus;
  readonly slackParameterName?: string;
  readonly slackKey?: kms.IKey;
  /** The SSM SecureString of the Slack app's bot token: the functions that alert post with it. */
  readonly slackBotTokenParameterName?: string;
  /** The SSM SecureString of the PagerDuty routing key (on-call lifecycle). */
  readonly pagerDutyParameterName?: string;
  /** The table's customer-managed key, when it has one. */
  readonly tableKey?: kms.IKey;
}

const PER_RUN_KEYS =
  'Run files live under {prefix}/{run_id}/ and run ids are unbounded, so the grant is the prefix, never the bucket.';

/** The DynamoDB actions the state store uses (lambdas/adapters/stores/dynamoStateStore.ts), and no more. */
export const TABLE_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:DeleteItem',
  'dynamodb:PutItem',
  'dynamodb:Query',
  'dynamodb:UpdateItem',
];

/** ARN of an SSM parameter by name (`/a/b` and `a` both work). */
export function parameterArn(scope: Construct, name: string): string {
  return Stack.of(scope).formatArn({
    service: 'ssm',
    resource: 'parameter',
    resourceName: name.replace(/^\/+/, ''),
  });
}

/**
 * Only the sweep ends runs: it copies a run's files to `{endedPrefix}/` and deletes them from the run
 * prefix (conditional copies and deletes also need s3:GetObject on the run prefix, granted above).
 */
export function grantEnding(role: iam.Role, r: RunResources & { readonly endedPrefix: string }): void {
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'MoveEndedRunFiles',
      actions: ['s3:DeleteObject'],
      resources: [r.bucket.arnForObjects(`${r.prefix}/*`)],
    }),
    PER_RUN_KEYS,
  );
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'WriteEndedRuns',
      actions: ['s3:PutObject'],
      resources: [r.bucket.arnForObjects(`${r.endedPrefix}/*`)],
    }),
    'Ended runs live under {endedPrefix}/{run_id}/{ended at}/ and run ids are unbounded: the grant is that prefix.',
  );
}

/** Read the runs, keep their state, alert: what the sweep and the sentinel (and remediation) need. */
export function grantWatchdog(role: iam.Role, r: RunResources): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ListRunPrefix',
      actions: ['s3:ListBucket'],
      resources: [r.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${r.prefix}/*`] } },
    }),
  );
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'ReadRunFiles',
      actions: ['s3:GetObject'],
      resources: [r.bucket.arnForObjects(`${r.prefix}/*`)],
    }),
    PER_RUN_KEYS,
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ sid: 'RunState', actions: TABLE_ACTIONS, resources: [r.table.tableArn] }),
  );
  // What DynamoDB asks of a caller of a table under a customer key, and only through DynamoDB.
  if (r.tableKey)
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'RunStateKey',
        actions: [
          'kms:Decrypt',
          'kms:DescribeKey',
          'kms:Encrypt',
          'kms:GenerateDataKey',
          'kms:ReEncryptFrom',
          'kms:ReEncryptTo',
        ],
        resources: [r.tableKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(role).region}.amazonaws.com` } },
      }),
    );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'PublishAlerts',
      actions: ['sns:Publish'],
      resources: [r.topic.topicArn],
    }),
  );
  // The same key encrypts the dead-letter queue: failed invocations reach it with this grant.
  if (r.topicKey)
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'EncryptAlerts',
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [r.topicKey.keyArn],
      }),
    );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'PutTransitions',
      actions: ['events:PutEvents'],
      resources: [r.bus.eventBusArn],
    }),
  );
  if (r.slackParameterName) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadSlackWebhook',
        actions: ['ssm:GetParameter'],
        resources: [parameterArn(role, r.slackParameterName)],
      }),
    );
    // The aws/ssm key needs no grant (its key policy allows account principals via SSM); a customer key does.
    if (r.slackKey)
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'DecryptSlackWebhook',
          actions: ['kms:Decrypt'],
          resources: [r.slackKey.keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `ssm.${Stack.of(role).region}.amazonaws.com` } },
        }),
      );
  }
  if (r.slackBotTokenParameterName)
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadSlackBotToken',
        actions: ['ssm:GetParameter'],
        resources: [parameterArn(role, r.slackBotTokenParameterName)],
      }),
    );
}

/**
 * Reads the PagerDuty routing key: that one parameter only (the aws/ssm key decrypts it via SSM). The
 * sweep and the sentinel page; remediation's alerts make no PagerDuty event, so it gets no grant.
 */
export function grantPagerDutyKey(role: iam.IRole, r: RunResources): void {
  if (!r.pagerDutyParameterName) return;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadPagerDutyRoutingKey',
      actions: ['ssm:GetParameter'],
      resources: [parameterArn(role, r.pagerDutyParameterName)],
    }),
  );
}

/** What remediation adds: run SSM documents on tagged instances, read their output, archive `_error`. */
export function grantRemediation(
  role: iam.Role,
  r: RunResources & {
    documentNames: readonly string[];
    managedTag: { key: string; value: string };
    ssmOutputPrefix: string;
  },
): void {
  const stack = Stack.of(role);
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'ArchiveRunFiles',
      actions: ['s3:PutObject', 's3:DeleteObject'],
      resources: [r.bucket.arnForObjects(`${r.prefix}/*`)],
    }),
    `${PER_RUN_KEYS} Remediation moves _error under attempts/{n}/ before a restart.`,
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ListCommandOutput',
      actions: ['s3:ListBucket'],
      resources: [r.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${r.ssmOutputPrefix}/*`] } },
    }),
  );
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'ReadCommandOutput',
      actions: ['s3:GetObject'],
      resources: [r.bucket.arnForObjects(`${r.ssmOutputPrefix}/*`)],
    }),
    'SSM names output objects by command id and instance id under the output prefix; only that prefix is readable.',
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'RunOwnDocuments',
      actions: ['ssm:SendCommand'],
      resources: r.documentNames.map((name) =>
        stack.formatArn({ service: 'ssm', resource: 'document', resourceName: name }),
      ),
    }),
  );
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'OnManagedInstancesOnly',
      actions: ['ssm:SendCommand'],
      resources: [stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' })],
      conditions: { StringEquals: { [`ssm:resourceTag/${r.managedTag.key}`]: r.managedTag.value } },
    }),
    `Instances are not known at deploy time; the condition ssm:resourceTag/${r.managedTag.key}=${r.managedTag.value} limits SendCommand to tagged instances.`,
  );
  allowScoped(
    role,
    new iam.PolicyStatement({
      sid: 'ReadCommandStatus',
      actions: ['ssm:GetCommandInvocation'],
      resources: ['*'],
    }),
    'ssm:GetCommandInvocation supports no resource-level permissions (Service Authorization Reference); it reads status only.',
  );
}

/** The managed policy that training instance roles attach: their run files under the prefix, nothing else. */
export function createWriterPolicy(
  scope: Construct,
  opts: { bucket: s3.IBucket; prefix: string; ssmOutputPrefix?: string },
): iam.ManagedPolicy {
  const policy = new iam.ManagedPolicy(scope, 'HeartbeatWriterPolicy', {
    description: `trainwatch: lets training instances write heartbeats under ${opts.prefix}/`,
  });
  allowScopedInPolicy(
    policy,
    new iam.PolicyStatement({
      sid: 'WriteHeartbeats',
      // Get: the client reads the previous attempt's metadata.json; Delete: it clears a stale _error/_complete
      // and a stuck node's stacks/ file once the node moves on.
      actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
      resources: [opts.bucket.arnForObjects(`${opts.prefix}/*`)],
    }),
    `${PER_RUN_KEYS} Instances write their own run's files (metadata.json, progress.json, _error, _complete, logs/).`,
  );
  if (opts.ssmOutputPrefix) {
    // The SSM agent uploads Run Command output with the instance's own credentials.
    allowScopedInPolicy(
      policy,
      new iam.PolicyStatement({
        sid: 'UploadCommandOutput',
        actions: ['s3:PutObject'],
        resources: [opts.bucket.arnForObjects(`${opts.ssmOutputPrefix}/*`)],
      }),
      'SSM Run Command output objects are named by command id and instance id under the output prefix.',
    );
    policy.addStatements(
      new iam.PolicyStatement({
        sid: 'CheckBucketEncryption',
        actions: ['s3:GetEncryptionConfiguration'],
        resources: [opts.bucket.bucketArn],
      }),
    );
  }
  return policy;
}
