import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { endedKey, liveKey } from '../lambdas/adapters/stores/dynamoStateStore.js';
import type { RunRecord } from '../lambdas/core/model/record.js';
import {
  credentialsEnv,
  DEPLOYED_PARAMETERS,
  deployTrial,
  destroy,
  type MiniStack,
  startMiniStack,
} from './deployed.js';
import { renderPagerDuty, startPagerDutyReceiver } from './pagerDutyReceiver.js';
import { startSlackApi } from './slackApi.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = join(ROOT, 'examples', 'train.py');

export interface DeployedOptions {
  /** Give up waiting for the alerts after this long (then destroy). */
  readonly maxSeconds: number;
  /** Keep the stack and MiniStack up after the alerts until Ctrl-C (to try your own runs). */
  readonly keepRunning?: boolean;
  readonly out: (line: string) => void;
  readonly signal: AbortSignal;
}

const RUNS = [
  {
    id: 'deployed-oom',
    args: ['--steps', '60', '--step-time', '0.1', '--interval', '2', '--fail', 'oom', '--fail-at', '20'],
  },
  { id: 'deployed-ok', args: ['--steps', '40', '--step-time', '0.1', '--interval', '2'] },
];

/**
 * `trainwatch local --deployed`: the real stack deployed into MiniStack (README "Deploy, start to first
 * alert", the same steps the deployment test runs), two runs of examples/train.py written with the writer
 * role, their alerts as they arrive (the topic's queue, Slack, PagerDuty), then `cdk destroy`.
 */
export async function runDeployed(o: DeployedOptions): Promise<number> {
  if (
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'ensure-ministack.mjs')], { stdio: 'inherit' })
      .status !== 0
  )
    return 1;
  const started = Date.now();
  const ms = await startMiniStack();
  o.out(`MiniStack on ${ms.endpoint} (TLS, IAM enforced), pid ${ms.pid}, files in ${ms.dir}`);
  const slack = await startSlackApi((e) => {
    if (e.kind !== 'response') o.out(`  slack ${e.kind}: ${e.message.text.split('\n')[0]}`);
  }, DEPLOYED_PARAMETERS['/trainwatch/slack-bot-token']);
  const pagerDuty = await startPagerDutyReceiver((e) => o.out(`  pagerduty: ${renderPagerDuty(e)}`));
  const children: ChildProcess[] = [];
  let trial: Awaited<ReturnType<typeof deployTrial>> | undefined;
  try {
    trial = await deployTrial(ms, {
      hosts: { slackApiUrl: slack.apiUrl, pagerDutyUrl: pagerDuty.url },
      log: (line) => o.out(line),
    });
    const { deployment: d, writer } = trial;
    o.out(
      `deployed in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(d.seconds)} s per step`,
    );
    o.out(
      `  bucket ${d.outputs.BucketName}, table ${d.outputs.StateTableName}, topic ${d.outputs.AlertTopicArn}`,
    );
    const env = ms.env({
      ...credentialsEnv(writer),
      TRAINWATCH_BUCKET: d.outputs.BucketName!,
      TRAINWATCH_PREFIX: d.outputs.Prefix!,
      TRAINWATCH_INSTANCE_ID: 'i-0a1b2c3d4e5f60032',
    });
    o.out("Your own runs, in another shell (the writer role's session, valid an hour):");
    o.out(
      `  env -u NODE_EXTRA_CA_CERTS -u REQUESTS_CA_BUNDLE -u SSL_CERT_FILE ${['AWS_ENDPOINT_URL', 'AWS_CA_BUNDLE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'TRAINWATCH_BUCKET', 'TRAINWATCH_PREFIX'].map((k) => `${k}=${env[k]}`).join(' ')} python3 examples/train.py --run-id my-run`,
    );
    for (const r of RUNS) {
      o.out(`python3 examples/train.py --run-id ${r.id} ${r.args.join(' ')}`);
      children.push(spawn('python3', [EXAMPLE, '--run-id', r.id, ...r.args], { env, stdio: 'ignore' }));
    }
    const done = await watch(ms, trial, o);
    if (o.keepRunning && !o.signal.aborted) {
      o.out('Kept running: Ctrl-C destroys the stack and stops MiniStack.');
      await new Promise((r) => o.signal.addEventListener('abort', r, { once: true }));
    }
    return done ? 0 : 1;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    if (trial) {
      o.out('$ npx cdk destroy');
      await destroy(ms, trial.deployment).catch((e) => o.out(`destroy failed: ${String(e)}`));
    }
    await slack.close();
    await pagerDuty.close();
    await ms.stop();
    o.out(`MiniStack stopped; ${Math.round((Date.now() - started) / 1000)} s in all`);
  }
}

/** Prints each run's state changes and each alert until the OOM alert came and the finished run ended. */
async function watch(
  ms: MiniStack,
  t: Awaited<ReturnType<typeof deployTrial>>,
  o: DeployedOptions,
): Promise<boolean> {
  const ddb = DynamoDBDocumentClient.from(new DynamoDBClient(ms.sdk()));
  const sqs = new SQSClient(ms.sdk());
  const table = t.deployment.outputs.StateTableName!;
  const seen = new Map<string, string>();
  let alerted = false;
  const deadline = Date.now() + o.maxSeconds * 1000;
  while (Date.now() < deadline && !o.signal.aborted) {
    for (const r of RUNS) {
      const live = (await ddb.send(new GetCommand({ TableName: table, Key: liveKey(r.id) }))).Item as
        | RunRecord
        | undefined;
      const ended = live
        ? undefined
        : ((await ddb.send(new GetCommand({ TableName: table, Key: endedKey(r.id) }))).Item as
            | RunRecord
            | undefined);
      const now = live
        ? live.state
        : ended
          ? `${ended.state}, ended (files moved out of the prefix by the sweep)`
          : '';
      if (now && seen.get(r.id) !== now)
        o.out(`  ${r.id}: ${now}${live?.errorType ? ` (${live.errorType})` : ''}`);
      if (now) seen.set(r.id, now);
    }
    const m = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: t.alertQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }),
    );
    for (const msg of m.Messages ?? []) {
      const { Subject, Message } = JSON.parse(msg.Body!) as { Subject?: string; Message: string };
      o.out(`  alert (SNS → SQS): ${Subject ?? Message.split('\n')[0]}`);
      if (Message.includes('deployed-oom') && Message.includes('FAILED')) alerted = true;
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: t.alertQueueUrl, ReceiptHandle: msg.ReceiptHandle! }),
      );
    }
    if (alerted && seen.get('deployed-ok')?.includes('ended')) return true;
  }
  if (!o.signal.aborted) o.out(alerted ? 'the finished run did not end in time' : 'no alert in time');
  return false;
}
