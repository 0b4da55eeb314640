import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { RESTART_REQUEST } from '../lambdas/core/remediation/eventRules.js';

/**
 * Partition keys the on-call commands touch: live run items (`LIVE#<n>`: the ack and its outbox entry),
 * a run's history and ended item (`RUN#<id>`), the ended-runs log (`ENDED#<month>`, read by
 * `status --ended`) and silences (`SILENCE`). DynamoDB checks them as `dynamodb:LeadingKeys`.
 */
export const ONCALL_LEADING_KEYS = ['LIVE#*', 'RUN#*', 'ENDED#*', 'SILENCE'];

/**
 * Top-level attributes the on-call commands name (written or checked in a condition): an ack update
 * (`version`, `ack`, `updatedAt`, `outbox`, checked `state` and `since`), a history line, a silence and its
 * end. Nothing else of a run item (its state, its locks, its remediation) can be written with this policy.
 */
export const ONCALL_ATTRIBUTES = [
  'pk',
  'sk',
  'version',
  'ack',
  'updatedAt',
  'outbox',
  'state',
  'since',
  'runId',
  'from',
  'to',
  'reason',
  'at',
  'attempt',
  'errorType',
  'expiresAt',
  'id',
  'scope',
  'by',
  'createdAt',
  'endsAt',
  'removedAt',
  'removedBy',
  'untilResolved',
];

/**
 * The managed policy a person (or their role) attaches to run `trainwatch ack/silence/silences/unsilence/status`,
 * and `trainwatch restart` where remediation is deployed (`bus`: restart requests only, on that bus).
 */
export function createOnCallPolicy(
  scope: Construct,
  table: dynamodb.ITable,
  bus?: events.IEventBus,
): iam.ManagedPolicy {
  const policy = new iam.ManagedPolicy(scope, 'OnCallPolicy', {
    description: 'trainwatch: lets on-call people acknowledge runs and manage silences (and read status)',
  });
  policy.addStatements(
    new iam.PolicyStatement({
      sid: 'ReadRunsAndSilences',
      actions: ['dynamodb:BatchGetItem', 'dynamodb:Query'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ONCALL_LEADING_KEYS } },
    }),
    new iam.PolicyStatement({
      sid: 'WriteAcksAndSilences',
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ONCALL_LEADING_KEYS },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ONCALL_ATTRIBUTES },
      },
    }),
  );
  if (bus)
    policy.addStatements(
      new iam.PolicyStatement({
        sid: 'RequestRestarts',
        actions: ['events:PutEvents'],
        resources: [bus.eventBusArn],
        conditions: {
          StringEquals: {
            'events:source': RESTART_REQUEST.source,
            'events:detail-type': RESTART_REQUEST.detailType,
          },
        },
      }),
    );
  return policy;
}
