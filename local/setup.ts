import {
  CreateTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateBucketCommand, PutBucketNotificationConfigurationCommand } from '@aws-sdk/client-s3';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Config } from '../lambdas/config.js';
import { ConfigError } from '../lambdas/core/base/errors.js';
import { EventRules, toEventBridgeJson } from '../lambdas/core/remediation/eventRules.js';
import type { AwsClients } from './awsClients.js';

/** Queues the local mode reads in place of Lambda triggers (the emulator cannot invoke Lambdas). */
export interface LocalQueues {
  readonly sentinel: string;
  readonly remediation: string;
}

async function ignoreExists(p: Promise<unknown>, ...names: string[]): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!names.includes((e as Error).name)) throw e;
  }
}

async function queueTarget(c: AwsClients, name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await c.sqs.send(new CreateQueueCommand({ QueueName: name }));
  const attrs = await c.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl!, arn: attrs.Attributes!.QueueArn! };
}

/** Creates the bucket, table, topic and bus named by the configuration on the emulator. Idempotent. */
export async function setupLocal(config: Config, c: AwsClients): Promise<string[]> {
  if (!config.endpoint)
    throw new ConfigError(
      'setup-local creates resources only on a local emulator: set AWS_ENDPOINT_URL (e.g. http://127.0.0.1:5000)',
    );
  const made: string[] = [];
  await ignoreExists(
    c.s3.send(new CreateBucketCommand({ Bucket: config.bucket })),
    'BucketAlreadyOwnedByYou',
    'BucketAlreadyExists',
  );
  await c.s3.send(
    new PutBucketNotificationConfigurationCommand({
      Bucket: config.bucket,
      NotificationConfiguration: { EventBridgeConfiguration: {} },
    }),
  );
  made.push(`bucket s3://${config.bucket} (EventBridge notifications on)`);
  await ignoreExists(
    c.ddb.send(
      new CreateTableCommand({
        TableName: config.table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    ),
    ResourceInUseException.name,
  );
  await ignoreExists(
    c.ddb.send(
      new UpdateTimeToLiveCommand({
        TableName: config.table,
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      }),
    ),
    'ValidationException',
  );
  made.push(`table ${config.table}`);
  if (config.topicArn) {
    const name = config.topicArn.split(':').pop()!;
    const { TopicArn } = await c.sns.send(new CreateTopicCommand({ Name: name }));
    if (TopicArn !== config.topicArn)
      throw new ConfigError(
        `TRAINWATCH_TOPIC_ARN is ${config.topicArn} but the emulator named the topic ${TopicArn}`,
      );
    made.push(`topic ${TopicArn}`);
  }
  if (config.eventBus) {
    await ignoreExists(
      c.events.send(new CreateEventBusCommand({ Name: config.eventBus })),
      'ResourceAlreadyExistsException',
    );
    made.push(`event bus ${config.eventBus}`);
  }
  return made;
}

/** Routes S3 sentinel events and remediation-worthy transitions to SQS queues the local mode polls. */
export async function setupLocalQueues(config: Config, c: AwsClients, name: string): Promise<LocalQueues> {
  const sentinel = await queueTarget(c, `${name}-sentinel`);
  const remediation = await queueTarget(c, `${name}-remediation`);
  await c.events.send(
    new PutRuleCommand({
      Name: `${name}-sentinel`,
      EventPattern: toEventBridgeJson(EventRules.sentinel(config.bucket, config.prefix)),
    }),
  );
  await c.events.send(
    new PutTargetsCommand({ Rule: `${name}-sentinel`, Targets: [{ Id: 'queue', Arn: sentinel.arn }] }),
  );
  await c.events.send(
    new PutRuleCommand({
      Name: `${name}-remediation`,
      EventBusName: config.eventBus,
      EventPattern: toEventBridgeJson(EventRules.remediation()),
    }),
  );
  await c.events.send(
    new PutTargetsCommand({
      Rule: `${name}-remediation`,
      EventBusName: config.eventBus,
      Targets: [{ Id: 'queue', Arn: remediation.arn }],
    }),
  );
  // People's restart requests (Slack's Restart now, `trainwatch restart`) reach remediation the same way.
  await c.events.send(
    new PutRuleCommand({
      Name: `${name}-restart-requests`,
      EventBusName: config.eventBus,
      EventPattern: toEventBridgeJson(EventRules.restartRequest()),
    }),
  );
  await c.events.send(
    new PutTargetsCommand({
      Rule: `${name}-restart-requests`,
      EventBusName: config.eventBus,
      Targets: [{ Id: 'queue', Arn: remediation.arn }],
    }),
  );
  return { sentinel: sentinel.url, remediation: remediation.url };
}
