import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { evaluateSentinels } from '../lambdas/handlers/sentinel.js';
import { createApp } from '../lambdas/wiring/app.js';
import { awsClients } from '../local/awsClients.js';
import { setupLocal, setupLocalQueues } from '../local/setup.js';
import { startSlackReceiver } from '../local/slackReceiver.js';
import { emulatorEnv } from './fleet.js';

/** Time from an `_error` PUT to all alerts sent, through the real S3 → EventBridge → SQS route. */
export async function sentinelLatency(
  endpoint: string,
  samples: number,
): Promise<{ samples: number; median: number; p95: number; max: number }> {
  const slack = await startSlackReceiver(() => {});
  const name = `bench-sentinel-${Date.now() % 100000}`;
  const env = {
    ...emulatorEnv(endpoint, name),
    TRAINWATCH_TOPIC_ARN: `arn:aws:sns:us-east-1:123456789012:${name}`,
    TRAINWATCH_EVENT_BUS: name,
    TRAINWATCH_SLACK_WEBHOOK_URL: slack.url,
  };
  // The handler runs with the clients a Lambda makes (alert channels on first use); the driver has its own.
  const app = createApp(env);
  const driver = awsClients({ region: 'us-east-1', endpoint });
  try {
    await setupLocal(app.config, driver);
    const queues = await setupLocalQueues(app.config, driver, name);
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const key = `${app.config.prefix}/run-${i}`;
      await driver.s3.send(
        new PutObjectCommand({
          Bucket: name,
          Key: `${key}/metadata.json`,
          Body: JSON.stringify({ status: 'running' }),
        }),
      );
      const t0 = performance.now();
      await driver.s3.send(
        new PutObjectCommand({
          Bucket: name,
          Key: `${key}/_error`,
          Body: 'torch.OutOfMemoryError: CUDA out of memory.',
        }),
      );
      let done = false;
      while (!done) {
        const { Messages = [] } = await driver.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queues.sentinel,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
          }),
        );
        if (!Messages.length) continue;
        const summary = await evaluateSentinels(
          app,
          { Records: Messages.map((m) => ({ body: m.Body! })) },
          Date.now(),
        );
        await driver.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queues.sentinel,
            Entries: Messages.map((m, j) => ({ Id: `${j}`, ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
        done = summary.alertsSent > 0;
      }
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]!);
    return { samples, median: at(0.5), p95: at(0.95), max: Math.round(times.at(-1)!) };
  } finally {
    await slack.close();
  }
}
