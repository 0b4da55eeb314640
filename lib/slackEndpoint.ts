import { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { RESTART_REQUEST } from '../lambdas/core/remediation/eventRules.js';
import { WatchdogFunction, type WatchdogFunctionProps } from './functions.js';
import { parameterArn } from './grants.js';
import { checkovSkip } from './nag.js';
import { ONCALL_ATTRIBUTES } from './onCallPolicy.js';

/** Partition keys the endpoint touches: live runs (ack), their history, silences, its own request claims. */
export const SLACK_LEADING_KEYS = ['LIVE#*', 'RUN#*', 'SILENCE', 'SLACK#*'];

/** What the on-call operations write (lib/onCallPolicy.ts), and the attributes of a request's claim. */
export const SLACK_ATTRIBUTES = [...ONCALL_ATTRIBUTES, 'status', 'action'];

/** Properties of {@link SlackEndpoint}. */
export interface SlackEndpointProps
  extends Omit<
    WatchdogFunctionProps,
    'handler' | 'description' | 'memorySize' | 'timeout' | 'retryAttempts'
  > {
  readonly memorySize: number;
  readonly timeout: import('aws-cdk-lib').Duration;
  readonly table: dynamodb.ITable;
  /** The table's customer-managed key, when it has one. */
  readonly tableKey?: kms.IKey;
  readonly bus: events.IEventBus;
  readonly botTokenParameterName: string;
  readonly signingSecretParameterName: string;
  /** Someone may press Restart now (and remediation is deployed): the endpoint may put restart requests. */
  readonly restart: boolean;
}

/**
 * The Slack app's endpoint: one function behind a Lambda function URL (no API Gateway: one route, no
 * throttling or auth it could add that Slack's signature does not), which checks every request's Slack
 * signature before reading anything. Its role reads the run items and silences, writes acks, history,
 * silences and its own request claims (those attributes only), reads the two Slack parameters, and, only
 * where Restart now is on, puts restart requests on the bus: never SSM, never S3.
 */
export class SlackEndpoint extends Construct {
  readonly fn: WatchdogFunction;
  readonly url: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: SlackEndpointProps) {
    super(scope, id);
    this.fn = new WatchdogFunction(this, 'Function', {
      ...props,
      handler: 'slack',
      description:
        "trainwatch: the Slack app's buttons and /trainwatch status (a function URL; Slack-signed requests only)",
      // Slack calls synchronously and retries itself; nothing here is an asynchronous invocation.
      retryAttempts: 0,
    });
    // Slack cannot sign with SigV4: the URL is public and the function checks Slack's HMAC signature.
    this.url = this.fn.function.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
    checkovSkip(
      this.url,
      'CKV_AWS_258',
      "Slack calls this URL and cannot sign with SigV4: the function verifies Slack's request signature (HMAC-SHA256 with the signing secret, 5-minute window) before reading anything, and answers 401 otherwise.",
    );
    this.grant(props);
  }

  private grant(p: SlackEndpointProps): void {
    const role = this.fn.role;
    const stack = Stack.of(this);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadRunsAndSilences',
        actions: ['dynamodb:BatchGetItem', 'dynamodb:Query'],
        resources: [p.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': SLACK_LEADING_KEYS } },
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WriteAcksSilencesAndClaims',
        actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [p.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': SLACK_LEADING_KEYS },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': SLACK_ATTRIBUTES },
        },
      }),
    );
    if (p.tableKey)
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'RunStateKey',
          actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'],
          resources: [p.tableKey.keyArn],
          conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${stack.region}.amazonaws.com` } },
        }),
      );
    // Both are SecureStrings under the aws/ssm key, whose key policy lets account principals decrypt via SSM.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadSlackSecrets',
        actions: ['ssm:GetParameter'],
        resources: [
          parameterArn(role, p.botTokenParameterName),
          parameterArn(role, p.signingSecretParameterName),
        ],
      }),
    );
    if (p.restart)
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'RequestRestarts',
          actions: ['events:PutEvents'],
          resources: [p.bus.eventBusArn],
          conditions: {
            StringEquals: {
              'events:source': RESTART_REQUEST.source,
              'events:detail-type': RESTART_REQUEST.detailType,
            },
          },
        }),
      );
  }
}
