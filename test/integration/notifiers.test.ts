import { randomUUID } from 'node:crypto';
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateTopicCommand,
  PublishCommand,
  SNSClient,
  SubscribeCommand,
  ThrottledException,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { EventBridgeNotifier } from '../../lambdas/adapters/channels/eventBridge/eventBridgeNotifier.js';
import { buildNotifiers } from '../../lambdas/adapters/channels/notifiers.js';
import { SlackNotifier } from '../../lambdas/adapters/channels/slack/slackNotifier.js';
import { slackWebhookUrl } from '../../lambdas/adapters/channels/slack/slackWebhookUrl.js';
import { SnsNotifier } from '../../lambdas/adapters/channels/sns/snsNotifier.js';
import { loadConfig } from '../../lambdas/config.js';
import { deliver } from '../../lambdas/core/alerting/deliver.js';
import { DeliveryError } from '../../lambdas/core/base/errors.js';
import type { Alert } from '../../lambdas/core/model/alert.js';
import { type SlackServer, startSlackServer } from '../support/slackServer.js';

const endpoint = inject('motoEndpoint');
const sdk = {
  region: 'us-east-1',
  endpoint,
  maxAttempts: 1,
  credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
};
const sns = new SNSClient(sdk);
const sqs = new SQSClient(sdk);
const events = new EventBridgeClient(sdk);
const ssm = new SSMClient(sdk);
const noWait = { sleep: async () => {} };

const uid = () => randomUUID().slice(0, 8);

function alert(overrides: Partial<Alert> = {}): Alert {
  return {
    id: 'run-42:3:transition',
    kind: 'transition',
    runId: 'run-42',
    state: 'FAILED',
    previousState: 'RUNNING',
    reason: 'CUDA out of memory — tried to allocate 2.50 GiB',
    action: 'Reduce batch size or sequence length',
    severity: 'critical',
    at: Date.UTC(2025, 0, 2, 3, 4, 5),
    attempt: 2,
    errorType: 'oom',
    instanceId: 'i-0abc',
    step: 5200,
    totalSteps: 10_000,
    lastLogLine: 'torch.OutOfMemoryError: CUDA out of memory',
    s3Uri: 's3://bucket/training-runs/run-42/',
    consoleUrl: 'https://s3.console.aws.amazon.com/s3/buckets/bucket',
    ...overrides,
  };
}

async function queue(): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `tw-${uid()}` }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}

async function receiveAll(url: string): Promise<Record<string, unknown>[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return Messages.map((m) => JSON.parse(m.Body!));
}

async function rejection(p: Promise<unknown>): Promise<DeliveryError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DeliveryError);
  return err as DeliveryError;
}

describe('SNS', () => {
  it('publishes an ASCII subject, the text body and filterable attributes', async () => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `tw-${uid()}` }));
    const q = await queue();
    await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: q.arn }));

    await new SnsNotifier(TopicArn!, sns).notify(alert());

    const [envelope, ...rest] = await receiveAll(q.url);
    expect(rest).toEqual([]);
    expect(envelope).toMatchObject({
      Type: 'Notification',
      TopicArn,
      Subject: '[trainwatch] run-42 FAILED: CUDA out of memory - tried to allocate 2.50 GiB',
      MessageAttributes: {
        state: { Type: 'String', Value: 'FAILED' },
        run_id: { Type: 'String', Value: 'run-42' },
        severity: { Type: 'String', Value: 'critical' },
      },
    });
    const message = envelope!.Message as string;
    expect(message).toMatch(/^Run run-42 is FAILED \(was RUNNING\)\.\n/);
    expect(message).toContain('Action: Reduce batch size or sequence length');
    expect(message).toMatch(/\nProgress: +step 5,200 \/ 10,000 \(52%\)\n/);
    expect(message).toContain('S3:      s3://bucket/training-runs/run-42/');
  });

  it('reports a missing topic as a permanent failure', async () => {
    const arn = `arn:aws:sns:us-east-1:123456789012:tw-missing-${uid()}`;
    const err = await rejection(new SnsNotifier(arn, sns).notify(alert()));
    expect(err.permanent).toBe(true);
    expect(err.message).toMatch(/^sns: NotFound/);
  });

  it('retries throttling, then delivers', async () => {
    const client = new SNSClient(sdk);
    const mock = mockClient(client);
    mock
      .on(PublishCommand)
      .rejectsOnce(new ThrottledException({ $metadata: { httpStatusCode: 400 }, message: 'Rate exceeded' }))
      .resolves({ MessageId: 'm-1' });
    const sleep = vi.fn(async (_ms: number) => {});
    const notifier = new SnsNotifier('arn:aws:sns:us-east-1:123456789012:t', client);

    const report = await deliver(alert(), [notifier], { sleep });

    expect(report).toEqual({ delivered: ['sns'], failed: [] });
    expect(mock.commandCalls(PublishCommand)).toHaveLength(2);
    expect(sleep).toHaveBeenCalledWith(200);
  });
});

describe('EventBridge', () => {
  it('puts the alert on a bus where a rule on detail.state and detail.kind routes it', async () => {
    const bus = `tw-${uid()}`;
    await events.send(new CreateEventBusCommand({ Name: bus }));
    const q = await queue();
    await events.send(
      new PutRuleCommand({
        Name: 'failed-runs',
        EventBusName: bus,
        EventPattern: JSON.stringify({
          source: ['trainwatch'],
          'detail-type': ['Training Run State Change'],
          detail: { state: ['FAILED'], kind: ['transition'] },
        }),
      }),
    );
    await events.send(
      new PutTargetsCommand({ Rule: 'failed-runs', EventBusName: bus, Targets: [{ Id: 'q', Arn: q.arn }] }),
    );
    const notifier = new EventBridgeNotifier(bus, events);

    await notifier.notify(alert());
    await notifier.notify(alert({ state: 'RUNNING', id: 'run-42:4:transition' }));
    await notifier.notify(alert({ kind: 'reminder', id: 'run-42:3:reminder' }));

    const received = await receiveAll(q.url);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      source: 'trainwatch',
      'detail-type': 'Training Run State Change',
      detail: {
        id: 'run-42:3:transition',
        state: 'FAILED',
        kind: 'transition',
        runId: 'run-42',
        errorType: 'oom',
        attempt: 2,
      },
    });
  });

  it('always carries errorType, as null when unknown, so rules can match it', async () => {
    const client = new EventBridgeClient(sdk);
    const mock = mockClient(client)
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e' }] });
    await new EventBridgeNotifier(undefined, client).notify(alert({ errorType: undefined }));
    const entry = mock.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(entry.EventBusName).toBeUndefined();
    expect(JSON.parse(entry.Detail!)).toMatchObject({ errorType: null, state: 'FAILED', kind: 'transition' });
  });

  it.each([
    ['ThrottlingException', false],
    ['InternalException', false],
    ['AccessDeniedException', true],
    ['MalformedDetail', true],
  ])('reports a rejected entry (%s) with permanent=%s', async (code, permanent) => {
    const client = new EventBridgeClient(sdk);
    mockClient(client)
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: code, ErrorMessage: 'nope' }] });
    const err = await rejection(new EventBridgeNotifier('bus', client).notify(alert()));
    expect(err.permanent).toBe(permanent);
    expect(err.message).toBe(`events: ${code}: nope`);
  });
});

describe('Slack', () => {
  let slack: SlackServer;
  beforeEach(async () => {
    slack = await startSlackServer();
  });
  afterEach(async () => {
    await slack.close();
  });

  const notifierFor = (url: string) => new SlackNotifier(slackWebhookUrl({ url })!);

  it('posts a Block Kit message with a plain-text fallback', async () => {
    const report = await deliver(alert(), [notifierFor(slack.url)], noWait);
    expect(report).toEqual({ delivered: ['slack'], failed: [] });
    expect(slack.received).toHaveLength(1);
    const body = slack.received[0] as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(body.text).toBe(':x: run-42 — FAILED: CUDA out of memory — tried to allocate 2.50 GiB');
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { text: ':x: run-42 — FAILED' } });
    expect(body.blocks.map((b) => b.type)).toContain('actions');
  });

  it('does not retry 404 no_service: the webhook is gone', async () => {
    slack.failNext(404, 'no_service', 5);
    const report = await deliver(alert(), [notifierFor(slack.url)], noWait);
    expect(report).toEqual({
      delivered: [],
      failed: [{ channel: 'slack', error: 'slack: HTTP 404 no_service', permanent: true }],
    });
    expect(slack.received).toHaveLength(1);
  });

  it('delivers after a retry when Slack answers 500 once', async () => {
    slack.failNext(500, 'internal_error');
    const sleep = vi.fn(async (_ms: number) => {});
    const report = await deliver(alert(), [notifierFor(slack.url)], { sleep });
    expect(report).toEqual({ delivered: ['slack'], failed: [] });
    expect(slack.received).toHaveLength(2);
    expect(sleep).toHaveBeenCalledTimes(1);
  });

  it('treats a rate limit (429) as transient', async () => {
    slack.failNext(429, 'rate_limited', 3);
    const report = await deliver(alert(), [notifierFor(slack.url)], noWait);
    expect(report.failed).toEqual([
      { channel: 'slack', error: 'slack: HTTP 429 rate_limited', permanent: false },
    ]);
    expect(slack.received).toHaveLength(3);
  });

  it('treats an unreachable webhook as transient, without printing its URL', async () => {
    const url = slack.url;
    await slack.close();
    const err = await rejection(notifierFor(url).notify(alert()));
    expect(err.permanent).toBe(false);
    expect(err.message).toMatch(/^slack: request failed \(ECONNREFUSED\)/);
    expect(err.message).not.toContain('/services/');
    slack = await startSlackServer();
  });

  it('reads the webhook URL from an SSM SecureString, once', async () => {
    const name = `/trainwatch/${uid()}/slack-webhook`;
    await ssm.send(new PutParameterCommand({ Name: name, Type: 'SecureString', Value: slack.url }));
    const client = new SSMClient(sdk);
    const send = vi.spyOn(client, 'send');
    const notifier = new SlackNotifier(slackWebhookUrl({ param: name }, client)!);

    await notifier.notify(alert());
    await notifier.notify(alert({ state: 'RUNNING' }));

    expect(slack.received).toHaveLength(2);
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]![0].input).toMatchObject({ Name: name, WithDecryption: true });
  });

  it('reports a missing SSM parameter as permanent', async () => {
    const resolve = slackWebhookUrl({ param: `/trainwatch/${uid()}/missing` }, ssm)!;
    const err = await rejection(new SlackNotifier(resolve).notify(alert()));
    expect(err.permanent).toBe(true);
    expect(err.message).toMatch(/ParameterNotFound/);
    expect(slack.received).toHaveLength(0);
  });

  it('refuses a parameter that does not hold a URL, without echoing the secret', async () => {
    const name = `/trainwatch/${uid()}/bad`;
    await ssm.send(new PutParameterCommand({ Name: name, Type: 'SecureString', Value: 'xoxb-secret-token' }));
    const err = await rejection(slackWebhookUrl({ param: name }, ssm)!());
    expect(err.permanent).toBe(true);
    expect(err.message).not.toContain('xoxb');
  });
});

describe('buildNotifiers', () => {
  const base = { TRAINWATCH_BUCKET: 'b', TRAINWATCH_TABLE: 't', AWS_REGION: 'us-east-1' };

  it('always puts events on EventBridge, and adds Slack and SNS when configured', () => {
    expect(buildNotifiers(loadConfig(base)).map((n) => n.channel)).toEqual(['events']);
    const all = loadConfig({
      ...base,
      TRAINWATCH_SLACK_WEBHOOK_PARAM: '/trainwatch/slack',
      TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:alerts',
    });
    expect(buildNotifiers(all, { sns, ssm, events }).map((n) => n.channel)).toEqual([
      'slack',
      'sns',
      'events',
    ]);
  });

  it('delivers one alert on all three channels', async () => {
    const slack = await startSlackServer();
    try {
      const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: `tw-${uid()}` }));
      const q = await queue();
      await sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: q.arn }));
      const config = loadConfig({
        ...base,
        AWS_ENDPOINT_URL: endpoint,
        TRAINWATCH_SLACK_WEBHOOK_URL: slack.url,
        TRAINWATCH_TOPIC_ARN: TopicArn,
        TRAINWATCH_EVENT_BUS: `tw-bus-${uid()}`,
      });
      await events.send(new CreateEventBusCommand({ Name: config.eventBus! }));

      const report = await deliver(alert(), buildNotifiers(config, { sns, ssm, events }), noWait);

      expect(report).toEqual({ delivered: ['slack', 'sns', 'events'], failed: [] });
      expect(slack.received).toHaveLength(1);
      expect(await receiveAll(q.url)).toHaveLength(1);
    } finally {
      await slack.close();
    }
  });
});
