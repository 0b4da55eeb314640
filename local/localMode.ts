import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type App, createApp } from '../lambdas/app.js';
import type { RunRecord } from '../lambdas/core/record.js';
import { evaluateSentinels } from '../lambdas/handlers/sentinel.js';
import { runSweep } from '../lambdas/handlers/sweep.js';
import { startEmulator } from './emulator.js';
import { HeartbeatWriter } from './heartbeatWriter.js';
import { type Clock, SCENARIOS, type Scenario } from './scenarios.js';
import { setupLocal, setupLocalQueues } from './setup.js';
import { renderSlack, startSlackReceiver } from './slackReceiver.js';
import { statusTable } from './statusTable.js';

/** How the local mode runs; every field has a default that shows every state in about a minute. */
export interface LocalOptions {
  readonly maxSeconds: number;
  readonly sweepEveryMs: number;
  readonly out: (line: string) => void;
  /** Aborting (Ctrl-C) ends the run early and cleans up all the same. */
  readonly signal?: AbortSignal;
  /** Handles remediation events (an SQS batch of EventBridge events); absent: no remediation. */
  readonly remediate?: (app: App, event: unknown) => Promise<unknown>;
  /** Starts simulated instances that answer SSM commands; returns a stopper. */
  readonly instances?: (
    app: App,
    scenarios: readonly Scenario[],
    onRestart: (runId: string, attempt: number) => void,
  ) => Promise<() => Promise<void>>;
}

const SETTLED = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STALLED']);

/** Runs trainwatch against a fresh emulator with simulated training runs; resolves when all settle. */
export async function runLocal(opts: LocalOptions): Promise<number> {
  const t0 = Date.now();
  const stamp = () => `[+${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s]`;
  const { out } = opts;
  const emulator = await startEmulator();
  const slack = await startSlackReceiver((payload) =>
    out(`\n${stamp()} Slack alert\n${renderSlack(payload)}\n`),
  );
  let stopped = false;
  const clock: Clock = {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          opts.signal?.removeEventListener('abort', wake);
          resolve();
        }, ms);
        opts.signal?.addEventListener('abort', wake, { once: true });
      }),
    get stopped() {
      return stopped;
    },
  };
  const background: Promise<unknown>[] = [];
  let stopInstances: (() => Promise<void>) | undefined;
  try {
    const env = {
      AWS_ENDPOINT_URL: emulator.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TRAINWATCH_BUCKET: 'trainwatch-local',
      TRAINWATCH_PREFIX: 'training-runs',
      TRAINWATCH_TABLE: 'trainwatch-local',
      TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:trainwatch-local',
      TRAINWATCH_EVENT_BUS: 'trainwatch-local',
      TRAINWATCH_SLACK_WEBHOOK_URL: slack.url,
      TRAINWATCH_STALE_AFTER: '12s',
      TRAINWATCH_STALL_AFTER: '20s',
      TRAINWATCH_STARTUP_GRACE: '15s',
      TRAINWATCH_PHASE_STALE_AFTER: 'setup=20s,checkpointing=20s',
      TRAINWATCH_RESTART_POLICY: 'transient',
      TRAINWATCH_RESTART_COMMANDS: JSON.stringify({ '*': '/opt/train/resume.sh' }),
      TRAINWATCH_DIAGNOSE_DOCUMENT: 'trainwatch-local-diagnose',
      TRAINWATCH_RESTART_DOCUMENT: 'trainwatch-local-restart',
    };
    // The SDK's default credential chain and any helper that makes its own client read these.
    Object.assign(process.env, env);
    const app = createApp(env);
    out(`trainwatch local mode: moto server at ${emulator.endpoint}, Slack webhook at ${slack.url}`);
    for (const line of await setupLocal(app.config, app.clients)) out(`  created ${line}`);
    const queues = await setupLocalQueues(app.config, app.clients, 'trainwatch-local');
    out('  routed S3 sentinel events and remediation transitions through EventBridge to SQS');
    out(
      `thresholds: stale ${env.TRAINWATCH_STALE_AFTER}, stall ${env.TRAINWATCH_STALL_AFTER}, startup grace ${env.TRAINWATCH_STARTUP_GRACE}; sweep every ${opts.sweepEveryMs / 1000}s\n`,
    );

    const writers = new Map(
      SCENARIOS.map((s) => [
        s.runId,
        new HeartbeatWriter(app.clients.s3, app.config.bucket, app.config.prefix, s.runId, {
          job_name: s.jobName,
          instance_id: s.instanceId,
          started_at: new Date().toISOString(),
          attempt: 1,
          log_path: `/var/log/train/${s.runId}.log`,
        }),
      ]),
    );
    const onRestart = (runId: string, attempt: number) => {
      const s = SCENARIOS.find((x) => x.runId === runId);
      if (s?.resume) {
        out(
          `${stamp()} simulated instance ${s.instanceId}: restarting ${runId} as attempt ${attempt} from its latest checkpoint`,
        );
        background.push(
          s.resume(writers.get(runId)!, clock, attempt).catch((e) => out(`simulator ${runId}: ${e}`)),
        );
      }
    };
    if (opts.instances) stopInstances = await opts.instances(app, SCENARIOS, onRestart);
    for (const s of SCENARIOS) {
      out(`  simulating ${s.runId.padEnd(16)} ${s.story}`);
      background.push(s.play(writers.get(s.runId)!, clock).catch((e) => out(`simulator ${s.runId}: ${e}`)));
    }

    let busy = 0;
    const drain = async (url: string, handle: (event: unknown) => Promise<unknown>) => {
      while (!stopped) {
        const { Messages = [] } = await app.clients.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        if (Messages.length === 0) continue;
        busy++;
        try {
          await handle({ Records: Messages.map((m) => ({ body: m.Body ?? '' })) });
        } catch (e) {
          out(`${stamp()} handler error: ${(e as Error).message}`);
        } finally {
          busy--;
          await app.clients.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
      }
    };
    background.push(drain(queues.sentinel, (e) => evaluateSentinels(app, e, Date.now())));
    if (opts.remediate) background.push(drain(queues.remediation, (e) => opts.remediate!(app, e)));

    let quietSweeps = 0;
    let lastTable = 0;
    while (Date.now() - t0 < opts.maxSeconds * 1000) {
      await clock.sleep(opts.sweepEveryMs);
      if (opts.signal?.aborted) {
        out(`\n${stamp()} interrupted: cleaning up`);
        break;
      }
      const report = await runSweep(app, Date.now());
      for (const e of report.errors) out(`${stamp()} sweep error on ${e.runId}: ${e.error}`);
      const records = [...(await app.states.loadAll()).values()];
      if (report.transitions.length > 0 || Date.now() - lastTable > 10_000) {
        const moves = report.transitions.map((t) => `${t.runId} ${t.from ?? '(new)'}→${t.to}`).join(', ');
        out(
          `\n${stamp()} sweep: ${report.runs} runs in ${report.durationMs} ms${moves ? `; ${moves}` : ''}\n${statusTable(records)}`,
        );
        lastTable = Date.now();
      }
      const settled =
        records.length === SCENARIOS.length && records.every((r: RunRecord) => SETTLED.has(r.state));
      quietSweeps = settled && busy === 0 && report.transitions.length === 0 ? quietSweeps + 1 : 0;
      if (quietSweeps >= 3) break;
    }
    const final = [...(await app.states.loadAll()).values()];
    out(`\n${stamp()} done: ${slack.received.length} Slack alerts. Final state:\n${statusTable(final)}`);
    return 0;
  } finally {
    stopped = true;
    await Promise.allSettled(background);
    await stopInstances?.();
    await slack.close();
    await emulator.stop();
  }
}
