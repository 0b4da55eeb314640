import { randomUUID } from 'node:crypto';
import { PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { inject } from 'vitest';
import { RunFile, type RunFileName } from '../../lambdas/core/protocol/files.js';
import { type App, createApp } from '../../lambdas/wiring/app.js';
import { type AwsClients, awsClients } from '../../local/awsClients.js';
import { setupLocal } from '../../local/setup.js';
import { type SlackServer, startSlackServer } from './slackServer.js';

/** A complete, isolated trainwatch on the shared moto server: unique names, taps on every channel. */
export interface TestEnvironment {
  readonly env: Record<string, string>;
  readonly slack: SlackServer;
  /** A fresh App (as a new Lambda container would build), sharing nothing in memory with others. */
  app(): App<AwsClients>;
  put(runId: string, file: RunFileName, body: string | Uint8Array): Promise<void>;
  /** Writes `nodes/{rank}.json` of a run (protocol v1.1). */
  putNode(runId: string, rank: number, body: string): Promise<void>;
  /** Messages published to SNS so far (the SQS subscription's envelopes, parsed). */
  snsMessages(): Promise<
    { Subject?: string; Message: string; MessageAttributes: Record<string, { Value: string }> }[]
  >;
  /** EventBridge events put on the bus so far. */
  events(): Promise<{ source: string; 'detail-type': string; detail: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

async function queue(app: App<AwsClients>, name: string): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await app.clients.sqs.send(new CreateQueueCommand({ QueueName: name }));
  const a = await app.clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl!, arn: a.Attributes!.QueueArn! };
}

async function drain(app: App<AwsClients>, url: string, into: unknown[]): Promise<void> {
  for (;;) {
    const { Messages = [] } = await app.clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
    );
    if (Messages.length === 0) return;
    for (const m of Messages) into.push(JSON.parse(m.Body!));
  }
}

/** Creates bucket, table, topic, bus, Slack server and the taps; `overrides` set any TRAINWATCH_* setting. */
export async function testEnvironment(overrides: Record<string, string> = {}): Promise<TestEnvironment> {
  const id = `tw-${randomUUID().slice(0, 8)}`;
  const slack = await startSlackServer();
  const env: Record<string, string> = {
    AWS_ENDPOINT_URL: inject('motoEndpoint'),
    AWS_REGION: 'us-east-1',
    TRAINWATCH_BUCKET: id,
    TRAINWATCH_TABLE: id,
    TRAINWATCH_TOPIC_ARN: `arn:aws:sns:us-east-1:123456789012:${id}`,
    TRAINWATCH_EVENT_BUS: id,
    TRAINWATCH_SLACK_WEBHOOK_URL: slack.url,
    ...overrides,
  };
  const make = () => {
    const config = createApp(env).config;
    return createApp(env, awsClients({ region: config.region, endpoint: config.endpoint, maxAttempts: 1 }));
  };
  const admin = make();
  await setupLocal(admin.config, admin.clients);
  const snsQueue = await queue(admin, `${id}-sns`);
  await admin.clients.sns.send(
    new SubscribeCommand({ TopicArn: env.TRAINWATCH_TOPIC_ARN, Protocol: 'sqs', Endpoint: snsQueue.arn }),
  );
  const eventsQueue = await queue(admin, `${id}-events`);
  await admin.clients.events.send(
    new PutRuleCommand({
      Name: `${id}-all`,
      EventBusName: id,
      EventPattern: JSON.stringify({ source: ['trainwatch'] }),
    }),
  );
  await admin.clients.events.send(
    new PutTargetsCommand({
      Rule: `${id}-all`,
      EventBusName: id,
      Targets: [{ Id: 'q', Arn: eventsQueue.arn }],
    }),
  );
  const sns: unknown[] = [];
  const events: unknown[] = [];
  return {
    env,
    slack,
    app: make,
    async putNode(runId, rank, body) {
      await admin.clients.s3.send(
        new PutObjectCommand({
          Bucket: id,
          Key: `${admin.config.prefix}/${runId}/nodes/${rank}.json`,
          Body: body,
        }),
      );
    },
    async put(runId, file, body) {
      await admin.clients.s3.send(
        new PutObjectCommand({
          Bucket: id,
          Key: `${admin.config.prefix}/${runId}/${RunFile[file]}`,
          Body: body,
        }),
      );
    },
    async snsMessages() {
      await drain(admin, snsQueue.url, sns);
      return sns as never;
    },
    async events() {
      await drain(admin, eventsQueue.url, events);
      return events as never;
    },
    close: () => slack.close(),
  };
}

/** A metadata.json body as a training script writes it. */
export function metadata(runId: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    run_id: runId,
    status: 'running',
    phase: 'training',
    last_update: new Date().toISOString(),
    instance_id: 'i-0123456789abcdef0',
    ...fields,
  });
}

/** A progress.json body. */
export function progress(step: number, total = 1000, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    step,
    total_steps: total,
    loss: 1.5,
    last_updated: new Date().toISOString(),
    ...fields,
  });
}
