import { setMaxListeners } from 'node:events';
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { listEnded } from '../lambdas/adapters/stores/dynamoEndedLog.js';
import type { RunRecord } from '../lambdas/core/model/record.js';
import { evaluateSentinels } from '../lambdas/handlers/sentinel.js';
import { runSweep } from '../lambdas/handlers/sweep.js';
import { type App, createApp } from '../lambdas/wiring/app.js';
import { slackEndpointDeps } from '../lambdas/wiring/slack.js';
import { awsClients } from './awsClients.js';
import { eksSection } from './eksSection.js';
import { startEmulator } from './emulator.js';
import { HeartbeatWriter } from './heartbeatWriter.js';
import { actOnReminders, localSilence } from './onCall.js';
import { renderPagerDuty, startPagerDutyReceiver } from './pagerDutyReceiver.js';
import { learnedThresholdsSection } from './recording.js';
import { type Clock, SCENARIOS, type Scenario } from './scenarios.js';
import { setupLocal, setupLocalQueues } from './setup.js';
import { type SlackEvent, startSlackApi } from './slackApi.js';
import { startSlackEndpoint } from './slackEndpointServer.js';
import { LOCAL_CHANNEL, localSigningSecret, threadOf } from './slackPerson.js';
import { renderSlack } from './slackReceiver.js';
import { statusTable } from './statusTable.js';

/** A watched run that lives outside this process (a real training script). */
export interface ExternalRun {
  readonly runId: string;
  readonly story: string;
  stop(): void;
}

/** How the local mode runs. */
export interface LocalOptions {
  readonly maxSeconds: number;
  readonly sweepEveryMs: number;
  readonly out: (line: string) => void;
  /** Keep sweeping after the simulated runs settle (to watch your own script), until maxSeconds or Ctrl-C. */
  readonly keepRunning?: boolean;
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
  /** Starts runs outside this process (the Python example); each is one more run to watch. */
  readonly external?: (env: Record<string, string>, out: (line: string) => void) => Promise<ExternalRun[]>;
}

const SETTLED = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STALLED']);
/** The run whose thread the local mode prints at the end: stall, diagnosis, restart, recovery, success. */
const SHOWN_THREAD = 'vit-huge-hang';

/** Every run the local mode made, live or ended: the live set plus the ended-runs log. */
async function everyRun(app: App): Promise<RunRecord[]> {
  const live = await app.states.loadLive();
  const ended = await listEnded(app.clients.ddb, app.config.table, 500, Date.now());
  const gone = await app.states.find(ended.map((e) => e.runId).filter((id) => !live.has(id)));
  return [...live.values(), ...gone.values()];
}

/** The local configuration: the same names the Lambdas read, with thresholds short enough to watch. */
function localEnv(
  endpoint: string,
  slack: { apiUrl: string; token: string; secret: string },
  pagerDutyUrl: string,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    TRAINWATCH_BUCKET: 'trainwatch-local',
    TRAINWATCH_PREFIX: 'training-runs',
    TRAINWATCH_TABLE: 'trainwatch-local',
    TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:trainwatch-local',
    TRAINWATCH_EVENT_BUS: 'trainwatch-local',
    // The Slack app: one thread per run attempt in #trainwatch, with buttons that call the local endpoint.
    TRAINWATCH_SLACK_BOT_TOKEN: slack.token,
    TRAINWATCH_SLACK_CHANNEL: LOCAL_CHANNEL,
    TRAINWATCH_SLACK_API_URL: slack.apiUrl,
    TRAINWATCH_SLACK_SIGNING_SECRET: slack.secret,
    // On-call lifecycle: a local PagerDuty, reminders every 9 s (until someone acknowledges), grouping at 3.
    TRAINWATCH_PAGERDUTY_ROUTING_KEY: 'local0routing0key00000000000000',
    TRAINWATCH_PAGERDUTY_URL: pagerDutyUrl,
    TRAINWATCH_REMIND_EVERY: '9s',
    TRAINWATCH_GROUP_MIN: '3',
    TRAINWATCH_STALE_AFTER: '12s',
    TRAINWATCH_STALL_AFTER: '20s',
    TRAINWATCH_STARTUP_GRACE: '15s',
    // A finished run leaves the sweep 20 s later: its files move under trainwatch-ended/ (retention.endedAfter).
    TRAINWATCH_ENDED_AFTER: '20s',
    TRAINWATCH_PHASE_STALE_AFTER: 'setup=20s,checkpointing=20s',
    // Health rules (docs/HEALTH.md) on a watchable scale: node bodies read every sweep, a 6 s warm-up, a
    // baseline of 5 periods (judged from 3: about 10 s of steady training). Idle GPUs after 24 s, so the
    // alert's "GPU-hours wasted" (8 GPUs × 24 s) rounds to 0.1 rather than 0.0.
    TRAINWATCH_TELEMETRY_EVERY: '3s',
    TRAINWATCH_HEALTH_WARMUP: '6s',
    TRAINWATCH_BASELINE_WINDOW: '15s',
    TRAINWATCH_IDLE_GPU_AFTER: '24s',
    // Restart transient faults after a 2 s backoff (60 s by default) with the operator's resume command.
    TRAINWATCH_RESTART_POLICY: JSON.stringify({ extends: 'transient', backoff: { initial_seconds: 2 } }),
    TRAINWATCH_RESTART_COMMANDS: JSON.stringify({
      // A pattern no real process on this machine matches (the Python example runs train.py here).
      '*': { command: '/opt/train/resume.sh', process_pattern: 'trainwatch-simulated-job' },
    }),
    TRAINWATCH_DIAGNOSE_DOCUMENT: 'trainwatch-local-diagnose',
    TRAINWATCH_RESTART_DOCUMENT: 'trainwatch-local-restart',
  };
}

/** Runs trainwatch against a fresh emulator with simulated training runs; resolves when all settle. */
export async function runLocal(opts: LocalOptions): Promise<number> {
  const t0 = Date.now();
  const stamp = () => `[+${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s]`;
  const { out } = opts;
  // Every simulated run's clock sleeps on the signal at once (one listener each, removed when it wakes).
  if (opts.signal) setMaxListeners(100, opts.signal);
  const emulator = await startEmulator();
  const headline = (m: { blocks: unknown[] }) => renderSlack(m).split('\n')[0]?.replace(/^┃ /, '') ?? '';
  const slack = await startSlackApi((e: SlackEvent) => {
    if (e.kind === 'response') {
      const said = JSON.stringify(e.body.blocks ?? e.body.text ?? '').match(
        /(Acknowledged|Silenced|Restart requested)[^"]*/,
      );
      out(`${stamp()} Slack: the clicked message now says: ${said?.[0] ?? e.body.text}`);
    } else if (e.kind === 'post')
      out(`\n${stamp()} Slack #trainwatch, a new thread\n${renderSlack(e.message)}\n`);
    else if (e.kind === 'reply')
      out(
        `\n${stamp()} Slack, in the thread${e.message.reply_broadcast ? ' (also sent to the channel: the run got worse)' : ''}\n${renderSlack(e.message)}\n`,
      );
    else out(`${stamp()} Slack: the thread's first message now shows ${headline(e.message)}`);
  });
  const secret = localSigningSecret();
  const pagerDuty = await startPagerDutyReceiver((e) => out(`\n${stamp()} ${renderPagerDuty(e)}\n`));
  let stopped = false;
  const sleep = (ms: number) =>
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
    });
  // Each attempt gets its own clock: a restart ends the previous attempt's loop (its process was killed).
  const generation = new Map<string, number>();
  const attemptClock = (runId: string): Clock => {
    const mine = (generation.get(runId) ?? 0) + 1;
    generation.set(runId, mine);
    return {
      sleep,
      get stopped() {
        return stopped || generation.get(runId) !== mine;
      },
    };
  };
  const background: Promise<unknown>[] = [];
  const externalRuns: ExternalRun[] = [];
  let stopInstances: (() => Promise<void>) | undefined;
  let stopEndpoint: (() => Promise<void>) | undefined;
  try {
    const env = localEnv(
      emulator.endpoint,
      { apiUrl: slack.apiUrl, token: slack.token, secret },
      pagerDuty.url,
    );
    // The SDK's default credential chain, and any helper that makes its own client, read these.
    Object.assign(process.env, env);
    const app = createApp(env, awsClients({ region: env.AWS_REGION!, endpoint: env.AWS_ENDPOINT_URL }));
    const endpoint = await startSlackEndpoint(
      slackEndpointDeps(
        env,
        (level, message, fields) => {
          if (level !== 'info') out(`slack endpoint ${level}: ${message} ${JSON.stringify(fields ?? {})}`);
        },
        { ddb: app.clients.ddb, ssm: app.clients.ssm, events: app.clients.events },
      ),
    );
    stopEndpoint = () => endpoint.close();
    out(
      `trainwatch local mode: moto server at ${emulator.endpoint}, Slack Web API at ${slack.apiUrl}, the Slack app's endpoint at ${endpoint.url}`,
    );
    for (const line of await setupLocal(app.config, app.clients)) out(`  created ${line}`);
    const queues = await setupLocalQueues(app.config, app.clients, 'trainwatch-local');
    out('  routed S3 sentinel events and remediation transitions through EventBridge to SQS');
    out(
      `thresholds: stale ${env.TRAINWATCH_STALE_AFTER}, stall ${env.TRAINWATCH_STALL_AFTER}, startup grace ${env.TRAINWATCH_STARTUP_GRACE}; health: telemetry every ${env.TRAINWATCH_TELEMETRY_EVERY}, warm-up ${env.TRAINWATCH_HEALTH_WARMUP}, idle GPUs after ${env.TRAINWATCH_IDLE_GPU_AFTER}; sweep every ${opts.sweepEveryMs / 1000}s; restart policy transient\n`,
    );

    out(`${stamp()} ${await localSilence(app, Date.now())}`);

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
      if (!s?.resume) return;
      out(
        `${stamp()} simulated instance ${s.instanceId}: restarting ${runId} as attempt ${attempt} from its latest checkpoint`,
      );
      const resume = s.resume(writers.get(runId)!, attemptClock(runId), attempt);
      background.push(resume.catch((e) => out(`simulator ${runId}: ${e}`)));
    };
    if (opts.instances) stopInstances = await opts.instances(app, SCENARIOS, onRestart);
    for (const s of SCENARIOS) {
      out(`  simulating ${s.runId.padEnd(16)} ${s.story}`);
      background.push(
        s.play(writers.get(s.runId)!, attemptClock(s.runId)).catch((e) => out(`simulator ${s.runId}: ${e}`)),
      );
    }
    if (opts.external) externalRuns.push(...(await opts.external(env, out)));
    for (const x of externalRuns) out(`  running    ${x.runId.padEnd(16)} ${x.story}`);
    const expectedRuns = SCENARIOS.length + externalRuns.length;

    let busy = 0;
    const drain = async (url: string, handle: (event: unknown) => Promise<unknown>) => {
      while (!stopped) {
        const { Messages = [] } = await app.clients.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        if (Messages.length === 0) continue;
        busy++;
        try {
          await handle({ Records: Messages.map((m) => ({ messageId: m.MessageId, body: m.Body ?? '' })) });
        } catch (e) {
          out(`${stamp()} handler error: ${(e as Error).message}`);
        } finally {
          busy--;
          const Entries = Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! }));
          await app.clients.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries }));
        }
      }
    };
    background.push(drain(queues.sentinel, (e) => evaluateSentinels(app, e, Date.now())));
    if (opts.remediate) background.push(drain(queues.remediation, (e) => opts.remediate!(app, e)));

    let quietSweeps = 0;
    let lastTable = 0;
    while (Date.now() - t0 < opts.maxSeconds * 1000) {
      await sleep(opts.sweepEveryMs);
      if (opts.signal?.aborted) {
        out(`\n${stamp()} interrupted: cleaning up`);
        break;
      }
      const report = await runSweep(app, Date.now());
      for (const e of report.errors) out(`${stamp()} sweep error on ${e.runId}: ${e.error}`);
      const records = await everyRun(app);
      for (const line of await actOnReminders(app, records, Date.now(), {
        api: slack,
        endpoint: endpoint.url,
        secret,
      }))
        out(`${stamp()} ${line}`);
      if (report.transitions.length > 0 || Date.now() - lastTable > 10_000) {
        const moves = report.transitions.map((t) => `${t.runId} ${t.from ?? '(new)'}→${t.to}`).join(', ');
        const ended = report.ended
          ? `; ${report.ended} ended (files moved under ${app.config.endedPrefix}/)`
          : '';
        out(
          `\n${stamp()} sweep: ${report.runs} runs in ${report.durationMs} ms${moves ? `; ${moves}` : ''}${ended}`,
        );
        out(statusTable(records));
        lastTable = Date.now();
      }
      const settled = records.length === expectedRuns && records.every((r) => SETTLED.has(r.state));
      quietSweeps = settled && busy === 0 && report.transitions.length === 0 ? quietSweeps + 1 : 0;
      if (quietSweeps >= 3 && !opts.keepRunning) break;
    }
    const final = await everyRun(app);
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage').length;
    out(
      `\n${stamp()} done: ${posts} Slack messages in ${slack.channelMessages(LOCAL_CHANNEL).filter((m) => !m.thread_ts).length} threads, ${pagerDuty.received.length} PagerDuty events. Final state:`,
    );
    out(statusTable(final));
    const story = await threadOf(slack, SHOWN_THREAD);
    if (story.length)
      out(
        `\n${SHOWN_THREAD}'s whole life in Slack, one thread (read back with the official client):\n${story.join('\n')}`,
      );
    // The story above runs on short thresholds set explicitly; what a run gets with none set, on a real run.
    if (!opts.signal?.aborted) {
      const [heading, ...rest] = await learnedThresholdsSection();
      out(`\n${stamp()} ${heading}\n${rest.join('\n')}`);
      // A run on EKS: on a real kube-apiserver where one is built, else how to build it (local/eksSection.ts).
      out('');
      await eksSection(emulator.endpoint, out, stamp);
    }
    return 0;
  } finally {
    stopped = true;
    for (const x of externalRuns) x.stop();
    await Promise.allSettled(background);
    await stopInstances?.();
    await stopEndpoint?.();
    await slack.close();
    await pagerDuty.close();
    await emulator.stop();
  }
}
