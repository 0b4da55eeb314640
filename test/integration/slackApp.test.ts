import { randomBytes } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver } from '../../lambdas/core/alerting/deliver.js';
import type { Alert } from '../../lambdas/core/model/alert.js';
import { ACTION, onCallButtons } from '../../lambdas/core/slack/index.js';
import { handleRemediation } from '../../lambdas/handlers/remediate.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import type { App } from '../../lambdas/wiring/app.js';
import { remediationDeps } from '../../lambdas/wiring/remediation.js';
import { slackEndpointDeps } from '../../lambdas/wiring/slack.js';
import type { AwsClients } from '../../local/awsClients.js';
import { BEHAVIOURS, SimulatedInstance } from '../../local/simulatedInstance.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';
import {
  clickPayload,
  type SlackApi,
  type SlackEndpointServer,
  type SlackMessage,
  sendSigned,
  startSlackApi,
  startSlackEndpoint,
} from '../support/slackServer.js';

const MIN = 60_000;
const NCCL = `[rank3]:[E1122 10:42:17.123456 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5621, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600039 milliseconds before timing out.`;
const CHANNEL = 'C0TRAINW1';
const SECRET = randomBytes(16).toString('hex');
const MARIA = { id: 'U0MARIA01', username: 'maria' };
const BO = { id: 'U0BOBOB02', username: 'bo' };

let t: TestEnvironment;
let api: SlackApi;
let endpoint: SlackEndpointServer | undefined;
const logs: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await endpoint?.close();
  endpoint = undefined;
  await t.close();
  await api.close();
  logs.length = 0;
});

/** A trainwatch whose Slack is the app: bot token, channel and signing secret, the local Web API. */
async function setup(overrides: Record<string, string> = {}) {
  api = await startSlackApi();
  t = await testEnvironment({
    TRAINWATCH_SLACK_BOT_TOKEN: api.token,
    TRAINWATCH_SLACK_CHANNEL: CHANNEL,
    TRAINWATCH_SLACK_API_URL: api.apiUrl,
    TRAINWATCH_SLACK_SIGNING_SECRET: SECRET,
    ...overrides,
  });
  return t.app();
}

/** The endpoint's real handler behind HTTP, wired from the same environment as a Lambda would be. */
async function startEndpoint(app: App<AwsClients>): Promise<string> {
  const deps = slackEndpointDeps(t.env, (level, message, fields) => logs.push({ level, message, fields }), {
    ddb: app.clients.ddb,
    ssm: app.clients.ssm,
    events: app.clients.events,
  });
  endpoint = await startSlackEndpoint(deps);
  return endpoint.url;
}

/** The official client, pointed at the local Slack: what people see in the channel and in a thread. */
const official = () => new WebClient(api.token, { slackApiUrl: api.apiUrl });
async function channel(): Promise<SlackMessage[]> {
  return ((await official().conversations.history({ channel: CHANNEL })).messages ?? []) as never;
}
async function thread(ts: string): Promise<SlackMessage[]> {
  return ((await official().conversations.replies({ channel: CHANNEL, ts })).messages ?? []) as never;
}

/** A run that beats once with step 77, then keeps its metadata beating without progress: STALLED. */
async function stalled(app: App, runId: string) {
  await t.put(runId, 'metadata', metadata(runId, { job_name: 'llama' }));
  await t.put(runId, 'progress', progress(77));
  await runSweep(app, Date.now());
  await new Promise((r) => setTimeout(r, 2500));
  await t.put(runId, 'metadata', metadata(runId, { job_name: 'llama' }));
  const report = await runSweep(app, Date.now());
  expect(report.transitions).toEqual([{ runId, from: 'RUNNING', to: 'STALLED' }]);
}

const click = (url: string, message: SlackMessage, action: string, user = MARIA, trigger?: string) =>
  sendSigned(url, clickPayload(message, action, user, api.responseUrl(), trigger), { secret: SECRET });

describe('one thread per run attempt', () => {
  it('posts the first alert to the channel, later ones in its thread (a worsening broadcast too), and keeps the parent at the state now', async () => {
    const app = await setup({
      TRAINWATCH_STALL_AFTER: '2s',
      TRAINWATCH_STALE_AFTER: '10m',
      TRAINWATCH_REMIND_EVERY: '5m',
    });
    await stalled(app, 'th-1');
    const now = Date.now();
    // Heartbeats stop: TIMED_OUT, worse than STALLED; then a reminder; then the run comes back.
    await runSweep(app, now + 11 * MIN);
    await runSweep(app, now + 17 * MIN);
    await t.put('th-1', 'metadata', metadata('th-1', { job_name: 'llama' }));
    await t.put('th-1', 'progress', progress(90));
    await runSweep(app, Date.now() + 1000);
    expect((await app.states.get('th-1'))!.state).toBe('RUNNING');

    const top = await channel();
    // One parent for the run, plus the worsening broadcast to the channel.
    expect(top.filter((m) => !m.thread_ts)).toHaveLength(1);
    const parent = top.find((m) => !m.thread_ts)!;
    expect(top.filter((m) => m.thread_ts).map((m) => m.text)).toEqual([
      expect.stringMatching(/^:alarm_clock: th-1 — TIMED_OUT:/),
    ]);
    const replies = (await thread(parent.ts)).slice(1);
    const headline = (m: SlackMessage) => m.text.replace(/^:[a-z_]+: /, '').split(':')[0];
    expect(replies.map((m) => [headline(m), m.reply_broadcast ?? false])).toEqual([
      ['th-1 — TIMED_OUT', true],
      ['th-1 — TIMED_OUT (reminder)', false],
      ['th-1 — RUNNING', false],
    ]);
    // The parent was the STALLED alert; it now shows the run as it is: RUNNING.
    const first = api.calls.find((c) => c.method === 'chat.postMessage')!;
    expect(String(first.args.text)).toMatch(/th-1 — STALLED/);
    expect(parent.text).toMatch(/^:large_green_circle: th-1 — RUNNING/);
    expect(api.messages.find((m) => m.ts === parent.ts)!.edits).toBe(3);
    // The thread is on the run item: one parent for attempt 1.
    expect((await app.states.get('th-1'))!.slackThread).toMatchObject({
      channel: CHANNEL,
      ts: parent.ts,
      attempt: 1,
      through: 1,
      state: 'RUNNING',
    });
    // The unhealthy alerts carry the on-call buttons; the recovery does not.
    const buttons = (m: SlackMessage) => JSON.stringify(m.blocks).match(/trainwatch_[a-z_0-9]+/g) ?? [];
    expect(buttons(replies[0]!)).toEqual([
      ACTION.ack,
      ACTION.silence1h,
      ACTION.silence4h,
      ACTION.silenceResolved,
    ]);
    expect(buttons(replies[2]!)).toEqual([]);
  });

  it('two senders racing on a run with no thread yet post one parent; the other replies in its thread', async () => {
    const app = await setup({ TRAINWATCH_STALL_AFTER: '2s' });
    await t.put('race-1', 'metadata', metadata('race-1'));
    await runSweep(app, Date.now());
    const rec = (await app.states.get('race-1'))!;
    const base = {
      runId: 'race-1',
      attempt: 1,
      since: rec.since,
      at: Date.now(),
      s3Uri: 's3://b/r/',
      consoleUrl: 'https://console.aws.amazon.com/',
    };
    const a: Alert = {
      ...base,
      id: 'race-1:2:transition',
      kind: 'transition',
      state: 'FAILED',
      reason: 'boom',
      action: 'look',
      severity: 'critical',
    };
    const b: Alert = {
      ...a,
      id: 'race-1:3:remediation',
      kind: 'remediation',
      reason: 'diagnosed: process gone',
    };
    // Two Lambda containers (the sweep and the remediation function), each with its own clients.
    const [one, two] = [t.app(), t.app()];
    const slackOf = (x: App) => x.deps.notifiers.filter((n) => n.channel === 'slack');
    api.delayPosts(300);
    const reports = await Promise.all([deliver(a, slackOf(one)), deliver(b, slackOf(two))]);
    expect(reports.map((r) => r.delivered)).toEqual([['slack'], ['slack']]);
    const top = await channel();
    expect(top).toHaveLength(1);
    const replies = (await thread(top[0]!.ts)).slice(1);
    expect(replies).toHaveLength(1);
    // Each alert was posted once: one as the parent, the other as a reply in its thread.
    const posts = api.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.map((p) => p.args.thread_ts ?? null).sort()).toEqual([top[0]!.ts, null].sort());
    expect(new Set(posts.map((p) => String(p.args.text).includes('diagnosed')))).toEqual(
      new Set([true, false]),
    );
    expect((await app.states.get('race-1'))!.slackThread?.ts).toBe(top[0]!.ts);
  });

  it("tells Slack's answers apart: a rate limit is retried, a missing channel or a revoked token is permanent", async () => {
    const app = await setup();
    await t.put('err-1', 'metadata', metadata('err-1'));
    await runSweep(app, Date.now());
    const rec = (await app.states.get('err-1'))!;
    const a: Alert = {
      id: 'err-1:9:transition',
      kind: 'transition',
      runId: 'err-1',
      state: 'FAILED',
      reason: 'boom',
      action: 'look',
      severity: 'critical',
      at: Date.now(),
      since: rec.since,
      attempt: 1,
      s3Uri: 's3://b/err-1/',
      consoleUrl: 'https://console.aws.amazon.com/',
    };
    const slack = app.deps.notifiers.filter((n) => n.channel === 'slack');
    const noWait = { sleep: async () => {} };
    api.failNext('chat.postMessage', 'ratelimited');
    expect(await deliver(a, slack, noWait)).toEqual({ delivered: ['slack'], failed: [] });
    for (const error of ['channel_not_found', 'token_revoked']) {
      api.failNext('chat.postMessage', error);
      const r = await deliver({ ...a, id: `err-1:${error}`, attempt: 2 }, slack, noWait);
      expect(r.failed).toEqual([{ channel: 'slack', error: `slack: ${error}`, permanent: true }]);
    }
    // The bot token is checked like Slack does: a wrong one is invalid_auth, permanent, and never printed.
    const wrong = await testEnvironment({
      TRAINWATCH_SLACK_BOT_TOKEN: 'xoxb-not-the-token',
      TRAINWATCH_SLACK_CHANNEL: CHANNEL,
      TRAINWATCH_SLACK_API_URL: api.apiUrl,
    });
    cleanups.push(() => wrong.close());
    const r = await deliver(
      a,
      wrong.app().deps.notifiers.filter((n) => n.channel === 'slack'),
      noWait,
    );
    expect(r.failed).toEqual([{ channel: 'slack', error: 'slack: invalid_auth', permanent: true }]);
  });

  it('a grouped alert is a channel post of its own, outside any thread', async () => {
    const app = await setup({ TRAINWATCH_GROUP_MIN: '3' });
    for (const id of ['g-1', 'g-2', 'g-3']) await t.put(id, 'metadata', metadata(id));
    const now = Date.now();
    await runSweep(app, now);
    await runSweep(app, now + 11 * MIN);
    const top = await channel();
    expect(top.map((m) => m.text)).toEqual([expect.stringMatching(/3 runs TIMED_OUT in one sweep/)]);
    expect(JSON.stringify(top[0]!.blocks)).not.toContain('trainwatch_ack');
  });
});

describe('buttons', () => {
  it('Acknowledge: verified, done once with who in the history, the message updated, announced in the thread', async () => {
    const app = await setup({ TRAINWATCH_STALL_AFTER: '2s', TRAINWATCH_REMIND_EVERY: '5m' });
    const url = await startEndpoint(app);
    await stalled(app, 'ack-1');
    const [parent] = await channel();
    const res = await click(url, parent!, ACTION.ack);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    const rec = (await app.states.get('ack-1'))!;
    expect(rec.ack).toMatchObject({ by: '@maria', state: 'STALLED' });
    expect((await app.states.history('ack-1')).map((f) => f.reason)).toContain('acknowledged by @maria');
    // The clicked message, replaced: who acknowledged, and no Acknowledge button any more.
    const update = api.responses.at(-1)!.body;
    expect(update).toMatchObject({ replace_original: true });
    expect(JSON.stringify(update.blocks)).toContain('Acknowledged by <@U0MARIA01>');
    expect(JSON.stringify(update.blocks)).not.toContain(ACTION.ack);
    // The next sweep announces it once, in the run's thread (every channel, as `trainwatch ack` does).
    await runSweep(app, Date.now() + 1000);
    await runSweep(app, Date.now() + 7 * MIN);
    const replies = (await thread(parent!.ts)).slice(1);
    expect(replies.map((m) => m.text)).toEqual([
      expect.stringMatching(/ack-1 \(STALLED\) acknowledged by @maria/),
    ]);
    // A second click, by someone else, acts on nothing: the run is already acknowledged.
    await click(url, parent!, ACTION.ack, BO);
    expect(api.responses.at(-1)!.body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/already acknowledged by @maria/),
    });
  });

  it('a retried request (X-Slack-Retry-Num) never acts twice', async () => {
    const app = await setup({ TRAINWATCH_STALL_AFTER: '2s' });
    const url = await startEndpoint(app);
    await stalled(app, 'retry-1');
    const [parent] = await channel();
    const form = clickPayload(parent!, ACTION.silence1h, MARIA, api.responseUrl(), 'trigger-retry-1');
    const first = await sendSigned(url, form, { secret: SECRET });
    const again = await sendSigned(url, form, { secret: SECRET, retry: 1 });
    const third = await sendSigned(url, form, { secret: SECRET, retry: 2 });
    expect([first.status, again.status, third.status]).toEqual([200, 200, 200]);
    expect(await app.silences.list()).toHaveLength(1);
    expect(api.responses).toHaveLength(1);
    expect(logs.filter((l) => l.message === 'slack request already handled')).toHaveLength(2);
  });

  it('Silence 1h and Silence until resolved: held alerts, and the second ends when the run recovers', async () => {
    const app = await setup({ TRAINWATCH_STALL_AFTER: '2s', TRAINWATCH_REMIND_EVERY: '5m' });
    const url = await startEndpoint(app);
    await stalled(app, 'quiet-1');
    const [parent] = await channel();
    await click(url, parent!, ACTION.silenceResolved);
    const [s] = await app.silences.list();
    expect(s).toMatchObject({ scope: { kind: 'run', runId: 'quiet-1' }, by: '@maria', untilResolved: true });
    expect(JSON.stringify(api.responses.at(-1)!.body)).toContain('Silenced until resolved by <@U0MARIA01>');
    const posts = api.messages.length;
    await runSweep(app, Date.now() + 7 * MIN); // a reminder would be due: held
    expect(api.messages).toHaveLength(posts);
    // Progress resumes: the recovery is announced (a silence until resolved holds no healthy alert), and it ends.
    await t.put('quiet-1', 'metadata', metadata('quiet-1', { job_name: 'llama' }));
    await t.put('quiet-1', 'progress', progress(80));
    await runSweep(app, Date.now() + 1000);
    expect(api.messages.at(-1)!.text).toMatch(/quiet-1 — RUNNING/);
    const [ended] = await app.silences.list();
    expect(ended!.endsAt).toBeLessThanOrEqual(Date.now() + 2000);
    expect(ended!.removedBy).toBe('trainwatch (resolved)');

    await click(url, parent!, ACTION.silence1h);
    expect(api.responses.at(-1)!.body).toMatchObject({
      text: expect.stringMatching(/moved on: it is RUNNING now/),
    });
    expect(await app.silences.list()).toHaveLength(1);
  });

  it('Restart now: allowed for slack.restartBy, handed to remediation (which probes and restarts), refused for others, stale after', async () => {
    const instanceId = `i-${randomBytes(9).toString('hex').slice(0, 17)}`;
    const app = await setup({
      TRAINWATCH_SLACK_RESTART_BY: MARIA.id,
      TRAINWATCH_RESTART_POLICY: JSON.stringify({ extends: 'transient', backoff: { initial_seconds: 0 } }),
      TRAINWATCH_RESTART_COMMANDS: JSON.stringify({
        '*': { command: '/opt/train/resume.sh', process_pattern: 'train.py' },
      }),
      TRAINWATCH_DIAGNOSE_DOCUMENT: 'tw-test-diagnose',
      TRAINWATCH_RESTART_DOCUMENT: 'tw-test-restart',
    });
    const instance = new SimulatedInstance({
      endpoint: t.env.AWS_ENDPOINT_URL!,
      instanceId,
      behaviour: BEHAVIOURS.nccl!,
      pollMs: 50,
    });
    await instance.start();
    cleanups.push(() => instance.stop());
    const url = await startEndpoint(app);
    await t.put(
      'rs-1',
      'metadata',
      metadata('rs-1', { instance_id: instanceId, job_name: 'llama', checkpoint_dir: '/ckpt' }),
    );
    await t.put('rs-1', 'progress', progress(200));
    await t.put('rs-1', 'error', NCCL);
    await runSweep(app, Date.now());
    // As remediation would have posted it after a probe that held the restart back: the offer is on the alert.
    const [parent] = await channel();
    const rec = (await app.states.get('rs-1'))!;
    const offer = {
      ...parent!,
      blocks: [
        {
          type: 'actions',
          elements: onCallButtons(
            {
              runId: 'rs-1',
              state: rec.state,
              attempt: 1,
              since: rec.since,
              kind: 'remediation',
              offersRestart: true,
            } as Alert,
            { restart: true },
          ),
        },
      ],
    };
    expect(JSON.stringify(parent!.blocks)).not.toContain(ACTION.restart);

    await click(url, offer, ACTION.restart, BO);
    expect(api.responses.at(-1)!.body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/You may not restart runs/),
    });
    expect((await t.events()).filter((e) => e['detail-type'] === 'Training Run Restart Requested')).toEqual(
      [],
    );

    await click(url, offer, ACTION.restart);
    expect(JSON.stringify(api.responses.at(-1)!.body)).toContain('Restart requested by <@U0MARIA01>');
    const requests = (await t.events()).filter((e) => e['detail-type'] === 'Training Run Restart Requested');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.detail).toMatchObject({ runId: 'rs-1', state: 'FAILED', requestedBy: '@maria' });
    const { outcomes } = await handleRemediation(remediationDeps(app, { pollMs: 50 }), requests[0], Date.now);
    expect(outcomes[0]).toMatchObject({
      decision: { action: 'restart', reason: expect.stringContaining('(requested by @maria)') },
    });
    expect((await app.states.get('rs-1'))!).toMatchObject({ state: 'RESTARTING', attempt: 2 });
    // The restart is told in the run's thread: trainwatch's own restart carries the thread over.
    expect((await thread(parent!.ts)).slice(1).map((m) => m.text)).toContainEqual(
      expect.stringMatching(/rs-1 — RESTARTING/),
    );

    await click(url, offer, ACTION.restart);
    expect(api.responses.at(-1)!.body).toMatchObject({
      text: expect.stringMatching(/moved on: it is RESTARTING now/),
    });
    expect(
      (await t.events()).filter((e) => e['detail-type'] === 'Training Run Restart Requested'),
    ).toHaveLength(1);
  });
});

describe('the endpoint refuses what Slack did not sign', () => {
  it('answers 401 to a forged signature and to an old timestamp, logs each, and acts on neither', async () => {
    const app = await setup({ TRAINWATCH_STALL_AFTER: '2s' });
    const url = await startEndpoint(app);
    await stalled(app, 'forge-1');
    const [parent] = await channel();
    const form = clickPayload(parent!, ACTION.ack, MARIA, api.responseUrl());
    const forged = await sendSigned(url, form, { secret: 'f'.repeat(32) });
    const old = await sendSigned(url, form, {
      secret: SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    const unsigned = await sendSigned(url, form, { secret: SECRET, signature: '' });
    expect([forged.status, old.status, unsigned.status]).toEqual([401, 401, 401]);
    expect((await app.states.get('forge-1'))!.ack).toBeUndefined();
    expect(api.responses).toEqual([]);
    expect(logs.filter((l) => l.message === 'slack request refused').map((l) => l.fields?.reason)).toEqual([
      'signature does not match',
      expect.stringMatching(/^timestamp 36\d s away from now/),
      'no X-Slack-Signature or X-Slack-Request-Timestamp',
    ]);
  });
});

describe('/trainwatch status', () => {
  it('answers the live runs, or one run with its history, ephemeral and escaped', async () => {
    const app = await setup();
    const url = await startEndpoint(app);
    await t.put('st-1', 'metadata', metadata('st-1'));
    await t.put('st-2', 'metadata', metadata('st-2'));
    await t.put('st-2', 'error', 'RuntimeError: <!channel> please look <https://evil.example|here>');
    await runSweep(app, Date.now());
    const command = (text: string) =>
      sendSigned(
        url,
        {
          command: '/trainwatch',
          text,
          user_id: MARIA.id,
          user_name: 'maria',
          response_url: api.responseUrl(),
        },
        { secret: SECRET },
      );
    const all = await command('status');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('application/json');
    const table = (await all.json()) as { response_type: string; blocks: { text: { text: string } }[] };
    expect(table.response_type).toBe('ephemeral');
    const text = table.blocks.map((b) => b.text.text).join('\n');
    expect(text).toMatch(/st-2 +FAILED/);
    expect(text).toMatch(/st-1 +RUNNING/);
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('&lt;!channel&gt;');
    const one = (await (await command('status st-2')).json()) as { blocks: { text: { text: string } }[] };
    const detail = one.blocks.map((b) => b.text.text).join('\n');
    expect(detail).toContain('History (newest first)');
    expect(detail).toMatch(/\(new\) -&gt; FAILED/);
    expect(detail).not.toMatch(/<https?:/);
    const unknown = (await (await command('status no-such-run')).json()) as { text: string };
    expect(unknown.text).toBe('no run no-such-run is known');
  });
});
