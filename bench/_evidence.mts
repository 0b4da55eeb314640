// Throwaway: prints one real SNS message and the files the Python client writes (for the closing note).
import { spawnSync } from 'node:child_process';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createApp } from '../lambdas/app.js';
import { runSweep } from '../lambdas/handlers/sweep.js';
import { startEmulator } from '../local/emulator.js';
import { setupLocal } from '../local/setup.js';
const em = await startEmulator();
try {
  const env = { ...process.env, AWS_ENDPOINT_URL: em.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', TRAINWATCH_BUCKET: 'evidence-bucket', TRAINWATCH_TABLE: 'evidence', TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:evidence' };
  Object.assign(process.env, env);
  const app = createApp(env);
  await setupLocal(app.config, app.clients);
  const { QueueUrl } = await app.clients.sqs.send(new CreateQueueCommand({ QueueName: 'evidence' }));
  const arn = (await app.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  await app.clients.sns.send(new SubscribeCommand({ TopicArn: env.TRAINWATCH_TOPIC_ARN, Protocol: 'sqs', Endpoint: arn }));
  const py = spawnSync('python3', ['examples/train.py', '--run-id', 'example-oom', '--steps', '80', '--step-time', '0.02', '--interval', '0.5', '--fail', 'oom', '--fail-at', '60'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  console.log('example exit', py.status);
  const ok = spawnSync('python3', ['examples/train.py', '--run-id', 'example-ok', '--steps', '50', '--step-time', '0.02', '--interval', '0.5'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  console.log('example-ok exit', ok.status);
  const list = await app.clients.s3.send(new ListObjectsV2Command({ Bucket: 'evidence-bucket' }));
  for (const o of list.Contents ?? []) {
    const body = await (await app.clients.s3.send(new GetObjectCommand({ Bucket: 'evidence-bucket', Key: o.Key! }))).Body!.transformToString();
    console.log(`--- ${o.Key}\n${body.slice(0, 900)}`);
  }
  console.log(JSON.stringify(await runSweep(app, Date.now()), null, 0).slice(0, 400));
  const { Messages = [] } = await app.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  for (const m of Messages) {
    const e = JSON.parse(m.Body!);
    console.log(`=== SNS Subject: ${e.Subject}\nattributes: ${JSON.stringify(e.MessageAttributes)}\n${e.Message}`);
  }
} finally {
  await em.stop();
}
