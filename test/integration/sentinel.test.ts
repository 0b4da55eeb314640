import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evaluateSentinels } from '../../lambdas/handlers/sentinel.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { setupLocalQueues } from '../../local/setup.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

let t: TestEnvironment;
beforeEach(async () => {
  t = await testEnvironment();
});
afterEach(() => t.close());

async function receive(app: ReturnType<TestEnvironment['app']>, url: string) {
  const { Messages = [] } = await app.clients.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
  );
  if (Messages.length)
    await app.clients.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: Messages.map((m, i) => ({ Id: `${i}`, ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  return { Records: Messages.map((m) => ({ body: m.Body! })) };
}

describe('sentinel: S3 Object Created → EventBridge rule → handler', () => {
  it('fails a run as soon as its _error lands, without waiting for the sweep', async () => {
    const app = t.app();
    const queues = await setupLocalQueues(app.config, app.clients, t.env.TRAINWATCH_TABLE!);
    await t.put('run-1', 'metadata', metadata('run-1'));
    await t.put('run-1', 'progress', progress(300));
    await runSweep(app, Date.now());
    expect((await receive(app, queues.sentinel)).Records).toHaveLength(0); // heartbeats match no rule

    await t.put('run-1', 'error', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB');
    const batch = await receive(app, queues.sentinel);
    expect(batch.Records).toHaveLength(1);
    const summary = await evaluateSentinels(app, batch, Date.now());
    expect(summary.transitions).toEqual([{ runId: 'run-1', from: 'RUNNING', to: 'FAILED' }]);
    expect(t.slack.received).toHaveLength(1);
    expect(await app.states.get('run-1')).toMatchObject({
      state: 'FAILED',
      errorType: 'oom',
      facts: { step: 300 },
    });

    // The next sweep sees the same _error: no second alert.
    await runSweep(app, Date.now());
    expect(t.slack.received).toHaveLength(1);
  });

  it('succeeds a run on _complete and ignores keys outside the prefix or with bad run ids', async () => {
    const app = t.app();
    const queues = await setupLocalQueues(app.config, app.clients, t.env.TRAINWATCH_TABLE!);
    await t.put('run-2', 'metadata', metadata('run-2'));
    await t.put('run-2', 'complete', JSON.stringify({ step: 1000 }));
    const batch = await receive(app, queues.sentinel);
    const forged = {
      source: 'aws.s3',
      'detail-type': 'Object Created',
      detail: { bucket: { name: app.config.bucket }, object: { key: 'training-runs/..%2F/_error' } },
    };
    const summary = await evaluateSentinels(
      app,
      { Records: [...batch.Records, { body: JSON.stringify(forged) }, { body: 'not json' }] },
      Date.now(),
    );
    expect(summary.transitions).toEqual([{ runId: 'run-2', from: undefined, to: 'SUCCEEDED' }]);
    expect(summary.errors).toEqual([]);
  });
});
